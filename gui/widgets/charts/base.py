"""A dark pyqtgraph plot in the station theme, with a title and helpers for category axes."""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor

from gui import theme

GRID_ALPHA = 0.15


def colour(c: QColor, alpha: int = 255) -> QColor:
    out = QColor(c)
    out.setAlpha(alpha)
    return out


class ThemedPlot(pg.PlotWidget):  # type: ignore[misc]
    """A PlotWidget with the station's background, muted axes and a left-aligned title."""

    def __init__(self, title: str, *, left: str = "", bottom: str = "") -> None:
        super().__init__(background=theme.PANEL)
        self.setMinimumHeight(180)
        item = self.getPlotItem()
        item.setTitle(
            f"<span style='color:{theme.TEXT.name()};font-size:10pt'>{title}</span>", justify="left"
        )
        item.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        item.setMenuEnabled(False)
        item.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        item.getViewBox().disableAutoRange()  # every chart sets its own range on update
        for name in ("left", "bottom"):
            axis = item.getAxis(name)
            axis.setPen(pg.mkPen(theme.PANEL_EDGE))
            axis.setTextPen(pg.mkPen(theme.TEXT_DIM))
            axis.setStyle(tickFont=theme.font(9))
        if left:
            item.setLabel("left", left, color=theme.TEXT_DIM.name())
        if bottom:
            item.setLabel("bottom", bottom, color=theme.TEXT_DIM.name())

    def sizeHint(self) -> QSize:
        return QSize(420, 220)  # a grid of charts: none asks for pyqtgraph's default 600x480

    def set_categories(self, labels: Sequence[str]) -> None:
        self.getPlotItem().getAxis("bottom").setTicks([[(i, s) for i, s in enumerate(labels)]])
