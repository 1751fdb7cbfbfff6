"""The wheel ring heat map: pockets in wheel order, coloured by deviation (z), the hottest sector outlined.

Blue is colder than expected, red hotter; white is on expectation. Saturation reaches full at |z| = 3.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from engine.wheel_layout import colour as number_colour
from gui import theme

SATURATE_AT = 3.0


def heat(z: float) -> QColor:
    t = max(-1.0, min(1.0, z / SATURATE_AT))
    cold, hot, mid = QColor("#3b82f6"), QColor("#ef4444"), QColor("#e8ecef")
    end = hot if t > 0 else cold
    a = abs(t)
    return QColor(
        round(mid.red() + (end.red() - mid.red()) * a),
        round(mid.green() + (end.green() - mid.green()) * a),
        round(mid.blue() + (end.blue() - mid.blue()) * a),
    )


class WheelRing(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(240, 240)
        self.ring: list[tuple[int, float]] = []
        self.sector: list[int] = []
        self.caption = ""

    def sizeHint(self) -> QSize:
        return QSize(320, 320)

    def update_data(self, ring: Sequence[tuple[int, float]], sector: Sequence[int], caption: str) -> None:
        self.ring, self.sector, self.caption = list(ring), list(sector), caption
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), theme.PANEL)
        side = min(self.width() - 16, self.height() - 110)
        if side <= 40 or not self.ring:
            p.end()
            return
        c = QPointF(self.width() / 2, 8 + side / 2 + 24)
        outer, inner = side / 2, side / 2 * 0.62
        p.setPen(QPen(theme.TEXT, 1))
        p.setFont(theme.font(10, True))
        p.drawText(
            QRectF(8, 2, self.width() - 16, 22), Qt.AlignmentFlag.AlignLeft, "Wheel heat (z by pocket)"
        )
        step = 360 / len(self.ring)
        for i, (number, z) in enumerate(self.ring):
            start = 90 - (i + 0.5) * step  # zero at the top, clockwise
            path = QPainterPath()
            path.arcMoveTo(QRectF(c.x() - outer, c.y() - outer, 2 * outer, 2 * outer), start)
            path.arcTo(QRectF(c.x() - outer, c.y() - outer, 2 * outer, 2 * outer), start, -step)
            path.arcTo(QRectF(c.x() - inner, c.y() - inner, 2 * inner, 2 * inner), start - step, step)
            path.closeSubpath()
            p.fillPath(path, heat(z))
            hot = number in self.sector
            p.setPen(QPen(theme.LUCKY if hot else theme.PANEL, 3 if hot else 1))
            p.drawPath(path)
            mid = math.radians(start - step / 2)
            r = (outer + inner) / 2
            pos = QPointF(c.x() + r * math.cos(mid), c.y() - r * math.sin(mid))
            p.setPen(QPen(QColor("#111111")))
            p.setFont(theme.font(max(6.0, side / 48), number_colour(number) != "black"))
            p.drawText(QRectF(pos.x() - 14, pos.y() - 8, 28, 16), Qt.AlignmentFlag.AlignCenter, str(number))
        p.setPen(QPen(theme.TEXT))
        p.setFont(theme.font(9.5))
        p.drawText(
            QRectF(8, c.y() + outer + 6, self.width() - 16, self.height() - (c.y() + outer + 6)),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
            self.caption,
        )
        p.end()
