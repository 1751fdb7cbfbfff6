"""Hit-testing: every point of the felt maps to the legal bet a croupier means by touching it."""

from __future__ import annotations

import pytest

from engine.bets import BetKind, inside_bet, legal_bets, outside_bet
from gui.widgets import felt_geometry as geo
from gui.widgets.felt_geometry import CELL_H, ROWS_H, Rules, bet_at, number_rect, spot


@pytest.mark.parametrize(
    ("trios", "first_four"), [(True, True), (False, False), (True, False), (False, True)]
)
def test_the_chip_spot_of_every_legal_bet_hits_that_bet(trios: bool, first_four: bool) -> None:
    rules = Rules(trios, first_four)
    bets = legal_bets(trios, first_four)
    assert len(bets) == 157 - (0 if trios else 2) - (0 if first_four else 1)
    for bet in bets:
        assert bet_at(*spot(bet), rules) == bet, bet.label


def test_numbers_sit_where_the_layout_puts_them() -> None:
    # 3 top-left of the numbers, 1 bottom-left, 36 top-right, 34 bottom-right.
    assert (number_rect(3).x, number_rect(3).y) == (1.0, 0.0)
    assert (number_rect(1).x, number_rect(1).y) == (1.0, 2 * CELL_H)
    assert (number_rect(36).x, number_rect(36).y) == (12.0, 0.0)
    assert (number_rect(34).x, number_rect(34).y) == (12.0, 2 * CELL_H)


def centre(n: int) -> tuple[float, float]:
    r = number_rect(n)
    return r.cx, r.cy


def test_inside_points() -> None:
    x17, y17 = centre(17)
    r17 = number_rect(17)
    assert bet_at(x17, y17) == inside_bet([17])
    assert bet_at(x17 + 0.1, y17 - 0.1) == inside_bet([17])  # anywhere well inside the box
    assert bet_at(r17.x + 1.0, y17) == inside_bet([17, 20])  # line to the right
    assert bet_at(r17.x + 0.02, y17) == inside_bet([14, 17])  # line to the left
    assert bet_at(x17, r17.y) == inside_bet([17, 18])  # line above (18 is above 17)
    assert bet_at(x17, r17.y + CELL_H - 0.01) == inside_bet([16, 17])  # line below
    assert bet_at(r17.x + 1.0, r17.y) == inside_bet([17, 18, 20, 21])  # corner
    assert bet_at(x17, ROWS_H) == inside_bet([16, 17, 18])  # street edge under the column of three
    assert bet_at(x17, ROWS_H + 0.1) == inside_bet([16, 17, 18])  # a little onto the dozens still
    assert bet_at(r17.x + 1.0, ROWS_H) == inside_bet(range(16, 22))  # six line
    assert bet_at(r17.x, ROWS_H) == inside_bet(range(13, 19))


def test_zero_edge() -> None:
    assert bet_at(0.5, ROWS_H / 2) == inside_bet([0])
    assert bet_at(1.0, centre(3)[1]) == inside_bet([0, 3])
    assert bet_at(1.0, centre(2)[1]) == inside_bet([0, 2])
    assert bet_at(1.0, centre(1)[1]) == inside_bet([0, 1])
    assert bet_at(1.0, CELL_H) == inside_bet([0, 2, 3])
    assert bet_at(1.0, 2 * CELL_H) == inside_bet([0, 1, 2])
    assert bet_at(1.0, ROWS_H) == inside_bet([0, 1, 2, 3])


def test_zero_edge_honours_the_rules_switches() -> None:
    no_trios = Rules(trios=False, first_four=True)
    assert bet_at(1.0, CELL_H, no_trios) == inside_bet([2, 3])
    assert bet_at(1.0, 2 * CELL_H, no_trios) == inside_bet([1, 2])
    no_four = Rules(trios=True, first_four=False)
    assert bet_at(1.0, ROWS_H, no_four) == inside_bet([1, 2, 3])
    for rules in (no_trios, no_four):
        for bet in (bet_at(x / 10, y / 10, rules) for x in range(-2, 140) for y in range(-2, 68)):
            if bet is not None:
                assert bet in legal_bets(rules.trios, rules.first_four)


def test_outside_boxes() -> None:
    assert bet_at(13.5, CELL_H / 2) == outside_bet(BetKind.COLUMN, 3)
    assert bet_at(13.5, 1.5 * CELL_H) == outside_bet(BetKind.COLUMN, 2)
    assert bet_at(13.5, 2.5 * CELL_H) == outside_bet(BetKind.COLUMN, 1)
    dozen_y = ROWS_H + geo.DOZEN_H / 2
    assert [bet_at(x, dozen_y) for x in (3.0, 7.0, 11.0)] == [
        outside_bet(BetKind.DOZEN, w) for w in (1, 2, 3)
    ]
    even_y = ROWS_H + geo.DOZEN_H + geo.EVEN_H / 2
    got = [bet_at(2.0 + 2 * i, even_y) for i in range(6)]
    kinds = [BetKind.LOW, BetKind.EVEN, BetKind.RED, BetKind.BLACK, BetKind.ODD, BetKind.HIGH]
    assert got == [outside_bet(k) for k in kinds]


def test_off_the_felt_is_nothing() -> None:
    assert bet_at(-1.0, 1.0) is None
    assert bet_at(5.0, -1.0) is None
    assert bet_at(20.0, 1.0) is None
    assert bet_at(5.0, geo.HEIGHT + 0.5) is None
    assert bet_at(0.3, ROWS_H + 0.5) is None  # below the zero: no box there
    assert bet_at(13.5, ROWS_H + 0.5) is None  # below the columns


def test_every_point_of_the_grid_is_a_legal_bet_covering_the_nearest_number() -> None:
    for xi in range(100, 1300, 7):
        for yi in range(0, int(ROWS_H * 100), 7):
            x, y = xi / 100, yi / 100
            bet = bet_at(x, y)
            assert bet is not None and bet in legal_bets()
            street, row = min(11, int(x - 1.0)), min(2, int(y / CELL_H))
            assert geo.number_at(street, row) in bet.numbers


def test_a_touch_on_a_split_or_corner_chip_means_that_bet() -> None:
    """The split and corner touch targets reach as far as the chip drawn on them: touching its rim
    (across the line) adds to the split or corner, never to the straight beside it. With the old
    0.22 box share a quarter of such a chip was a straight. (Along a split's line its chip overlaps
    the corner's chip on the felt: there the nearer spot wins.)"""
    import math

    from engine.bets import BetKind, legal_bets
    from gui.widgets.felt_geometry import CHIP_RADIUS, bet_at, spot

    reach = 0.95 * CHIP_RADIUS
    for bet in legal_bets():
        if bet.kind not in (BetKind.SPLIT, BetKind.CORNER):
            continue
        x, y = spot(bet)
        nums = sorted(bet.numbers)
        along = None  # the split's line: vertical (0/90°) for neighbours in a row, else horizontal
        if bet.kind is BetKind.SPLIT:
            along = (2, 6) if nums[1] - nums[0] == 3 or nums[0] == 0 else (0, 4)
        for k in range(8):
            if along is not None and k in along:
                continue
            angle = k * math.pi / 4
            px, py = x + reach * math.cos(angle), y + reach * math.sin(angle)
            assert bet_at(px, py) == bet, (
                f"{bet.label}: a touch at ({px:.2f}, {py:.2f}) means {bet_at(px, py)}"
            )
