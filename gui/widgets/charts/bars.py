"""Category bars against expectation (splits, Lucky/Bonus rates, z-scores, bonus outcomes).

Values and the expected marks are updated in place; the categories may change (bonus outcomes),
in which case only the axis ticks are reset.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from gui import theme
from gui.widgets.charts.base import ThemedPlot


class CategoryBars(ThemedPlot):
    """Bars with an optional expected tick over each (a short gold line)."""

    def __init__(self, title: str, *, left: str = "", fill: QColor = theme.BONUS) -> None:
        super().__init__(title, left=left)
        self.fill = fill
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush=fill, pen=pg.mkPen(None))
        self.marks = pg.ScatterPlotItem(
            symbol="_", size=34, pen=pg.mkPen(theme.LUCKY, width=3), brush=pg.mkBrush(theme.LUCKY)
        )
        self.addItem(self.bars)
        self.addItem(self.marks)
        self.labels: list[str] = []
        self.values: list[float] = []
        self.expected_values: list[float | None] = []

    def update_data(
        self,
        labels: Sequence[str],
        values: Sequence[float],
        expected: Sequence[float | None] = (),
        brushes: Sequence[QColor] | None = None,
    ) -> None:
        xs = list(range(len(values)))
        self.values, self.expected_values = list(values), list(expected)
        opts = {"x": xs, "height": self.values}
        if brushes is not None:
            opts["brushes"] = [pg.mkBrush(b) for b in brushes]
        self.bars.setOpts(**opts)
        pts = [(x, e) for x, e in zip(xs, expected, strict=False) if e is not None]
        self.marks.setData([p[0] for p in pts], [p[1] for p in pts])
        if list(labels) != self.labels:
            self.labels = list(labels)
            self.set_categories(self.labels)
        top = max([*self.values, *(e for e in expected if e is not None), 1e-9])
        bottom = min([*self.values, 0])
        self.getPlotItem().setYRange(bottom * 1.1, top * 1.12, padding=0)
        self.getPlotItem().setXRange(-0.6, max(len(xs), 1) - 0.4, padding=0)


class ZScores(ThemedPlot):
    """Per-number z-scores (layout order) with the ± Bonferroni limit lines."""

    def __init__(self) -> None:
        super().__init__("Each number against its fair share (outside the lines: beyond chance)", left="z")
        self.bars = pg.BarGraphItem(
            x=list(range(37)), height=[0] * 37, width=0.8, brush=theme.BONUS, pen=pg.mkPen(None)
        )
        pen = pg.mkPen(theme.DANGER, width=1.5, style=Qt.PenStyle.DashLine)
        self.upper = pg.InfiniteLine(pos=3, angle=0, movable=False, pen=pen)
        self.lower = pg.InfiniteLine(pos=-3, angle=0, movable=False, pen=pen)
        for item in (self.bars, self.upper, self.lower):
            self.addItem(item)
        self.z: list[float] = [0.0] * 37
        self.getPlotItem().getAxis("bottom").setTicks([[(n, str(n)) for n in range(0, 37, 3)]])
        self.getPlotItem().setXRange(-0.7, 36.7, padding=0)

    def update_data(self, z: Sequence[float], limit: float, flagged: Sequence[int]) -> None:
        self.z = list(z)
        brushes = [pg.mkBrush(theme.DANGER if n in flagged else theme.BONUS) for n in range(37)]
        self.bars.setOpts(height=self.z, brushes=brushes)
        self.upper.setValue(limit)
        self.lower.setValue(-limit)
        span = max([abs(v) for v in self.z] + [limit]) * 1.15
        self.getPlotItem().setRange(xRange=(-0.7, 36.7), yRange=(-span, span), padding=0)
