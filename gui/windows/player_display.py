"""The player display (marquee): Lucky Numbers and payouts, Bonus Number, last results, hot and
cold numbers, red/black/zero split. Big type and high contrast, legible from three metres.

Painted as one widget so every element scales with the screen; all it shows comes from the
table adapter's signals (the statistics are counts over the results it was told).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from engine.rng import Draw
from engine.round import Phase
from engine.table.view import HistoryEntry, PayLine, odds_number
from engine.wheel_layout import colour
from gui import theme
from gui.screen_layout import keep_keys_away
from gui.table_model import TableModel
from gui.widgets.phase_strip import PhaseStrip
from gui.widgets.status import NUMBER_COLOURS
from gui.windows.first_paint import FirstPaintWindow

LAST_SHOWN = 20
HOT_COLD_WINDOW = 100
HOT_COLD_COUNT = 5

HEADLINE = {
    # Between rounds bets are not open: telling players to place them would be false.
    Phase.IDLE: ("Wait for the next round", theme.TEXT),
    Phase.OPEN: ("Place your bets", theme.WIN),
    Phase.CLOSED: ("No more bets", theme.LUCKY),
    Phase.RESULT: ("", theme.TEXT),
    Phase.BONUS: ("BONUS GAME", theme.BONUS),
    Phase.SETTLED: ("", theme.TEXT),
    Phase.VOID: ("ROUND VOID", theme.DANGER),
}


def hot_and_cold(
    history: Sequence[HistoryEntry], window: int = HOT_COLD_WINDOW
) -> tuple[list[int], list[int]]:
    """The most and least frequent numbers in the last `window` results (ties by number)."""
    recent = [e.number for e in history[-window:]]
    counts = Counter({n: 0 for n in range(37)})
    counts.update(recent)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    hot = [n for n, c in ranked[:HOT_COLD_COUNT] if c > 0]
    # Before any result every number is equally "cold": naming five of them would mislead.
    cold = (
        [n for n, _ in sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))[:HOT_COLD_COUNT]]
        if recent
        else []
    )
    return hot, cold


def colour_split(history: Sequence[HistoryEntry], window: int = HOT_COLD_WINDOW) -> dict[str, int]:
    """How many of the last `window` results were red, black and zero."""
    split = {"red": 0, "black": 0, "green": 0}
    for e in history[-window:]:
        split[colour(e.number)] += 1
    return split


class Marquee(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        # Painted on a 16:9 grid that scales with the widget, so it reads at any size: on one
        # monitor plain `drr` gives it the 400-px column beside the croupier window (a 640-px
        # minimum ran past the column and off the screen).
        self.setMinimumSize(320, 180)
        self.phase = Phase.IDLE
        self.lucky: dict[int, Fraction] = {}
        self.bonus: int | None = None
        self.result: int | None = None
        self.history: tuple[HistoryEntry, ...] = ()
        self.table_name = ""

    # --- inputs -------------------------------------------------------------------------------

    def set_phase(self, phase: Phase) -> None:
        self.phase = phase
        if phase in (Phase.IDLE, Phase.OPEN):
            self.lucky, self.bonus, self.result = {}, None, None
        self.update()

    def set_draw(self, draw: Draw | None) -> None:
        self.lucky = dict(draw.lucky) if draw else {}
        self.bonus = draw.bonus_number if draw else None
        self.update()

    def set_result(self, number: int | None) -> None:
        self.result = number
        self.update()

    def set_history(self, history: Sequence[HistoryEntry]) -> None:
        self.history = tuple(history)
        self.update()

    # --- painting -----------------------------------------------------------------------------

    def _font(self, px: float, bold: bool = True) -> QFont:
        f = QFont(self.font())
        f.setPixelSize(max(8, int(px)))
        f.setBold(bold)
        return f

    def _ball(
        self, p: QPainter, centre: QPointF, radius: float, number: int, ring: QColor | None = None
    ) -> None:
        p.setPen(QPen(ring, radius * 0.12) if ring else QPen(QColor(255, 255, 255, 40), 1.5))
        p.setBrush(NUMBER_COLOURS[colour(number)])
        p.drawEllipse(centre, radius, radius)
        p.setPen(theme.TEXT)
        p.setFont(self._font(radius * 0.95))
        p.drawText(
            QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius),
            Qt.AlignmentFlag.AlignCenter,
            str(number),
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        w, h = float(self.width()), float(self.height())
        u = min(w / 16.0, h / 9.0)  # one unit of a 16:9 grid
        p.fillRect(self.rect(), theme.BACKGROUND)
        self._paint_header(p, w, u)
        self._paint_lucky(p, QRectF(0.4 * u, 1.6 * u, w * 0.62 - 0.6 * u, h - 4.1 * u), u)
        self._paint_side(p, QRectF(w * 0.62 + 0.2 * u, 1.6 * u, w * 0.38 - 0.6 * u, h - 4.1 * u), u)
        self._paint_history(p, QRectF(0.4 * u, h - 2.3 * u, w - 0.8 * u, 2.0 * u), u)
        p.end()

    def _panel(
        self, p: QPainter, r: QRectF, u: float, title: str = "", size: float = 0.34, top: float = 0.2
    ) -> None:
        """A rounded panel, with its title (if any) in the top-left corner; size and top in units."""
        p.setPen(QPen(theme.PANEL_EDGE, 2))
        p.setBrush(theme.PANEL)
        p.drawRoundedRect(r, 0.2 * u, 0.2 * u)
        if title:
            p.setPen(theme.TEXT_DIM)
            p.setFont(self._font(size * u))
            p.drawText(
                r.adjusted(0.4 * u, top * u, 0, 0),
                Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft,
                title,
            )

    def headline(self) -> tuple[str, QColor]:
        """What the top right tells the players now, and its colour."""
        if self.result is not None and self.phase in (Phase.RESULT, Phase.BONUS, Phase.SETTLED):
            return f"WINNING NUMBER  {self.result}", theme.TEXT
        return HEADLINE[self.phase]

    def _paint_header(self, p: QPainter, w: float, u: float) -> None:
        p.setPen(theme.LUCKY)
        p.setFont(self._font(0.5 * u))
        p.drawText(
            QRectF(0.5 * u, 0.25 * u, w * 0.5, 1.1 * u),
            Qt.AlignmentFlag.AlignVCenter,
            "DIAMOND RUSH ROULETTE",
        )
        text, col = self.headline()
        p.setPen(col)
        p.setFont(self._font(0.5 * u))
        p.drawText(
            QRectF(w * 0.5, 0.25 * u, w * 0.5 - 0.5 * u, 1.1 * u),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            text,
        )

    def _paint_lucky(self, p: QPainter, r: QRectF, u: float) -> None:
        self._panel(p, r, u, "LUCKY NUMBERS")
        if not self.lucky:
            p.setPen(theme.TEXT_DIM)
            p.setFont(self._font(0.42 * u, bold=False))
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, "The Lucky Numbers light up at\n“no more bets”")
            return
        items = sorted(self.lucky.items(), key=lambda kv: (-kv[1], kv[0]))
        cols = 5 if len(items) > 5 else len(items)
        rows = (len(items) + cols - 1) // cols
        area = r.adjusted(0.3 * u, 0.8 * u, -0.3 * u, -0.2 * u)
        cell_w = area.width() / cols
        cell_h = area.height() / rows
        radius = min(cell_w * 0.36, cell_h * 0.3)
        for i, (n, x) in enumerate(items):
            cx = area.x() + (i % cols + 0.5) * cell_w
            cy = area.y() + (i // cols) * cell_h + cell_h * 0.4
            hit = self.result == n
            self._ball(p, QPointF(cx, cy), radius, n, ring=theme.TEXT if hit else theme.LUCKY)
            p.setPen(theme.LUCKY)
            p.setFont(self._font(min(radius * 0.62, cell_w * 0.16)))
            p.drawText(
                QRectF(cx - cell_w / 2, cy + radius * 1.1, cell_w, radius * 0.9),
                Qt.AlignmentFlag.AlignCenter,
                f"{odds_number(x)} to 1",
            )

    def _paint_side(self, p: QPainter, r: QRectF, u: float) -> None:
        bonus_box = QRectF(r.x(), r.y(), r.width(), r.height() * 0.46)
        self._panel(p, bonus_box, u, "BONUS NUMBER")
        if self.bonus is not None:
            body = bonus_box.adjusted(0.4 * u, 0.75 * u, -0.3 * u, -0.2 * u)
            radius = min(body.height() * 0.48, body.width() * 0.2)
            c = QPointF(body.x() + radius + 0.1 * u, body.center().y())
            self._ball(p, c, radius, self.bonus, ring=theme.BONUS)
            side = QRectF(
                c.x() + radius + 0.35 * u, body.y(), body.right() - c.x() - radius - 0.35 * u, body.height()
            )
            icon = min(0.8 * u, side.height() * 0.4)
            theme.icon("diamond").paint(p, QRectF(side.x(), side.y(), icon, icon).toRect())
            text_box = side.adjusted(0, icon + 0.1 * u, 0, 0)
            # Two short lines, sized to the room left beside the ball so they never spill out.
            p.setPen(theme.BONUS)
            p.setFont(self._font(min(0.3 * u, text_box.width() / 9.0, text_box.height() / 2.8)))
            p.drawText(
                text_box,
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                "inside wins play\nthe bonus game",
            )
        stats = QRectF(r.x(), bonus_box.bottom() + 0.25 * u, r.width(), r.height() * 0.54 - 0.25 * u)
        self._panel(p, stats, u)
        hot, cold = hot_and_cold(self.history)
        split = colour_split(self.history)
        row_h = stats.height() / 3
        label_w = 1.5 * u
        for i, (label, numbers, col) in enumerate((("HOT", hot, theme.DANGER), ("COLD", cold, theme.BONUS))):
            y = stats.y() + i * row_h
            p.setPen(col)
            p.setFont(self._font(0.32 * u))
            p.drawText(QRectF(stats.x() + 0.3 * u, y, label_w, row_h), Qt.AlignmentFlag.AlignVCenter, label)
            radius = min(row_h * 0.3, (stats.width() - label_w - 0.5 * u) / (2.4 * HOT_COLD_COUNT))
            for j, n in enumerate(numbers):
                cx = stats.x() + 0.3 * u + label_w + radius + j * radius * 2.4
                self._ball(p, QPointF(cx, y + row_h / 2), radius, n)
        self._paint_split(
            p,
            QRectF(
                stats.x() + 0.3 * u,
                stats.y() + 2 * row_h,
                stats.width() - 0.6 * u,
                row_h * 0.45,
            ),
            split,
            u,
        )

    @staticmethod
    def _shrink_to(p: QPainter, text: str, width: float) -> None:
        """Make the painter's font small enough for `text` to fit `width` (never clipped)."""
        f = p.font()
        while f.pixelSize() > 8 and p.fontMetrics().horizontalAdvance(text) > width:
            f.setPixelSize(f.pixelSize() - 1)
            p.setFont(f)

    def _paint_split(self, p: QPainter, r: QRectF, split: dict[str, int], u: float) -> None:
        total = sum(split.values())
        p.setFont(self._font(0.28 * u))
        if not total:
            p.setPen(theme.TEXT_DIM)
            self._shrink_to(p, "no results yet", r.width())
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, "no results yet")
            return
        x = r.x()
        for key, col in (
            ("red", theme.NUMBER_RED),
            ("black", QColor("#3a3f46")),
            ("green", theme.NUMBER_GREEN),
        ):
            share = split[key] / total
            part = QRectF(x, r.y(), r.width() * share, r.height())
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(col)
            p.drawRect(part)
            if share >= 0.08:
                p.setPen(theme.TEXT)
                p.drawText(part, Qt.AlignmentFlag.AlignCenter, f"{round(share * 100)}%")
            x += part.width()
        # Counts under the bar, zero included even when its share is too thin to label.
        p.setPen(theme.TEXT_DIM)
        p.setFont(self._font(min(0.28 * u, r.height() * 0.62)))  # bold: read from three metres
        caption = QRectF(r.x(), r.bottom() + r.height() * 0.1, r.width(), r.height() * 0.8)
        text = f"red {split['red']} · black {split['black']} · zero {split['green']}   (last {total})"
        self._shrink_to(p, text, caption.width())
        p.drawText(caption, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)

    def _paint_history(self, p: QPainter, r: QRectF, u: float) -> None:
        self._panel(p, r, u, f"LAST {LAST_SHOWN} RESULTS", size=0.3, top=0.12)
        last = list(reversed(self.history[-LAST_SHOWN:]))
        if not last:
            return
        step = (r.width() - 0.8 * u) / LAST_SHOWN
        radius = min(step * 0.42, r.height() * 0.3)
        for i, e in enumerate(last):
            c = QPointF(r.x() + 0.4 * u + step * (i + 0.5), r.y() + r.height() * 0.6)
            ring = theme.LUCKY if e.lucky else theme.BONUS if e.bonus else None
            self._ball(p, c, radius * (1.15 if i == 0 else 1.0), e.number, ring=ring)


class PlayerDisplay(FirstPaintWindow):
    def __init__(self, table: TableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        keep_keys_away(self)
        self.setWindowTitle("Diamond Rush Roulette · Player display")
        self.marquee = Marquee()
        self.phase_strip = PhaseStrip(table, large=True)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.phase_strip)
        layout.addWidget(self.marquee, 1)
        self.setCentralWidget(central)
        table.phaseChanged.connect(self.on_phase)
        table.drawMade.connect(self.marquee.set_draw)
        table.payoutsChanged.connect(self.on_payouts)
        table.historyChanged.connect(self.marquee.set_history)
        snap = table.snapshot()
        self.marquee.set_history(snap.history)
        self.marquee.set_phase(snap.phase)
        self.marquee.set_draw(snap.draw)
        if snap.pay_lines:
            self.marquee.set_result(snap.result)

    def on_phase(self, phase: Phase) -> None:
        self.marquee.set_phase(phase)
        if phase in (Phase.RESULT, Phase.BONUS, Phase.SETTLED):
            # A round without wagers has no payouts to announce it: the phase brings the number.
            self.marquee.set_result(self.table.snapshot().result)

    def on_payouts(self, lines: tuple[PayLine, ...], approvals: object) -> None:
        # The confirmed result is the one the payouts were worked out for.
        self.marquee.set_result(self.table.snapshot().result)
