"""A frequency chart shown the same figures again redraws nothing; new figures redraw it (issue 28).

On the surveillance wall every commit of a live table re-shows its tile, and most commits (wagers,
settlements) move no count: each of those redrew the tile's bars, axis and band on the station's Qt
thread, which held up every other tile's update behind it.
"""

from __future__ import annotations

from typing import Any

from pytestqt.qtbot import QtBot

from engine.floor.surveillance import LAYOUT_ORDER, frequency
from gui.widgets.charts.frequency import FrequencyChart


def _counting(chart: FrequencyChart) -> list[Any]:
    drawn: list[Any] = []
    set_opts = chart.bars.setOpts

    def counted(**opts: Any) -> None:
        drawn.append(opts["height"])
        set_opts(**opts)

    chart.bars.setOpts = counted  # type: ignore[method-assign]
    return drawn


def test_the_same_counts_again_redraw_nothing_and_new_counts_redraw(qtbot: QtBot) -> None:
    chart = FrequencyChart("", compact=True)
    qtbot.addWidget(chart)
    drawn = _counting(chart)
    counts = [3] * 37
    chart.update_data(frequency(counts, LAYOUT_ORDER), [])
    chart.update_data(frequency(list(counts), LAYOUT_ORDER), [])  # a wager's commit: no count moved
    assert len(drawn) == 1
    counts[17] += 1  # a result
    chart.update_data(frequency(counts, LAYOUT_ORDER), [])
    assert len(drawn) == 2 and chart.heights[list(LAYOUT_ORDER).index(17)] == 4
    chart.update_data(frequency(counts, LAYOUT_ORDER), [17])  # flagged now: drawn in the warning colour
    assert len(drawn) == 3
