"""The surveillance page's chart of the sequential bias tests (issue 27): each kind's strongest
statistic as a share of its threshold over the table's spins, the threshold drawn at 100%.

The figure is engine.floor.bias_trace's `TraceFigure` (headless); this draws it, updated in place.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from engine.floor.bias_trace import TraceFigure
from engine.sequential import KINDS
from gui import theme
from gui.widgets.charts.base import ThemedPlot

COLOURS = {"pocket": theme.LUCKY, "sector": theme.BONUS, "direction": theme.WIN, "runs": theme.TEXT_DIM}


class BiasChart(ThemedPlot):
    """Strongest pocket, sector, direction and repeats statistic against its threshold (100%)."""

    def __init__(self) -> None:
        super().__init__(
            "Sequential bias tests: strongest evidence, % of its alarm threshold "
            "(gold pocket, blue sector, green one rotor direction, grey repeats)",
            left="% of threshold",
            bottom="spins",
        )
        self.lines = {
            kind: self.plot([], [], pen=pg.mkPen(COLOURS[kind], width=2), name=kind) for kind in KINDS
        }
        self.threshold = pg.InfiniteLine(
            pos=100, angle=0, movable=False, pen=pg.mkPen(theme.DANGER, width=2, style=Qt.PenStyle.DashLine)
        )
        self.addItem(self.threshold)
        self.words = pg.TextItem("", color=theme.TEXT, anchor=(0, 0))
        self.addItem(self.words)
        self.figure: TraceFigure | None = None

    def update_data(self, figure: TraceFigure) -> None:
        self.figure = figure
        last = 1
        for kind, line in self.lines.items():
            xs, ys = figure.lines.get(kind, ([], []))
            line.setData(xs, [100 * y for y in ys])
            last = max(last, xs[-1] if xs else 1)
        self.words.setText(figure.words())
        self.words.setColor(theme.DANGER if figure.close else theme.TEXT)
        self.words.setPos(0, 118)
        self.getPlotItem().setRange(xRange=(0, last), yRange=(0, 125), padding=0)
