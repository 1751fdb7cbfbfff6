"""The felt: the single-zero layout drawn to scale, chips on it, Lucky/Bonus/result marks.

A pure view: it is told the wagers, the draw and the result, and it reports touches as the
legal bet they mean (`betClicked`, `betRemoveRequested`). It never changes wagers itself;
the table service decides and the felt redraws from what it is told.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from decimal import Decimal
from fractions import Fraction

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QHelpEvent,
    QLinearGradient,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from engine.bets import INSIDE_LINES, INSIDE_SIZES, Bet, Wager
from engine.rules import RulesSubmission
from engine.settlement import BONUS
from engine.table.view import PayLine, money, odds_number, odds_text
from engine.wheel_layout import RED
from gui import theme
from gui.theme import PlayerStyle
from gui.widgets import felt_geometry as geo
from gui.widgets.chips import chip_label, paint_chip

LONG_PRESS_MS = 600
# The Lucky payout card's columns: one per inside paytable line (engine.bets' table of bet kinds).
LUCKY_SIZES = INSIDE_SIZES  # straight, split, street, corner, six line: numbers each covers
LUCKY_HEADINGS = ("Lucky", *(line.name for line in INSIDE_LINES))
CHIP_RADIUS = geo.CHIP_RADIUS  # layout units (the touch targets of lines are sized by it)


class FeltWidget(QWidget):
    """The layout. Signals carry `engine.bets.Bet` values."""

    betClicked = Signal(object)
    betRemoveRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setAttribute(Qt.WidgetAttribute.WA_AcceptTouchEvents, False)  # touches arrive as mouse events
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(480, 220)
        self._rules: RulesSubmission | None = None
        self._geo_rules = geo.Rules()
        self._wagers: tuple[Wager, ...] = ()
        self._styles: dict[str, PlayerStyle] = {}
        self._lucky: dict[int, Fraction] = {}
        self._bonus: int | None = None
        self._result: int | None = None
        self._pay: dict[str, PayLine] = {}
        self._lucky_detail = False
        self.badge_boxes: list[QRectF] = []  # where the last paint put the payout badges
        self.word_boxes: list[QRectF] = []  # … and the outside boxes' words it kept clear
        self._hover: Bet | None = None
        self._pressed: Bet | None = None
        self._long_press = QTimer(self)
        self._long_press.setSingleShot(True)
        self._long_press.setInterval(LONG_PRESS_MS)
        self._long_press.timeout.connect(self._on_long_press)
        # Layout-to-widget transform, recomputed on resize.
        self._scale = 1.0
        self._ox = 0.0
        self._oy = 0.0

    # --- inputs (the view model) -----------------------------------------------------------

    def set_rules(self, rules: RulesSubmission | None) -> None:
        self._rules = rules
        self._geo_rules = geo.Rules(rules.trios, rules.first_four) if rules else geo.Rules()
        self.update()

    def set_wagers(self, wagers: Iterable[Wager], styles: Mapping[str, PlayerStyle]) -> None:
        self._wagers = tuple(wagers)
        self._styles = dict(styles)
        self.update()

    def set_draw(self, lucky: Mapping[int, Fraction], bonus_number: int | None) -> None:
        self._lucky = dict(lucky)
        self._bonus = bonus_number
        self.update()

    def set_result(self, number: int | None, settlements: Iterable[PayLine] = ()) -> None:
        self._result = number
        self._pay = {line.wager.id: line for line in settlements}
        self.update()

    def set_lucky_detail(self, shown: bool) -> None:
        """Show (or hide) the split, street, corner and six-line payouts of each Lucky Number on the
        felt itself, over the outside boxes (no bets are taken while Lucky Numbers are lit)."""
        self._lucky_detail = shown
        self.update()

    @property
    def lucky_detail(self) -> bool:
        return self._lucky_detail

    def lucky_detail_rows(self) -> list[tuple[str, ...]]:
        """The rows of the on-felt Lucky payout card: number, then straight to six line."""
        return [
            (str(n), *(odds_text(odds, size) for size in LUCKY_SIZES))
            for n, odds in sorted(self._lucky.items())
        ]

    @property
    def lucky(self) -> Mapping[int, Fraction]:
        return dict(self._lucky)

    @property
    def bonus_number(self) -> int | None:
        return self._bonus

    @property
    def result(self) -> int | None:
        return self._result

    # --- geometry ---------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        return QSize(1100, 470)

    def _fit(self) -> None:
        full_w = geo.WIDTH + 2 * geo.MARGIN + 0.2
        full_h = geo.HEIGHT + 2 * geo.MARGIN
        self._scale = min(self.width() / full_w, self.height() / full_h)
        self._ox = (self.width() - geo.WIDTH * self._scale) / 2 + 0.1 * self._scale
        self._oy = (self.height() - geo.HEIGHT * self._scale) / 2

    def to_widget(self, x: float, y: float) -> QPointF:
        self._fit()
        return QPointF(self._ox + x * self._scale, self._oy + y * self._scale)

    def to_layout(self, point: QPointF) -> tuple[float, float]:
        self._fit()
        return (point.x() - self._ox) / self._scale, (point.y() - self._oy) / self._scale

    def bet_at(self, point: QPointF) -> Bet | None:
        """The legal bet a touch at widget point `point` means (None off the felt)."""
        return geo.bet_at(*self.to_layout(point), self._geo_rules)

    def spot_of(self, bet: Bet) -> QPointF:
        """Widget point where a chip on `bet` sits; touching it places that bet."""
        return self.to_widget(*geo.spot(bet))

    def _rect(self, r: geo.Rect) -> QRectF:
        p = self.to_widget(r.x, r.y)
        return QRectF(p.x(), p.y(), r.w * self._scale, r.h * self._scale)

    # --- input ------------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        bet = self.bet_at(event.position())
        if event.button() == Qt.MouseButton.RightButton:
            if bet is not None:
                self.betRemoveRequested.emit(bet)
            return
        if event.button() == Qt.MouseButton.LeftButton:
            self._pressed = bet
            self._long_press.start()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        if self._long_press.isActive():
            self._long_press.stop()
            if self._pressed is not None:
                self.betClicked.emit(self._pressed)
        self._pressed = None

    def _on_long_press(self) -> None:
        if self._pressed is not None:
            self.betRemoveRequested.emit(self._pressed)
        self._pressed = None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        bet = self.bet_at(event.position())
        if bet != self._hover:
            self._hover = bet
            self.update()

    def leaveEvent(self, event: QEvent) -> None:
        self._hover = None
        self.update()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            bet = self.bet_at(QPointF(event.pos()))
            if bet is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(event.globalPos(), self.describe(bet), self)
            return True
        return super().event(event)

    def describe(self, bet: Bet) -> str:
        """What a bet is and pays right now: base odds, Lucky odds on each Lucky Number it covers."""
        lines = [bet.label.capitalize()]
        if self._rules is not None:
            lines.append(f"pays {odds_text(self._rules.base_payout(bet))}")
        if bet.inside:
            for n in sorted(bet.numbers):
                if n in self._lucky:
                    lines.append(f"on Lucky {n}: {odds_text(self._lucky[n], bet.size)}")
            if self._bonus is not None and self._bonus in bet.numbers:
                lines.append(f"on Bonus {self._bonus}: bonus game")
        for w in self._wagers:
            if w.bet == bet:
                lines.append(f"{w.player}: {money(w.amount)}")
        return "\n".join(lines)

    # --- painting ---------------------------------------------------------------------------

    def resizeEvent(self, event: object) -> None:
        self._fit()

    def paintEvent(self, event: QPaintEvent) -> None:
        self._fit()
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.fillRect(self.rect(), theme.BACKGROUND)
        self._paint_cloth(p)
        self._paint_numbers(p)
        self._paint_outside(p)
        self._paint_marks(p)
        self._paint_hover(p)
        self._paint_chips(p)
        self._paint_lucky_badges(p)
        if self._lucky_detail and self._lucky:
            self._paint_lucky_card(p)
        p.end()

    def _font(self, size_units: float, bold: bool = True) -> QFont:
        f = QFont(self.font())
        f.setPixelSize(max(7, int(size_units * self._scale)))
        f.setBold(bold)
        return f

    def _paint_cloth(self, p: QPainter) -> None:
        m = geo.MARGIN
        cloth = self._rect(geo.Rect(-m, -m, geo.WIDTH + 2 * m, geo.HEIGHT + 2 * m))
        grad = QLinearGradient(cloth.topLeft(), cloth.bottomLeft())
        grad.setColorAt(0.0, theme.FELT)
        grad.setColorAt(1.0, theme.FELT_DARK)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(grad))
        p.drawRoundedRect(cloth, 0.25 * self._scale, 0.25 * self._scale)

    def _line_pen(self) -> QPen:
        return QPen(theme.FELT_LINE, max(1.0, 0.035 * self._scale))

    def _zero_path(self) -> QPainterPath:
        pts = [(1.0, 0.0), (0.42, 0.0), (0.0, geo.ROWS_H / 2), (0.42, geo.ROWS_H), (1.0, geo.ROWS_H)]
        path = QPainterPath()
        path.addPolygon(QPolygonF([self.to_widget(x, y) for x, y in pts]))
        path.closeSubpath()
        return path

    def _paint_numbers(self, p: QPainter) -> None:
        pen = self._line_pen()
        inset = 0.06 * self._scale
        zero = self._zero_path()
        p.setPen(pen)
        p.setBrush(theme.NUMBER_GREEN)
        p.drawPath(zero)
        self._paint_number_text(p, 0, self._rect(geo.number_rect(0)))
        for n in range(1, 37):
            r = self._rect(geo.number_rect(n))
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(r)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(theme.NUMBER_RED if n in RED else theme.NUMBER_BLACK)
            p.drawRoundedRect(r.adjusted(inset, inset, -inset, -inset), inset, inset)
            self._paint_number_text(p, n, r)

    def _paint_number_text(self, p: QPainter, n: int, r: QRectF) -> None:
        p.setFont(self._font(0.46))
        p.setPen(theme.TEXT)
        # Numbers sit in the upper part of the box so a Lucky payout fits underneath.
        text_box = QRectF(r.x(), r.y() + r.height() * 0.08, r.width(), r.height() * 0.56)
        if n == 0:
            text_box = QRectF(r.x() + r.width() * 0.2, r.y(), r.width() * 0.8, r.height())
        p.drawText(text_box, Qt.AlignmentFlag.AlignCenter, str(n))

    def _paint_outside(self, p: QPainter) -> None:
        pen = self._line_pen()
        boxes: list[tuple[geo.Rect, str]] = [(geo.column_rect(c), "2 to 1") for c in (1, 2, 3)]
        boxes += [(geo.dozen_rect(d), label) for d, label in ((1, "1st 12"), (2, "2nd 12"), (3, "3rd 12"))]
        boxes += [(geo.even_money_rect(i), label) for i, (_, label) in enumerate(geo.EVEN_MONEY_ORDER)]
        for box, label in boxes:
            r = self._rect(box)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(r)
            if label in ("RED", "BLACK"):
                self._paint_colour_diamond(p, r, theme.NUMBER_RED if label == "RED" else theme.NUMBER_BLACK)
                continue
            p.setPen(theme.FELT_LINE)
            p.setFont(self._font(0.3 if label == "2 to 1" else 0.36))
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, label)

    def _paint_colour_diamond(self, p: QPainter, r: QRectF, colour: QColor) -> None:
        c = r.center()
        w, h = r.width() * 0.28, r.height() * 0.32
        poly = QPolygonF(
            [
                QPointF(c.x(), c.y() - h),
                QPointF(c.x() + w, c.y()),
                QPointF(c.x(), c.y() + h),
                QPointF(c.x() - w, c.y()),
            ]
        )
        p.setPen(QPen(theme.FELT_LINE, max(1.0, 0.03 * self._scale)))
        p.setBrush(colour)
        p.drawPolygon(poly)

    def _paint_marks(self, p: QPainter) -> None:
        """Lucky Numbers lit (their payouts go over the chips), the Bonus Number, the winning number."""
        for n in self._lucky:
            r = self._rect(geo.number_rect(n))
            s = self._scale
            glow = QColor(theme.LUCKY)
            glow.setAlpha(70)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(glow, 0.16 * s))
            p.drawRoundedRect(r.adjusted(-0.02 * s, -0.02 * s, 0.02 * s, 0.02 * s), 0.06 * s, 0.06 * s)
            p.setPen(QPen(theme.LUCKY, 0.07 * s))
            p.drawRoundedRect(r.adjusted(0.035 * s, 0.035 * s, -0.035 * s, -0.035 * s), 0.06 * s, 0.06 * s)
        if self._bonus is not None:
            r = self._rect(geo.number_rect(self._bonus))
            pen = QPen(theme.BONUS, 0.07 * self._scale)
            pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(
                r.adjusted(0.12 * self._scale, 0.12 * self._scale, -0.12 * self._scale, -0.12 * self._scale)
            )
            size = 0.3 * self._scale
            corner = QRectF(r.right() - size - 0.08 * self._scale, r.top() + 0.08 * self._scale, size, size)
            theme.icon("diamond").paint(p, corner.toRect())
            if self._bonus not in self._lucky:
                badge = QRectF(
                    r.x() + 0.08 * self._scale,
                    r.bottom() - 0.36 * self._scale,
                    r.width() - 0.16 * self._scale,
                    0.28 * self._scale,
                )
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(theme.BONUS)
                p.drawRoundedRect(badge, 0.06 * self._scale, 0.06 * self._scale)
                p.setPen(QColor("#04202b"))
                p.setFont(self._font(0.19))
                p.drawText(badge, Qt.AlignmentFlag.AlignCenter, "BONUS")
        if self._result is not None:
            self._dim_losers(p)

    def _paint_lucky_badges(self, p: QPainter) -> None:
        """Each Lucky Number's "… to 1" over the chips: a chip on a corner or split must never hide
        which payout a number has (the payout badges of winners keep clear of these)."""
        for n, odds in self._lucky.items():
            p.setOpacity(0.5 if self._result is not None and n != self._result else 1.0)
            self._paint_payout_badge(p, self._rect(geo.number_rect(n)), odds)
        p.setOpacity(1.0)

    def _lucky_badge_rect(self, n: int) -> QRectF:
        r, s = self._rect(geo.number_rect(n)), self._scale
        return QRectF(r.x() + 0.06 * s, r.bottom() - 0.38 * s, r.width() - 0.12 * s, 0.3 * s)

    def _paint_payout_badge(self, p: QPainter, r: QRectF, odds: Fraction) -> None:
        s = self._scale
        badge = QRectF(r.x() + 0.06 * s, r.bottom() - 0.38 * s, r.width() - 0.12 * s, 0.3 * s)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(theme.LUCKY)
        p.drawRoundedRect(badge, 0.06 * s, 0.06 * s)
        p.setPen(theme.LUCKY_TEXT)
        text = f"{odds_number(odds)} to 1"
        p.setFont(self._font(0.2 if len(text) <= 8 else 0.16))
        p.drawText(badge, Qt.AlignmentFlag.AlignCenter, text)

    def _dim_losers(self, p: QPainter) -> None:
        """Dim every number the ball did not hit, so the winning spots stand out."""
        assert self._result is not None
        hit = self._result
        dim = QColor(0, 0, 0, 120)
        for n in range(37):
            if n != hit:
                if n == 0:
                    p.fillPath(self._zero_path(), dim)
                else:
                    p.fillRect(self._rect(geo.number_rect(n)), dim)

    def _paint_winning_frame(self, p: QPainter) -> None:
        """The winning number framed in white on top of everything (the dolly)."""
        assert self._result is not None
        s = self._scale
        p.setBrush(Qt.BrushStyle.NoBrush)
        halo = QColor(255, 255, 255, 90)
        if self._result == 0:
            p.setPen(QPen(halo, 0.2 * s))
            p.drawPath(self._zero_path())
            p.setPen(QPen(QColor("#ffffff"), 0.08 * s))
            p.drawPath(self._zero_path())
            return
        r = self._rect(geo.number_rect(self._result))
        p.setPen(QPen(halo, 0.2 * s))
        p.drawRoundedRect(r, 0.08 * s, 0.08 * s)
        p.setPen(QPen(QColor("#ffffff"), 0.08 * s))
        p.drawRoundedRect(r, 0.08 * s, 0.08 * s)

    def _paint_hover(self, p: QPainter) -> None:
        bet = self._hover
        if bet is None:
            return
        shade = QColor(255, 255, 255, 45)
        if bet.inside:
            for n in bet.numbers:
                if n == 0:
                    p.fillPath(self._zero_path(), shade)
                else:
                    p.fillRect(self._rect(geo.number_rect(n)), shade)
        else:
            p.fillRect(self._rect(geo.outside_rect(bet)), shade)
        centre = self.spot_of(bet)
        p.setPen(QPen(QColor(255, 255, 255, 200), max(1.0, 0.04 * self._scale), Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        rad = CHIP_RADIUS * self._scale
        p.drawEllipse(centre, rad, rad)

    def _paint_chips(self, p: QPainter) -> None:
        """Each player's total on each spot as one chip; several players on a spot fan out."""
        by_spot: dict[Bet, dict[str, list[Wager]]] = defaultdict(lambda: defaultdict(list))
        for w in self._wagers:
            by_spot[w.bet][w.player].append(w)
        rad = CHIP_RADIUS * self._scale
        badges: list[tuple[QPointF, str]] = []
        chips: list[QRectF] = []
        for bet, players in by_spot.items():
            base = self.spot_of(bet)
            n = len(players)  # several players on one spot: spread side by side around it
            for i, (player, wagers) in enumerate(players.items()):
                centre = QPointF(base.x() + (i - (n - 1) / 2) * rad * 1.1, base.y() - i * rad * 0.3)
                chips.append(QRectF(centre.x() - rad, centre.y() - rad, 2 * rad, 2 * rad))
                style = self._styles.get(player) or theme.player_style(len(self._styles) + i)
                amount = sum((w.amount for w in wagers), Decimal(0))
                lines = [self._pay[w.id] for w in wagers if w.id in self._pay]
                ring = None
                if self._result is not None and lines:
                    winning = [ln for ln in lines if ln.wins]
                    if winning:
                        ring = theme.BONUS if any(ln.kind == BONUS for ln in winning) else theme.WIN
                        paid = sum((ln.payout for ln in winning), Decimal(0))
                        pending = any(ln.pending for ln in winning)
                        badges.append((centre, "bonus game" if pending else f"+{_short_money(paid)}"))
                    else:
                        p.setOpacity(0.35)
                paint_chip(p, centre, rad, style, chip_label(amount), ring=ring)
                p.setOpacity(1.0)
        if self._result is not None:
            self._paint_winning_frame(p)
        self.badge_boxes = []
        self.word_boxes = self._outside_label_boxes(p)
        obstacles = chips + self.word_boxes + [self._lucky_badge_rect(n) for n in self._lucky]
        for centre, text in badges:
            self._paint_win_badge(p, centre, text, obstacles)

    def _outside_label_boxes(self, p: QPainter) -> list[QRectF]:
        """Where the outside boxes' words are written: a payout badge must not cover them."""
        boxes = [geo.dozen_rect(d) for d in (1, 2, 3)] + [geo.even_money_rect(i) for i in range(6)]
        boxes += [geo.column_rect(c) for c in (1, 2, 3)]
        out = []
        p.setFont(self._font(0.36))
        for box in boxes:
            r = self._rect(box)
            w = min(r.width(), p.fontMetrics().horizontalAdvance("2nd 12") + 0.1 * self._scale)
            h = 0.45 * self._scale
            out.append(QRectF(r.center().x() - w / 2, r.center().y() - h / 2, w, h))
        return out

    def _paint_win_badge(self, p: QPainter, centre: QPointF, text: str, obstacles: list[QRectF]) -> None:
        s = self._scale
        f = self._font(0.22)
        p.setFont(f)
        width = p.fontMetrics().horizontalAdvance(text) + 0.2 * s
        height = 0.3 * s
        gap = CHIP_RADIUS * s * 1.05
        cloth = self._rect(
            geo.Rect(-geo.MARGIN, -geo.MARGIN, geo.WIDTH + 2 * geo.MARGIN, geo.HEIGHT + geo.MARGIN)
        )
        # Beside its chip (below, above, right, left, then the corners, then further out): the
        # first place where it hides no other payout, no chip and no box's words.
        x0, y0 = centre.x() - width / 2, centre.y() - height / 2
        candidates = []
        for step in (1.0, 1.9, 2.8):
            d = gap * step
            candidates += [
                (x0, centre.y() + d),
                (x0, centre.y() - d - height),
                (centre.x() + d, y0),
                (centre.x() - d - width, y0),
                (centre.x() + d * 0.7, centre.y() + d * 0.7),
                (centre.x() - d * 0.7 - width, centre.y() - d * 0.7 - height),
                (centre.x() + d * 0.7, centre.y() - d * 0.7 - height),
                (centre.x() - d * 0.7 - width, centre.y() + d * 0.7),
            ]
        boxes = [QRectF(x, y, width, height) for x, y in candidates]
        inside = [b for b in boxes if cloth.contains(b)] or boxes
        box = next(
            (b for b in inside if not any(b.intersects(o) for o in obstacles + self.badge_boxes)),
            None,
        )
        if box is None:  # a crowded felt: at least never on another payout
            box = next((b for b in inside if not any(b.intersects(o) for o in self.badge_boxes)), inside[0])
        self.badge_boxes.append(box)
        p.setPen(QPen(QColor("#0a2a17"), max(1.0, 0.02 * s)))
        p.setBrush(theme.BONUS if text == "bonus game" else theme.WIN)
        p.drawRoundedRect(box, 0.08 * s, 0.08 * s)
        p.setPen(QColor("#04140b"))
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_lucky_card(self, p: QPainter) -> None:
        """Every Lucky Number's payout for each inside bet size, written over the outside boxes."""
        s = self._scale
        # Below the chips on the bottom row's street and six-line edges, over the outside boxes.
        top = geo.ROWS_H + CHIP_RADIUS
        area = self._rect(geo.Rect(1.0, top, 12.0, geo.HEIGHT - top))
        rows = [LUCKY_HEADINGS, *self.lucky_detail_rows()]
        if self._bonus is not None:
            rows.append((f"Bonus {self._bonus}", "inside wins on it play the bonus game", "", "", "", ""))
        row_h = min(area.height() / len(rows), 0.42 * s)
        card = QRectF(area.x(), area.y(), area.width(), row_h * len(rows) + 0.1 * s)
        card.moveCenter(area.center())
        p.setPen(QPen(theme.LUCKY, max(1.0, 0.04 * s)))
        p.setBrush(QColor(10, 14, 18))  # opaque: the boxes' words must not show through
        p.drawRoundedRect(card, 0.1 * s, 0.1 * s)
        col_w = card.width() / len(LUCKY_HEADINGS)
        top = card.y() + 0.05 * s
        for r, row in enumerate(rows):
            heading = r == 0
            bonus_row = self._bonus is not None and r == len(rows) - 1
            p.setFont(self._font(min(0.27, row_h / s * 0.62), bold=not heading))
            y = top + r * row_h
            if bonus_row:
                p.setPen(theme.BONUS)
                p.drawText(
                    QRectF(card.x(), y, card.width(), row_h),
                    Qt.AlignmentFlag.AlignCenter,
                    f"Bonus Number {self._bonus}: inside wins on it play the bonus game",
                )
                continue
            for c, text in enumerate(row):
                p.setPen(theme.TEXT_DIM if heading else (theme.LUCKY if c == 0 else theme.TEXT))
                p.drawText(QRectF(card.x() + c * col_w, y, col_w, row_h), Qt.AlignmentFlag.AlignCenter, text)


def _short_money(amount: Decimal) -> str:
    """A payout on the felt: cents only when there are some (the paying list shows them all)."""
    return money(amount).removesuffix(".00")
