"""Painting a chip: the player's colour, the player's shape and the value printed on it.

Shape as well as colour tells players apart, so a colour-blind croupier or player can still
tell whose chip is whose.
"""

from __future__ import annotations

import math
from decimal import Decimal

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF

from gui.theme import ChipShape, PlayerStyle


def chip_path(shape: ChipShape, centre: QPointF, radius: float) -> QPainterPath:
    path = QPainterPath()
    if shape is ChipShape.CIRCLE:
        path.addEllipse(centre, radius, radius)
        return path
    if shape is ChipShape.SQUARE:
        side = radius * 1.72
        path.addRoundedRect(
            QRectF(centre.x() - side / 2, centre.y() - side / 2, side, side), radius * 0.22, radius * 0.22
        )
        return path
    corners, start, scale = {
        ChipShape.DIAMOND: (4, -90.0, 1.12),
        ChipShape.HEXAGON: (6, 0.0, 1.04),
        ChipShape.TRIANGLE: (3, -90.0, 1.3),
        ChipShape.PENTAGON: (5, -90.0, 1.08),
    }[shape]
    r = radius * scale
    points = [
        QPointF(
            centre.x() + r * math.cos(math.radians(start + 360.0 * i / corners)),
            centre.y()
            + r * math.sin(math.radians(start + 360.0 * i / corners))
            + (r * 0.22 if corners == 3 else 0.0),
        )
        for i in range(corners)
    ]
    path.addPolygon(QPolygonF(points))
    path.closeSubpath()
    return path


def chip_label(amount: Decimal) -> str:
    """A short value for a chip face: 5, 12.5, 1.2K, 25K."""
    if amount >= 1000:
        k = amount / 1000
        text = f"{k:.1f}".rstrip("0").rstrip(".") if k < 100 else f"{k:.0f}"
        return f"{text}K"
    normal = amount.normalize()
    return f"{normal:f}"


def paint_chip(
    painter: QPainter,
    centre: QPointF,
    radius: float,
    style: PlayerStyle,
    label: str,
    *,
    ring: QColor | None = None,
) -> None:
    """One chip. `ring` draws a thick outer ring (a winning wager, a selected chip)."""
    painter.save()
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    path = chip_path(style.shape, centre, radius)
    shadow = path.translated(radius * 0.08, radius * 0.12)
    painter.fillPath(shadow, QBrush(QColor(0, 0, 0, 110)))
    painter.fillPath(path, QBrush(style.qcolor))
    # The dashed inner edge makes it read as a chip, not a dot.
    inner = chip_path(style.shape, centre, radius * 0.78)
    dash = QPen(QColor(255, 255, 255, 190), max(1.0, radius * 0.14))
    dash.setDashPattern([1.2, 1.4])
    painter.setPen(dash)
    painter.drawPath(inner)
    painter.setPen(QPen(QColor(0, 0, 0, 170), max(1.0, radius * 0.07)))
    painter.drawPath(path)
    if ring is not None:
        painter.setPen(QPen(ring, max(2.0, radius * 0.2)))
        painter.drawPath(chip_path(style.shape, centre, radius * 1.2))
    f = QFont(painter.font())
    f.setBold(True)
    f.setPixelSize(max(6, int(radius * (0.82 if len(label) <= 2 else 0.64 if len(label) <= 4 else 0.5))))
    painter.setFont(f)
    painter.setPen(style.text_colour)
    box = QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius)
    if style.shape is ChipShape.TRIANGLE:
        box.translate(0, radius * 0.2)
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, label)
    painter.restore()
