"""A wall tile whose words change but whose figures do not neither resizes nor repaints its chart (issue 28).

The tile's words (verdict, chi-square words, a bias alarm's words, the last entry's time) change with
almost every commit, often by a line; when they were a word-wrapped label that took the height of its
text, each such change resized the tile's layout and with it the pyqtgraph chart, which repainted: on
the live floor bench 82 of 227 chart paints were these. The words now keep a fixed height of
`WORDS_LINES` lines, elided, the whole text on hover: one chart paint per set of new figures.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject
from pytestqt.qtbot import QtBot

from engine.floor import windows as win
from engine.floor.surveillance import LAYOUT_ORDER, frequency
from engine.floor.wall import TileView
from engine.store.stats import DEFAULT_ALPHA, chi_square_in_words, z_scores
from gui.windows.surveillance import WORDS_LINES, WallTile


class _Count(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0
        self.resizes = 0

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        self.paints += event.type() == QEvent.Type.Paint
        self.resizes += event.type() == QEvent.Type.Resize
        return False


def _view(counts: list[int], verdict: str, last: str, seq: int) -> TileView:
    stats: dict[str, Any] = {
        "spins": sum(counts),
        "counts": counts,
        "chi_square": chi_square_in_words(counts, DEFAULT_ALPHA),
        "z_scores": z_scores(counts, DEFAULT_ALPHA),
    }
    return TileView(
        table="T1",
        window=win.last_spins(1000),
        stats=stats,
        layout=frequency(counts, LAYOUT_ORDER),
        verdict=verdict,
        last_time=last,
        seq=seq,
    )


def _settle(qtbot: QtBot) -> None:
    qtbot.wait(50)  # the layout request and the paints it posts are handled


def test_words_changing_alone_neither_resize_nor_repaint_the_chart(qtbot: QtBot) -> None:
    tile = WallTile("T1")
    qtbot.addWidget(tile)
    tile.resize(320, 420)
    tile.show()
    qtbot.waitExposed(tile)
    counts = [3] * 37
    tile.show_view(_view(counts, "nothing unusual", "2026-12-07T10:00:00.000000Z", 10))
    count = _Count()
    tile.chart.viewport().installEventFilter(count)
    for _ in range(40):  # the first view's paints (pyqtgraph defers some) are over before counting
        before = count.paints
        qtbot.wait(100)
        if count.paints == before:
            break
    count.paints = count.resizes = 0
    height = tile.words.height()
    long_words = " ".join(["a verdict that goes on for a good many words and lines"] * 6)
    # Only the words change (a wager's commit: no count moved): one line more, many more, fewer.
    for seq, verdict in enumerate(["nothing unusual yet", long_words, "short"], start=11):
        tile.show_view(_view(list(counts), verdict, f"2026-12-07T10:00:{seq:02d}.000000Z", seq))
        _settle(qtbot)
    assert (count.resizes, count.paints) == (0, 0)
    assert tile.words.height() == height
    assert tile.words.text().startswith("short\n")  # the whole text, as told
    # New figures: the chart repaints, still at its size.
    counts[17] += 1
    tile.show_view(_view(counts, "short", "2026-12-07T10:01:00.000000Z", 20))
    _settle(qtbot)
    assert count.resizes == 0 and count.paints >= 1


def test_long_words_are_elided_to_their_lines_with_the_whole_text_on_hover(qtbot: QtBot) -> None:
    tile = WallTile("T1")
    qtbot.addWidget(tile)
    tile.resize(320, 420)
    tile.show()
    qtbot.waitExposed(tile)
    long_words = " ".join(f"word{i}" for i in range(200))
    tile.show_view(_view([3] * 37, long_words, "2026-12-07T10:00:00.000000Z", 1))
    _settle(qtbot)
    shown = tile.words.shown_text().split("\n")
    assert len(shown) == WORDS_LINES and shown[-1].endswith("…")
    assert long_words in tile.words.toolTip() and long_words in tile.words.text()
    line = tile.words.fontMetrics().lineSpacing()
    assert tile.words.height() >= WORDS_LINES * line
