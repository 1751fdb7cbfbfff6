"""Outcome frequency per number: bars in layout or wheel order, the expected line and the 99% band.

Bars take the number's colour; a number flagged by the Bonferroni test is drawn in the warning
colour with a bright outline, so a bias is visible from across the room.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt

from engine.wheel_layout import colour as number_colour
from gui import theme
from gui.widgets.charts.base import ThemedPlot, colour

_FILL = {"red": theme.NUMBER_RED, "black": theme.TEXT_DIM, "green": theme.NUMBER_GREEN}
# Made once: a wall of a hundred tiles would otherwise make 7,400 brushes and pens a refresh.
_BRUSHES = {**{name: pg.mkBrush(c) for name, c in _FILL.items()}, "hot": pg.mkBrush(theme.WARN)}
_PENS = {True: pg.mkPen(theme.DANGER, width=2), False: pg.mkPen(theme.PANEL_EDGE, width=1)}


class FrequencyChart(ThemedPlot):
    def __init__(self, title: str = "Outcome frequency", *, compact: bool = False) -> None:
        super().__init__(title, left="" if compact else "spins")
        self.compact = compact
        self.bars = pg.BarGraphItem(x=list(range(37)), height=[0] * 37, width=0.8, brushes=[theme.PANEL] * 37)
        self.band = pg.LinearRegionItem(
            values=(0, 0), orientation="horizontal", movable=False, brush=colour(theme.BONUS, 28)
        )
        for line in self.band.lines:
            line.setPen(pg.mkPen(colour(theme.BONUS, 90), width=1))
        self.expected = pg.InfiniteLine(
            pos=0, angle=0, movable=False, pen=pg.mkPen(theme.LUCKY, width=2, style=Qt.PenStyle.DashLine)
        )
        self.addItem(self.band)
        self.addItem(self.bars)
        self.addItem(self.expected)
        self.numbers: list[int] = list(range(37))
        self.heights: list[int] = [0] * 37
        self.getPlotItem().setXRange(-0.7, 36.7, padding=0)
        self._drawn: tuple[Any, ...] | None = None  # what the chart shows now (`update_data`)

    def update_data(self, freq: dict[str, Any], flagged: list[int]) -> None:
        """Redraw from `engine.floor.surveillance.frequency` output (same items, new values); the
        same figures again redraw nothing (most of a live table's commits are wagers and
        settlements, which move no count: on a wall of tiles, a redraw each was most of the
        surveillance station's Qt thread, issue 28)."""
        step = 3 if self.compact else 1 if self.width() > 760 else 2
        drawn = (
            tuple(freq["numbers"]),
            tuple(freq["counts"]),
            tuple(flagged),
            freq["expected"],
            freq["band_low"],
            freq["band_high"],
            step,
        )
        if drawn == self._drawn:
            return
        self._drawn = drawn
        self.numbers = list(freq["numbers"])
        self.heights = list(freq["counts"])
        hot = set(flagged)
        brushes = [_BRUSHES["hot" if n in hot else number_colour(n)] for n in self.numbers]
        pens = [_PENS[n in hot] for n in self.numbers]
        self.bars.setOpts(x=list(range(37)), height=self.heights, brushes=brushes, pens=pens)
        self.expected.setValue(freq["expected"])
        self.band.setRegion((freq["band_low"], freq["band_high"]))
        self.getPlotItem().getAxis("bottom").setTicks(
            [[(i, str(n)) for i, n in enumerate(self.numbers) if i % step == 0]]
        )
        top = max([*self.heights, freq["band_high"], 1])
        self.getPlotItem().setYRange(0, top * 1.08, padding=0)
