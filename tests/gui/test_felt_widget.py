"""The felt widget: clicks become bets, the draw lights numbers, the result is highlighted."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from engine.bets import Bet, BetKind, Wager, inside_bet, legal_bets, outside_bet
from engine.rules import load_default_rules
from engine.settlement import LOSE, LUCKY
from engine.table.view import PayLine
from gui import theme
from gui.widgets import felt_geometry as geo
from gui.widgets.felt import FeltWidget
from tests.gui.live import LiveTables


@pytest.fixture
def felt(qtbot: QtBot) -> FeltWidget:
    widget = FeltWidget()
    widget.set_rules(load_default_rules())
    widget.resize(1120, 480)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def pixel(image: QImage, point: QPointF) -> QColor:
    ratio = image.devicePixelRatio()
    return QColor(image.pixel(int(point.x() * ratio), int(point.y() * ratio)))


def near(a: QColor, b: QColor, tolerance: int = 40) -> bool:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) <= tolerance


def count_near(image: QImage, left: QPointF, right: QPointF, colour: QColor) -> int:
    """How many pixels on the row from `left` to `right` have (about) `colour`."""
    y = int(left.y())
    return sum(1 for x in range(int(left.x()), int(right.x())) if near(QColor(image.pixel(x, y)), colour))


def test_clicking_each_spot_emits_that_bet(felt: FeltWidget, qtbot: QtBot) -> None:
    got: list[Bet] = []
    felt.betClicked.connect(got.append)
    bets = legal_bets()
    for bet in bets:
        qtbot.mouseClick(felt, Qt.MouseButton.LeftButton, pos=felt.spot_of(bet).toPoint())
    assert got == list(bets)


def test_right_click_asks_to_remove(felt: FeltWidget, qtbot: QtBot) -> None:
    removed: list[Bet] = []
    felt.betRemoveRequested.connect(removed.append)
    corner = inside_bet([8, 9, 11, 12])
    qtbot.mouseClick(felt, Qt.MouseButton.RightButton, pos=felt.spot_of(corner).toPoint())
    assert removed == [corner]


def test_long_press_asks_to_remove_instead_of_placing(felt: FeltWidget, qtbot: QtBot) -> None:
    placed: list[Bet] = []
    removed: list[Bet] = []
    felt.betClicked.connect(placed.append)
    felt.betRemoveRequested.connect(removed.append)
    where = felt.spot_of(inside_bet([5])).toPoint()
    qtbot.mousePress(felt, Qt.MouseButton.LeftButton, pos=where)
    qtbot.waitUntil(lambda: bool(removed), timeout=2000)
    qtbot.mouseRelease(felt, Qt.MouseButton.LeftButton, pos=where)
    assert removed == [inside_bet([5])] and placed == []


def test_hit_testing_scales_with_the_widget(felt: FeltWidget, qtbot: QtBot) -> None:
    for size in ((700, 300), (1600, 700), (900, 900)):
        felt.resize(*size)
        for bet in (inside_bet([0, 1, 2]), inside_bet(range(31, 37)), outside_bet(BetKind.ODD)):
            assert felt.bet_at(felt.spot_of(bet)) == bet
    felt.resize(1000, 420)
    assert felt.bet_at(QPointF(2, 2)) is None  # the margin around the cloth


def test_draw_lights_lucky_numbers_and_marks_the_bonus(felt: FeltWidget) -> None:
    before = felt.grab().toImage()
    r = geo.number_rect(17)
    edge = felt.to_widget(r.x + 0.04, r.cy)
    assert not near(pixel(before, edge), theme.LUCKY)
    felt.set_draw({17: Fraction(199), 5: Fraction(49)}, 31)
    after = felt.grab().toImage()
    assert near(pixel(after, edge), theme.LUCKY)
    r31 = geo.number_rect(31)
    y = r31.y + r31.h - 0.22
    assert count_near(after, felt.to_widget(r31.x, y), felt.to_widget(r31.x + 1, y), theme.BONUS) > 10
    assert felt.lucky == {17: Fraction(199), 5: Fraction(49)} and felt.bonus_number == 31
    assert "on Lucky 17: 199 to 2" in felt.describe(inside_bet([17, 20]))


def test_chips_show_each_players_colour(felt: FeltWidget) -> None:
    styles = theme.player_styles(["ann", "bo"])
    wagers = [
        Wager("1", "ann", outside_bet(BetKind.RED), Decimal(5)),
        Wager("2", "bo", outside_bet(BetKind.DOZEN, 2), Decimal(25)),
    ]
    felt.set_wagers(wagers, styles)
    image = felt.grab().toImage()
    radius = 0.27 * felt.to_widget(1, 0).x() - 0.27 * felt.to_widget(0, 0).x()
    for w in wagers:
        c = felt.spot_of(w.bet)
        sample = QPointF(c.x() - radius * 0.55, c.y() + radius * 0.1)
        assert near(pixel(image, sample), styles[w.player].qcolor, 60), w.player


def test_result_highlights_the_number_and_marks_winning_wagers(felt: FeltWidget) -> None:
    straight = Wager("1", "ann", inside_bet([17]), Decimal(2))
    loser = Wager("2", "ann", inside_bet([3]), Decimal(2))
    felt.set_wagers([straight, loser], theme.player_styles(["ann"]))
    felt.set_draw({17: Fraction(199)}, 31)
    felt.set_result(
        17,
        [
            PayLine(straight, LUCKY, Fraction(199), Decimal("398.00")),
            PayLine(loser, LOSE, Fraction(0), Decimal(0)),
        ],
    )
    image = felt.grab().toImage()
    r = geo.number_rect(17)
    assert near(pixel(image, felt.to_widget(r.x + 0.01, r.cy)), QColor("#ffffff"), 60)
    # Every other number is dimmed: 20 (black) becomes darker than its own colour.
    r20 = geo.number_rect(20)
    dimmed = pixel(image, felt.to_widget(r20.x + 0.12, r20.y + 0.12))
    assert dimmed.lightness() < theme.NUMBER_BLACK.lightness() + 5
    # The payout badge of the winning chip is drawn in the win colour next to the chip, clear of
    # the number's own "199 to 1" (which sits below the chip on a Lucky Number).
    chip = felt.spot_of(straight.bet)
    scale = felt.to_widget(1, 0).x() - felt.to_widget(0, 0).x()
    (badge,) = felt.badge_boxes
    assert (badge.center() - chip).manhattanLength() < 2 * scale
    y = badge.top() + 3
    row = count_near(image, QPointF(badge.left(), y), QPointF(badge.right(), y), theme.WIN)
    assert row > 10
    assert felt.result == 17


def test_clicks_below_the_zero_do_nothing(felt: FeltWidget, qtbot: QtBot) -> None:
    got: list[Bet] = []
    felt.betClicked.connect(got.append)
    below_zero = felt.to_widget(0.3, geo.ROWS_H + 0.6)
    qtbot.mouseClick(felt, Qt.MouseButton.LeftButton, pos=QPoint(int(below_zero.x()), int(below_zero.y())))
    assert got == []


def test_win_badges_hide_no_other_badge_chip_or_box_word(qtbot: QtBot, tables: LiveTables) -> None:
    """The Lucky-win picture: three winning players on and around the 4 must each show a payout
    that covers no other payout and no outside box's words."""
    from gui import demo
    from gui.windows.croupier import CroupierWindow

    table = tables.demo(demo.croupier_after_lucky_win)
    window = CroupierWindow(table, table.players)
    qtbot.addWidget(window)
    window.resize(1600, 1000)
    window.felt.grab()  # paint once
    boxes = window.felt.badge_boxes
    winners = sum(1 for ln in table.snapshot().pay_lines if ln.wins)
    assert len(boxes) >= 2 and len(boxes) <= winners
    for i, a in enumerate(boxes):
        assert not any(a.intersects(b) for b in boxes[i + 1 :])
    words = window.felt.word_boxes
    assert len(words) == 12 and not any(b.intersects(w) for b in boxes for w in words)
