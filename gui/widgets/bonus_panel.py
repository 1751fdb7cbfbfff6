"""One player's bonus game on screen: rounds, five boxes, countdown ring, total and cash-out.

The panel shows a `BonusView` (what the journal says) and turns touches into requests
(`pickRequested`, `cashOutRequested`, `presetChanged`, `startRequested`); it never decides
an outcome. One clock: the countdown shows the game's deadline minus the table service's clock
(`clock`, the table model's), and the service's own timer applies the timeout when it is due; the
panel never runs an expiry of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Property, QEasingCurve, QPropertyAnimation, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from engine.table.view import BonusStatus, BonusView, BoxState, BoxView, money, odds_number
from gui import theme

REVEAL_MS = 450
ROUNDS = 6


class CountdownRing(QWidget):
    """Seconds left as a ring that empties; turns amber then red as time runs out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._left: float | None = None
        self._total = 20.0
        self.setMinimumSize(72, 72)

    def set_time(self, seconds_left: float | None, total: float) -> None:
        self._left = seconds_left
        self._total = max(1.0, total)
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(84, 84)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        side = min(self.width(), self.height()) - 8
        r = QRectF((self.width() - side) / 2, (self.height() - side) / 2, side, side)
        width = max(4.0, side * 0.1)
        p.setPen(QPen(theme.PANEL_EDGE, width))
        p.drawEllipse(r)
        left = self._left
        if left is not None:
            share = max(0.0, min(1.0, left / self._total))
            colour = theme.WIN if share > 0.5 else theme.WARN if share > 0.2 else theme.DANGER
            pen = QPen(colour, width)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            p.setPen(pen)
            p.drawArc(r, 90 * 16, int(-share * 360 * 16))
            f = QFont(self.font())
            f.setPixelSize(int(side * 0.36))
            f.setBold(True)
            p.setFont(f)
            p.setPen(theme.TEXT)
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, f"{max(0, int(left + 0.999))}")
        p.end()


class BoxButton(QWidget):
    """A box (numbered 1..5 as in the engine): hidden (a diamond), or revealed (multiplier or X)
    with a short flip animation."""

    clicked = Signal()

    def __init__(self, index: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.index = index
        self._box = BoxView()
        self._enabled = False
        self._flip = 1.0
        self._anim = QPropertyAnimation(self, b"flip", self)
        self._anim.setDuration(REVEAL_MS)
        self._anim.setEasingCurve(QEasingCurve.Type.OutCubic)
        self.setMinimumSize(56, 80)
        self.setMaximumHeight(260)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def _get_flip(self) -> float:
        return self._flip

    def _set_flip(self, value: float) -> None:
        self._flip = value
        self.update()

    flip = Property(float, _get_flip, _set_flip)

    @property
    def box(self) -> BoxView:
        return self._box

    @property
    def pickable(self) -> bool:
        """Whether a touch picks this box now (a hidden box while the game is played)."""
        return self._enabled

    def set_box(self, box: BoxView, pickable: bool, animate: bool = True) -> None:
        newly_revealed = animate and self._box.state is BoxState.HIDDEN and box.state is not BoxState.HIDDEN
        self._box = box
        self._enabled = pickable and box.state is BoxState.HIDDEN
        self.setCursor(Qt.CursorShape.PointingHandCursor if self._enabled else Qt.CursorShape.ArrowCursor)
        if newly_revealed:
            self._anim.stop()
            self._anim.setStartValue(0.0)
            self._anim.setEndValue(1.0)
            self._anim.start()
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if (
            self._enabled
            and event.button() == Qt.MouseButton.LeftButton
            and self.rect().contains(event.position().toPoint())
        ):
            self.clicked.emit()

    def sizeHint(self) -> QSize:
        return QSize(96, 112)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        box = self._box
        r = QRectF(self.rect()).adjusted(4, 4, -4, -4)
        # The flip: the face narrows to a line and opens again on the revealed side.
        squeeze = abs(1.0 - 2.0 * self._flip) if box.state is not BoxState.HIDDEN else 1.0
        show_revealed = box.state is not BoxState.HIDDEN and self._flip >= 0.5
        w = r.width() * max(0.04, squeeze)
        face = QRectF(r.center().x() - w / 2, r.y(), w, r.height())
        radius = min(r.width(), r.height()) * 0.14
        if not show_revealed:
            fill = QColor("#1d3148") if self._enabled else QColor("#18222e")
            edge = theme.BONUS if self._enabled else theme.PANEL_EDGE
            p.setPen(QPen(edge, 2.5))
            p.setBrush(fill)
            p.drawRoundedRect(face, radius, radius)
            if squeeze > 0.4:
                size = min(face.width(), face.height()) * 0.42
                icon_rect = QRectF(face.center().x() - size / 2, face.center().y() - size / 2, size, size)
                p.setOpacity(1.0 if self._enabled else 0.45)
                theme.icon("diamond").paint(p, icon_rect.toRect())
                p.setOpacity(1.0)
            p.end()
            return
        is_x = box.state is BoxState.X
        fill = QColor("#3a1518") if is_x else QColor("#173a27")
        edge = theme.DANGER if is_x else theme.WIN
        if not box.picked:
            p.setOpacity(0.55)
        p.setPen(QPen(theme.LUCKY if box.picked else edge, 4.0 if box.picked else 2.0))
        p.setBrush(fill)
        p.drawRoundedRect(face, radius, radius)
        if squeeze > 0.3:
            f = QFont(self.font())
            f.setBold(True)
            text = "X" if is_x else odds_number(box.value or 0)  # type: ignore[arg-type]
            f.setPixelSize(int(min(face.height() * 0.4, face.width() * (0.5 if len(text) <= 3 else 0.34))))
            p.setFont(f)
            p.setPen(theme.DANGER if is_x else theme.TEXT)
            p.drawText(face, Qt.AlignmentFlag.AlignCenter, text)
            if box.picked and face.height() >= 70:  # small boxes: the gold frame says it
                f.setPixelSize(max(9, int(face.height() * 0.12)))
                p.setFont(f)
                p.setPen(theme.LUCKY)
                p.drawText(
                    face.adjusted(0, 0, 0, -6),
                    Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                    "PICKED",
                )
        p.end()


class RoundDots(QWidget):
    """Rounds 1-6 as dots: done, current, to come."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._round = 1
        self._finished = False
        self.setMinimumSize(6 * 26, 34)

    def set_round(self, current: int, finished: bool) -> None:
        self._round = current
        self._finished = finished
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        step = self.width() / ROUNDS
        d = min(step * 0.72, self.height() - 6.0)
        f = QFont(self.font())
        f.setPixelSize(int(d * 0.55))
        f.setBold(True)
        p.setFont(f)
        for i in range(ROUNDS):
            n = i + 1
            r = QRectF(i * step + (step - d) / 2, (self.height() - d) / 2, d, d)
            done = n < self._round or (self._finished and n == self._round)
            current = n == self._round and not self._finished
            p.setPen(QPen(theme.LUCKY if current else theme.PANEL_EDGE, 3 if current else 1.5))
            p.setBrush(theme.BONUS if done else QColor("#1a2633") if not current else QColor("#3b3110"))
            p.drawEllipse(r)
            p.setPen(QColor("#04202b") if done else theme.TEXT)
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, str(n))
        p.end()


class BonusPanel(QFrame):
    """The whole game of one player."""

    pickRequested = Signal(str, int)
    cashOutRequested = Signal(str)
    presetChanged = Signal(str, object)
    startRequested = Signal(str)

    def __init__(
        self, player: str, parent: QWidget | None = None, *, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(parent)
        self.setObjectName("panel")
        self.player = player
        self.clock = clock  # the table service's clock: the deadline in a BonusView is on it
        self._view: BonusView | None = None

        self.name = QLabel(player)
        self.name.setObjectName("title")
        self.round_label = QLabel("Round 1 of 6")
        self.round_label.setObjectName("dim")
        self.dots = RoundDots()
        self.ring = CountdownRing()

        self.boxes = [BoxButton(i) for i in range(1, 6)]
        for b in self.boxes:
            b.clicked.connect(lambda b=b: self.pickRequested.emit(self.player, b.index))

        self.previous_label = QLabel("")
        self.previous_label.setObjectName("dim")
        self.previous_boxes = [BoxButton(i) for i in range(1, 6)]
        for b in self.previous_boxes:
            b.setMinimumSize(36, 40)
            b.setMaximumHeight(52)

        self.total = QLabel("")
        self.total.setObjectName("bigValue")
        self.total.setWordWrap(True)  # "Choose below, then start" in big type took 381 px of a 400-px column
        self.guarantee = QLabel("")
        self.guarantee.setObjectName("dim")
        self.guarantee.setWordWrap(True)
        self.banner = QLabel("")
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setWordWrap(True)

        self.cash_out = QPushButton("Cash out")
        self.cash_out.setObjectName("primary")
        self.cash_out.clicked.connect(lambda: self.cashOutRequested.emit(self.player))

        self.preset_row = QWidget()
        # The question beside its two answers, or above them in a narrow panel (the column beside
        # the croupier window): side by side they needed 520 px and were cut at 400 (a real screen).
        self.preset_layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self.preset_row)
        self.preset_layout.setContentsMargins(0, 0, 0, 0)
        self.preset_layout.addWidget(QLabel("If time runs out from round 3:"))
        preset_layout = QHBoxLayout()
        self.preset_layout.addLayout(preset_layout)
        self.preset_cash = QPushButton("Cash out")
        self.preset_random = QPushButton("Pick a random box")
        self._preset_group = QButtonGroup(self)
        for button in (self.preset_cash, self.preset_random):
            button.setCheckable(True)
            self._preset_group.addButton(button)
            preset_layout.addWidget(button)
        self.preset_cash.setChecked(True)
        self.preset_cash.clicked.connect(lambda: self.presetChanged.emit(self.player, "cash_out"))
        self.preset_random.clicked.connect(lambda: self.presetChanged.emit(self.player, "random"))
        self.start = QPushButton("Start bonus game")
        self.start.setObjectName("primary")
        self.start.clicked.connect(lambda: self.startRequested.emit(self.player))

        head = QHBoxLayout()
        names = QVBoxLayout()
        names.addWidget(self.name)
        names.addWidget(self.round_label)
        head.addLayout(names, 1)
        head.addWidget(self.dots, 2)
        head.addWidget(self.ring)

        row = QHBoxLayout()
        row.setSpacing(10)
        for b in self.boxes:
            row.addWidget(b)
        prev = QHBoxLayout()
        prev.setSpacing(6)
        prev.addWidget(self.previous_label)
        for b in self.previous_boxes:
            prev.addWidget(b)

        # The totals beside the cash-out button, or above it in a narrow panel (a column beside the
        # croupier window): the button keeps its whole text either way.
        money_row = self.money_row = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        totals = QVBoxLayout()
        totals.addWidget(self.total)
        totals.addWidget(self.guarantee)
        money_row.addLayout(totals, 1)
        money_row.addWidget(self.cash_out)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(10)
        layout.addLayout(head)
        layout.addLayout(row, 10)
        layout.addLayout(prev)
        layout.addWidget(self.banner)
        layout.addLayout(money_row)
        layout.addWidget(self.preset_row)
        layout.addWidget(self.start)
        layout.addStretch(1)  # spare height goes below the game, not between its parts

        self._tick = QTimer(self)
        self._tick.setInterval(100)
        self._tick.timeout.connect(self._on_tick)

    @property
    def view(self) -> BonusView | None:
        return self._view

    def sizeHint(self) -> QSize:
        return QSize(620, 460)

    NARROW = 560  # pixels: below this the cash-out button goes under the totals

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        wanted = (
            QBoxLayout.Direction.TopToBottom
            if self.width() < self.NARROW
            else QBoxLayout.Direction.LeftToRight
        )
        if self.money_row.direction() != wanted:
            self.money_row.setDirection(wanted)
        if self.preset_layout.direction() != wanted:
            self.preset_layout.setDirection(wanted)

    def set_view(self, view: BonusView) -> None:
        """Redraw from the journal's view of the game."""
        self._view = view
        playing = view.status is BonusStatus.PLAYING
        self.round_label.setText(f"Round {view.round} of {ROUNDS}")
        self.dots.set_round(view.round, view.finished)
        for b, box in zip(self.boxes, view.boxes, strict=False):
            b.set_box(box, pickable=playing)
        has_previous = bool(view.previous)
        self.previous_label.setText(f"Round {view.round - 1}:" if has_previous else "")
        for b, box in zip(self.previous_boxes, view.previous or (BoxView(),) * 5, strict=False):
            b.set_box(box, pickable=False, animate=False)
            b.setVisible(has_previous)
        total = view.total
        if view.finished:
            self.total.setText("Picks: " + " + ".join(odds_number(x) for x in view.picks))
        else:
            self.total.setText(
                f"Total {odds_number(total)} to 1"
                if view.picks
                else "Choose below, then start"
                if view.status is BonusStatus.SETUP
                else "Pick a box"
            )
        g = view.guarantee
        self.guarantee.setText(
            f"Guaranteed {odds_number(g)} to 1 (paid on an X)"
            if g is not None
            else "Round 1: every box holds a multiplier"
        )
        self.cash_out.setVisible(not view.finished and view.status is not BonusStatus.SETUP)
        self.cash_out.setEnabled(view.may_cash_out)
        self.cash_out.setText(
            f"Cash out {odds_number(total)} to 1"
            if view.may_cash_out
            else f"Cash out from round {view.cash_out_from_round}"
        )
        setup = view.status is BonusStatus.SETUP
        self.preset_row.setVisible(setup)
        self.start.setVisible(setup)
        (self.preset_cash if view.preset == "cash_out" else self.preset_random).setChecked(True)
        self.banner.setText(self._banner_text(view))
        self.banner.setStyleSheet(self._banner_style(view))
        self.banner.setVisible(bool(self.banner.text()))
        self.ring.set_time(self.seconds_left(), view.timer_seconds)
        self.ring.setVisible(not setup)
        if playing and view.deadline is not None:
            self._tick.start()
        else:
            self._tick.stop()

    @staticmethod
    def _banner_text(view: BonusView) -> str:
        paid = f"  ·  pays {money(view.payout)}" if view.payout is not None else ""
        if view.paid_on:
            paid += f" ({view.paid_on})"
        final = odds_number(view.final_odds) if view.final_odds is not None else "?"
        if view.status is BonusStatus.LOST:
            return f"X in round {view.round}: paid the round-1 multiplier, {final} to 1{paid}"
        if view.status is BonusStatus.CASHED_OUT:
            return f"Cashed out in round {view.round}: {final} to 1{paid}"
        if view.status is BonusStatus.COMPLETED:
            return f"All six rounds won: {final} to 1{paid}"
        return ""

    @staticmethod
    def _banner_style(view: BonusView) -> str:
        colour = "#ff5a52" if view.status is BonusStatus.LOST else "#38d67a"
        return f"font-size: 17pt; font-weight: bold; color: {colour}; padding: 6px;"

    def seconds_left(self) -> float | None:
        """The game's deadline minus the service's clock now (None: no choice is due)."""
        view = self._view
        if view is None or view.deadline is None or view.status is not BonusStatus.PLAYING:
            return None
        return max(0.0, view.deadline - self.clock())

    def _on_tick(self) -> None:
        # Only repaints the ring; at zero the service's timer ends the wait and a new view comes.
        left = self.seconds_left()
        if self._view is None or left is None:
            self._tick.stop()
            return
        self.ring.set_time(left, self._view.timer_seconds)
