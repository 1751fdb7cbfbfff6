"""Line charts over time: actual hold against the theoretical hold, rotor speed by direction."""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt

from gui import theme
from gui.widgets.charts.base import ThemedPlot


class HoldChart(ThemedPlot):
    def __init__(self) -> None:
        super().__init__(
            "Actual hold (green, cumulative) vs theoretical (gold dashes), %",
            left="hold %",
            bottom="settled rounds",
        )
        self.actual = self.plot([], [], pen=pg.mkPen(theme.WIN, width=2), name="actual")
        self.theory = pg.InfiniteLine(
            pos=0, angle=0, movable=False, pen=pg.mkPen(theme.LUCKY, width=2, style=Qt.PenStyle.DashLine)
        )
        self.addItem(self.theory)
        self.xs: list[int] = []
        self.ys: list[float] = []

    def update_data(self, rounds: Sequence[int], actual: Sequence[float], theoretical: float | None) -> None:
        self.xs, self.ys = list(rounds), [100 * v for v in actual]
        self.actual.setData(self.xs, self.ys)
        self.theory.setVisible(theoretical is not None)
        if theoretical is not None:
            self.theory.setValue(100 * theoretical)
        ys = self.ys + ([100 * theoretical] if theoretical is not None else [])
        low, high = (min(ys), max(ys)) if ys else (0.0, 1.0)
        pad = max(1.0, (high - low) * 0.1)
        self.getPlotItem().setRange(
            xRange=(0, max(self.xs[-1] if self.xs else 1, 1)), yRange=(low - pad, high + pad), padding=0
        )


class RotorChart(ThemedPlot):
    """Rotor speed readings (rpm) in order; clockwise and counter-clockwise in two colours."""

    def __init__(self) -> None:
        super().__init__("Rotor rpm (● cw, ▲ ccw)", left="rpm", bottom="readings")
        self.cw = self.plot([], [], pen=None, symbol="o", symbolSize=5, symbolBrush=theme.BONUS, name="cw")
        self.ccw = self.plot([], [], pen=None, symbol="t", symbolSize=6, symbolBrush=theme.WARN, name="ccw")
        self.empty = pg.TextItem("no rotor data", color=theme.TEXT_DIM, anchor=(0.5, 0.5))
        self.addItem(self.empty)
        self.points = 0

    def update_data(self, readings: Sequence[tuple[str, float, str]]) -> None:
        self.points = len(readings)
        cw = [(i, rpm) for i, (_, rpm, d) in enumerate(readings) if d == "cw"]
        ccw = [(i, rpm) for i, (_, rpm, d) in enumerate(readings) if d != "cw"]
        self.cw.setData([p[0] for p in cw], [p[1] for p in cw])
        self.ccw.setData([p[0] for p in ccw], [p[1] for p in ccw])
        self.empty.setVisible(not readings)
        if not readings:
            self.getPlotItem().setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
            self.empty.setPos(0.5, 0.5)
            return
        rpms = [rpm for _, rpm, _ in readings]
        pad = max(0.5, (max(rpms) - min(rpms)) * 0.1)
        self.getPlotItem().setRange(
            xRange=(-1, len(readings)), yRange=(min(rpms) - pad, max(rpms) + pad), padding=0
        )
