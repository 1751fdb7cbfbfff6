"""Small always-visible status widgets: the wheel sensor's health and the results history strip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from engine.table.view import HistoryEntry
from engine.wheel_layout import colour
from gui import theme
from gui.theme import PlayerStyle
from gui.widgets.chips import paint_chip
from gui.widgets.fit_text import FitLabel

NUMBER_COLOURS = {"red": theme.NUMBER_RED, "black": theme.NUMBER_BLACK, "green": theme.NUMBER_GREEN}


@dataclass(frozen=True, slots=True)
class SensorHealth:
    """The wheel link's health (not a journal fact: the station's own link, gui.app.WheelFeed)."""

    connected: bool
    source: str = ""
    last_message_age_s: float | None = None
    warnings: tuple[str, ...] = ()


class SensorStatus(QWidget):
    """Wheel link: a coloured dot, the source, the age of the last message and any warnings."""

    STALE_AFTER_S = 10.0

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dot = QLabel()
        self.dot.setFixedSize(18, 18)
        # Wrapped in the room the window gives (two lines each, the whole text on hover): a long
        # source or warning never widens the croupier window.
        self.text = FitLabel("Wheel: no link", max_lines=2)
        self.text.setObjectName("dim")
        self.warning = FitLabel("", max_lines=2)
        self.warning.setObjectName("reason")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 0, 8, 0)
        layout.addWidget(self.dot)
        layout.addWidget(self.text, 2)
        layout.addWidget(self.warning, 1)
        self.set_health(SensorHealth(connected=False, source="none"))

    def set_health(self, health: SensorHealth) -> None:
        age = health.last_message_age_s
        stale = age is not None and age > self.STALE_AFTER_S
        if not health.connected:
            state, colour_name = "DISCONNECTED", "#ff5a52"
        elif stale or health.warnings:
            state, colour_name = "connected, check", "#ffb020"
        else:
            state, colour_name = "connected", "#38d67a"
        self.dot.setStyleSheet(f"background: {colour_name}; border-radius: 9px;")
        age_text = "no message yet" if age is None else f"last message {age:.1f} s ago"
        source = f" ({health.source})" if health.source else ""
        self.text.setText(f"Wheel{source}: {state} · {age_text}")
        self.warning.setText(" · ".join(health.warnings))


class HistoryStrip(QWidget):
    """The last results, newest on the left, with a gold star for Lucky and a diamond for Bonus."""

    def __init__(self, parent: QWidget | None = None, max_shown: int = 24) -> None:
        super().__init__(parent)
        self._entries: tuple[HistoryEntry, ...] = ()
        self.max_shown = max_shown
        self.setMinimumHeight(46)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_history(self, entries: Sequence[HistoryEntry]) -> None:
        self._entries = tuple(entries)
        self.update()

    @property
    def shown(self) -> tuple[HistoryEntry, ...]:
        return tuple(reversed(self._entries[-self.max_shown :]))

    def sizeHint(self) -> QSize:
        return QSize(900, 50)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        d = self.height() - 10.0
        x = 6.0
        f = QFont(self.font())
        f.setBold(True)
        f.setPixelSize(int(d * 0.46))
        p.setFont(f)
        if not self._entries:
            p.setPen(theme.TEXT_DIM)
            p.drawText(
                self.rect().adjusted(8, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, "No results yet this session"
            )
        for i, e in enumerate(self.shown):
            r = QRectF(x, 5.0, d, d)
            p.setPen(
                QPen(
                    theme.LUCKY if e.lucky else theme.BONUS if e.bonus else theme.PANEL_EDGE,
                    3 if (e.lucky or e.bonus) else 1,
                )
            )
            p.setBrush(NUMBER_COLOURS[colour(e.number)])
            p.drawEllipse(r)
            p.setPen(theme.TEXT)
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, str(e.number))
            mark = d * 0.42
            if e.lucky:
                theme.icon("lucky").paint(p, QRectF(r.right() - mark * 0.7, r.top() - 3, mark, mark).toRect())
            if e.bonus:
                theme.icon("diamond").paint(
                    p, QRectF(r.right() - mark * 0.7, r.top() - 3, mark, mark).toRect()
                )
            if e.manual:
                p.setPen(theme.WARN)
                small = QFont(f)
                small.setPixelSize(int(d * 0.26))
                p.setFont(small)
                p.drawText(
                    QRectF(r.left(), r.bottom() - d * 0.3, d * 0.4, d * 0.3),
                    Qt.AlignmentFlag.AlignCenter,
                    "M",
                )
                p.setFont(f)
            x += d + (10 if i == 0 else 5)
            if x + d > self.width():
                break
        p.end()


def chip_pixmap(style: PlayerStyle, size: int = 28, label: str = "") -> QPixmap:
    """A player's chip as an icon for buttons and lists."""
    pm = QPixmap(size, size)
    pm.fill(QColor(0, 0, 0, 0))
    p = QPainter(pm)
    paint_chip(p, QPointF(size / 2, size / 2), size * 0.4, style, label)
    p.end()
    return pm
