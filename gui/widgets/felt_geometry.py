"""Geometry of the single-zero felt in layout units, and hit-testing from a point to a legal bet.

Kept free of Qt so the mapping from touch point to wager (the part that decides where money
goes) can be reasoned about and tested on its own. Layout units: one number box is 1 wide and
`CELL_H` tall; the zero sits left of the numbers, the column boxes right of them, then the
dozens and the even-money boxes below.

    x: 0..1 zero | 1..13 twelve streets (1-2-3 first) | 13..14 columns "2 to 1"
    y: 0..3*CELL_H three rows (top row 3, 6, … 36; bottom row 1, 4, … 34) | dozens | even money
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.bets import Bet, BetKind, inside_bet, outside_bet

CELL_H = 1.25
ROWS_H = 3 * CELL_H
DOZEN_H = 0.95
EVEN_H = 0.95
MARGIN = 0.12  # room around the felt for chips on the outer lines
WIDTH = 14.0
HEIGHT = ROWS_H + DOZEN_H + EVEN_H
CHIP_RADIUS = 0.27  # a chip drawn on the felt: a little over half a number box wide
# How close to a line (as a share of a box) a touch must be to mean the line, not the box: as far as
# the chip on a split or corner reaches, so a finger on that chip (to add to it, or to place one
# there) always means the split or corner. (It was 0.22: a third of a chip on a line was a straight.)
EDGE = CHIP_RADIUS

EVEN_MONEY_ORDER: tuple[tuple[BetKind, str], ...] = (
    (BetKind.LOW, "1 to 18"),
    (BetKind.EVEN, "EVEN"),
    (BetKind.RED, "RED"),
    (BetKind.BLACK, "BLACK"),
    (BetKind.ODD, "ODD"),
    (BetKind.HIGH, "19 to 36"),
)


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def contains(self, px: float, py: float) -> bool:
        return self.x <= px < self.x + self.w and self.y <= py < self.y + self.h


def number_at(street: int, row: int) -> int:
    """The number in street 0..11 and row 0..2 (row 0 is the top row: 3, 6, …)."""
    return 3 * street + (3 - row)


def number_rect(n: int) -> Rect:
    if n == 0:
        return Rect(0.0, 0.0, 1.0, ROWS_H)
    street, row = (n - 1) // 3, 2 - (n - 1) % 3
    return Rect(1.0 + street, row * CELL_H, 1.0, CELL_H)


def column_rect(which: int) -> Rect:
    return Rect(13.0, (3 - which) * CELL_H, 1.0, CELL_H)


def dozen_rect(which: int) -> Rect:
    return Rect(1.0 + 4 * (which - 1), ROWS_H, 4.0, DOZEN_H)


def even_money_rect(index: int) -> Rect:
    return Rect(1.0 + 2 * index, ROWS_H + DOZEN_H, 2.0, EVEN_H)


def outside_rect(bet: Bet) -> Rect:
    if bet.kind is BetKind.DOZEN:
        return dozen_rect(bet.which or 1)
    if bet.kind is BetKind.COLUMN:
        return column_rect(bet.which or 1)
    for i, (kind, _) in enumerate(EVEN_MONEY_ORDER):
        if kind is bet.kind:
            return even_money_rect(i)
    raise ValueError(f"{bet.label} is not an outside bet")


class Rules:
    """The two Rules Submission switches that change what the zero edge offers."""

    __slots__ = ("first_four", "trios")

    def __init__(self, trios: bool = True, first_four: bool = True) -> None:
        self.trios = trios
        self.first_four = first_four


def bet_at(x: float, y: float, rules: Rules | None = None) -> Bet | None:
    """The legal bet a touch at layout point (x, y) means, or None off the felt."""
    rules = rules or Rules()
    if not (-EDGE <= x < WIDTH and -EDGE * CELL_H <= y < HEIGHT):
        return None
    if y >= ROWS_H + EDGE * CELL_H:
        return _outside_at(x, y)
    if x >= 13.0:
        if y >= ROWS_H:
            return None
        return outside_bet(BetKind.COLUMN, 3 - min(2, max(0, int(y // CELL_H))))
    if x < 1.0 - EDGE:
        return inside_bet([0]) if 0 <= y < ROWS_H else None
    return _grid_at(x, y, rules)


def _outside_at(x: float, y: float) -> Bet | None:
    if x < 1.0 or x >= 13.0:
        return None
    if y < ROWS_H + DOZEN_H:
        return outside_bet(BetKind.DOZEN, min(3, int((x - 1.0) // 4) + 1))
    index = min(5, int((x - 1.0) // 2))
    return outside_bet(EVEN_MONEY_ORDER[index][0])


def _near_line(pos: float) -> tuple[int, int | None]:
    """(box index, line index or None): which box `pos` (in box units) is in, and the line it is on."""
    i = math.floor(pos)
    frac = pos - i
    if frac < EDGE:
        return i, i
    if frac > 1 - EDGE:
        return i, i + 1
    return i, None


def _grid_at(x: float, y: float, rules: Rules) -> Bet:
    """Inside bets: straight, split, street, corner, six line and the zero-edge trios/first four."""
    street, vline = _near_line(x - 1.0)  # vline 0 = zero edge, 12 = column-box edge
    row, hline = _near_line(y / CELL_H)  # hline 0 = top edge, 3 = street edge
    street = min(11, max(0, street))
    row = min(2, max(0, row))
    if vline == 12:
        vline = None  # nothing is offered across the column boxes
    if hline == 0 and vline is None:
        hline = None  # the top edge offers nothing across
    if vline is None and hline is None:
        return inside_bet([number_at(street, row)])
    if hline is None:
        assert vline is not None
        return _vertical_split(vline, row)
    if vline is None:
        if hline == 3:
            return inside_bet(number_at(street, r) for r in range(3))
        return inside_bet([number_at(street, hline - 1), number_at(street, hline)])
    # On a crossing of lines.
    if vline == 0:
        return _zero_crossing(hline, rules)
    if hline == 0:
        return _vertical_split(vline, 0)
    if hline == 3:
        return inside_bet(
            n for s in (vline - 1, vline) for n in (number_at(s, 0), number_at(s, 1), number_at(s, 2))
        )
    return inside_bet(number_at(s, r) for s in (vline - 1, vline) for r in (hline - 1, hline))


def _vertical_split(vline: int, row: int) -> Bet:
    if vline == 0:
        return inside_bet([0, number_at(0, row)])
    return inside_bet([number_at(vline - 1, row), number_at(vline, row)])


def _zero_crossing(hline: int, rules: Rules) -> Bet:
    if hline == 3:
        # First four sits where the zero, the 1 and the dozens line meet; without it, the street.
        return inside_bet([0, 1, 2, 3]) if rules.first_four else inside_bet([1, 2, 3])
    if hline == 0:
        return inside_bet([0, 3])
    pair = [number_at(0, hline - 1), number_at(0, hline)]  # 3/2 or 2/1
    if rules.trios:
        return inside_bet([0, *pair])
    return inside_bet(pair)


def spot(bet: Bet) -> tuple[float, float]:
    """Where a chip on `bet` sits (layout units); `bet_at(*spot(bet)) == bet` for every legal bet."""
    if not bet.inside:
        r = outside_rect(bet)
        return r.cx, r.cy
    nums = sorted(bet.numbers)
    if bet.kind is BetKind.STRAIGHT:
        r = number_rect(nums[0])
        return r.cx, r.cy
    if bet.kind is BetKind.FIRST_FOUR:
        return 1.0, ROWS_H
    if bet.kind is BetKind.TRIO:
        # 0-1-2 on the line between 1 and 2, 0-2-3 between 2 and 3.
        return 1.0, (2.0 if 1 in nums else 1.0) * CELL_H
    rects = [number_rect(n) for n in nums]
    if bet.kind is BetKind.STREET:
        r = rects[0]
        return r.cx, ROWS_H
    if bet.kind is BetKind.SIX_LINE:
        return (rects[0].cx + rects[-1].cx) / 2, ROWS_H
    if bet.kind is BetKind.SPLIT and nums[0] == 0:
        r = rects[1]
        return 1.0, r.cy
    xs = [r.cx for r in rects]
    ys = [r.cy for r in rects]
    return sum(xs) / len(xs), sum(ys) / len(ys)
