"""Legal bets on the single-zero layout (Chapter 617a, § 617b.12(m)) and wagers placed on them.

A `Bet` is a spot on the felt: its kind and the numbers it covers. A `Wager` is money of
one player on one bet. Every legal bet is enumerable; anything else is refused with a
message that names the wager and the reason.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from engine.errors import IllegalWager
from engine.wheel_layout import BLACK, RED, column_of, dozen_of


class BetKind(enum.StrEnum):
    STRAIGHT = "straight"
    SPLIT = "split"
    STREET = "street"
    TRIO = "trio"
    CORNER = "corner"
    FIRST_FOUR = "first_four"
    SIX_LINE = "six_line"
    RED = "red"
    BLACK = "black"
    ODD = "odd"
    EVEN = "even"
    LOW = "low"
    HIGH = "high"
    DOZEN = "dozen"
    COLUMN = "column"


INSIDE_KINDS = frozenset(
    {
        BetKind.STRAIGHT,
        BetKind.SPLIT,
        BetKind.STREET,
        BetKind.TRIO,
        BetKind.CORNER,
        BetKind.FIRST_FOUR,
        BetKind.SIX_LINE,
    }
)
EVEN_MONEY_KINDS = frozenset(
    {BetKind.RED, BetKind.BLACK, BetKind.ODD, BetKind.EVEN, BetKind.LOW, BetKind.HIGH}
)
OUTSIDE_KINDS = EVEN_MONEY_KINDS | {BetKind.DOZEN, BetKind.COLUMN}

# Names accepted where a bet is given by numbers (`drr settle`): trios are streets and first
# four is a corner on the wire, as the engine issue's contract says.
NUMBERED_BET_NAMES = ("straight", "split", "street", "corner", "six_line")
WIRE_WAGER_KEYS = frozenset({"id", "player", "bet", "numbers", "which", "amount"})
_WIRE_FAMILY = {
    BetKind.STRAIGHT: "straight",
    BetKind.SPLIT: "split",
    BetKind.STREET: "street",
    BetKind.TRIO: "street",
    BetKind.CORNER: "corner",
    BetKind.FIRST_FOUR: "corner",
    BetKind.SIX_LINE: "six_line",
}


@dataclass(frozen=True, slots=True)
class Bet:
    """One spot on the layout: what kind of bet it is and which numbers win it."""

    kind: BetKind
    numbers: frozenset[int]
    which: int | None = None  # dozen or column 1..3

    @property
    def inside(self) -> bool:
        return self.kind in INSIDE_KINDS

    @property
    def size(self) -> int:
        """How many numbers the bet covers (n in "X to n")."""
        return len(self.numbers)

    @property
    def wire_name(self) -> str:
        """The `bet` value of this bet in the JSON contracts (`drr settle`)."""
        return _WIRE_FAMILY.get(self.kind, self.kind.value)

    @property
    def label(self) -> str:
        if self.kind in (BetKind.DOZEN, BetKind.COLUMN):
            return f"{self.kind.value} {self.which}"
        if not self.inside:
            return self.kind.value
        nums = sorted(self.numbers)
        sep = "/" if self.kind in (BetKind.SPLIT, BetKind.CORNER, BetKind.FIRST_FOUR) else "-"
        if self.kind is BetKind.SIX_LINE:
            return f"six line {nums[0]}-{nums[-1]}"
        return f"{self.kind.value.replace('_', ' ')} {sep.join(map(str, nums))}"

    def wins(self, number: int) -> bool:
        return number in self.numbers

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bet": self.wire_name}
        if self.inside:
            out["numbers"] = sorted(self.numbers)
        elif self.which is not None:
            out["which"] = self.which
        return out


def _inside_table() -> dict[frozenset[int], BetKind]:
    table: dict[frozenset[int], BetKind] = {}
    for n in range(37):
        table[frozenset({n})] = BetKind.STRAIGHT
    for n in range(1, 37):
        if n % 3 != 0:
            table[frozenset({n, n + 1})] = BetKind.SPLIT
        if n <= 33:
            table[frozenset({n, n + 3})] = BetKind.SPLIT
    for n in (1, 2, 3):
        table[frozenset({0, n})] = BetKind.SPLIT
    for row in range(12):
        table[frozenset({3 * row + 1, 3 * row + 2, 3 * row + 3})] = BetKind.STREET
    table[frozenset({0, 1, 2})] = BetKind.TRIO
    table[frozenset({0, 2, 3})] = BetKind.TRIO
    for n in range(1, 33):
        if n % 3 != 0:
            table[frozenset({n, n + 1, n + 3, n + 4})] = BetKind.CORNER
    table[frozenset({0, 1, 2, 3})] = BetKind.FIRST_FOUR
    for row in range(11):
        table[frozenset(range(3 * row + 1, 3 * row + 7))] = BetKind.SIX_LINE
    return table


INSIDE_BETS: Mapping[frozenset[int], BetKind] = _inside_table()


def outside_bet(kind: BetKind, which: int | None = None) -> Bet:
    """The outside bet of `kind` (dozen/column need `which` 1..3). Zero loses all of them."""
    if kind in (BetKind.DOZEN, BetKind.COLUMN):
        if which not in (1, 2, 3):
            raise ValueError(f"{kind.value} needs which = 1, 2 or 3, not {which!r}")
        pick = dozen_of if kind is BetKind.DOZEN else column_of
        return Bet(kind, frozenset(n for n in range(1, 37) if pick(n) == which), which)
    covers = {
        BetKind.RED: RED,
        BetKind.BLACK: BLACK,
        BetKind.ODD: frozenset(range(1, 37, 2)),
        BetKind.EVEN: frozenset(range(2, 37, 2)),
        BetKind.LOW: frozenset(range(1, 19)),
        BetKind.HIGH: frozenset(range(19, 37)),
    }
    if kind not in covers:
        raise ValueError(f"{kind.value} is not an outside bet")
    return Bet(kind, covers[kind])


@cache
def legal_bets(trios: bool = True, first_four: bool = True) -> tuple[Bet, ...]:
    """Every legal bet on the layout under the Rules Submission's trio/first-four switches."""
    bets = [
        Bet(kind, numbers)
        for numbers, kind in INSIDE_BETS.items()
        if (trios or kind is not BetKind.TRIO) and (first_four or kind is not BetKind.FIRST_FOUR)
    ]
    for kind in sorted(EVEN_MONEY_KINDS):
        bets.append(outside_bet(kind))
    for kind in (BetKind.DOZEN, BetKind.COLUMN):
        bets.extend(outside_bet(kind, w) for w in (1, 2, 3))
    return tuple(bets)


def inside_bet(numbers: Iterable[Any], *, trios: bool = True, first_four: bool = True) -> Bet:
    """The inside bet formed by `numbers`, or ValueError saying why they form none."""
    raw = list(numbers)
    for n in raw:
        if isinstance(n, bool) or not isinstance(n, int):
            raise ValueError(f"number {n!r} is not a whole number")
        if not 0 <= n <= 36:
            raise ValueError(f"number {n} is outside 0-36")
    if len(set(raw)) != len(raw):
        raise ValueError(f"numbers {raw} repeat a number")
    key = frozenset(raw)
    kind = INSIDE_BETS.get(key)
    if kind is None:
        shown = "-".join(map(str, sorted(key))) or "none"
        raise ValueError(f"numbers {shown} do not form a legal inside bet on the layout")
    if kind is BetKind.TRIO and not trios:
        raise ValueError("trio bets are not offered by this Rules Submission")
    if kind is BetKind.FIRST_FOUR and not first_four:
        raise ValueError("the first-four bet is not offered by this Rules Submission")
    return Bet(kind, key)


# A wager packed into one int for fast settlement (engine/settlement.py): its amount in
# 10**-KEY_PLACES minor units, how many decimal places the amount is written with, and the
# index of its bet in legal_bets(). Amounts that do not fit settle by the plain Decimal path.
KEY_PLACES = 4
KEY_MAX_UNITS = 1 << 40
KEY_INDEX_BITS = 8
KEY_PLACES_BITS = 3


@cache
def legal_bet_index() -> Mapping[Bet, int]:
    """Each legal bet (trios and first four included) -> its position in `legal_bets()`."""
    return {bet: i for i, bet in enumerate(legal_bets())}


def settle_key(bet: Bet, amount: Decimal) -> int | None:
    """`bet` and `amount` packed as (units, places, bet index) in one int, or None if they do not
    fit: not a legal bet, not a non-negative Decimal with at most KEY_PLACES places, too large."""
    try:
        index = legal_bet_index().get(bet)
    except TypeError:  # a hand-made Bet whose numbers are not hashable
        return None
    if index is None or not isinstance(amount, Decimal) or not amount.is_finite() or amount.is_signed():
        return None
    _, digits, exponent = amount.as_tuple()
    assert isinstance(exponent, int)  # finite
    if not -KEY_PLACES <= exponent <= 12:
        return None
    units = int("".join(map(str, digits))) * 10 ** (exponent + KEY_PLACES)
    if units >= KEY_MAX_UNITS:
        return None
    places = -exponent if exponent < 0 else 0
    return (((units << KEY_PLACES_BITS) | places) << KEY_INDEX_BITS) | index


@dataclass(frozen=True, slots=True)
class Wager:
    """Money of one player on one bet."""

    id: str
    player: str
    bet: Bet
    amount: Decimal = field(compare=True)
    # Derived from bet and amount at construction (see settle_key); not part of the wager's identity.
    key: int | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", settle_key(self.bet, self.amount))


def check_amount(amount: Any, unit: Decimal) -> Decimal:
    """The amount as an exact Decimal, or ValueError unless it is a positive multiple of `unit`."""
    if isinstance(amount, float):
        raise ValueError(f"amount {amount!r} must be given as a string or integer, not a float")
    try:
        value = Decimal(str(amount))
    except InvalidOperation:
        raise ValueError(f"amount {amount!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"amount {amount!r} is not a finite number")
    if value <= 0:
        raise ValueError(f"amount {amount!r} is not positive")
    try:
        # Exact under the default 28-digit context; a larger amount cannot be divided by the
        # unit exactly and is refused rather than rounded.
        off_unit = value % unit != 0
    except ArithmeticError:
        raise ValueError(f"amount {amount} is too large") from None
    if off_unit:
        raise ValueError(f"amount {amount} is not a multiple of the wager unit {unit}")
    return value


def wager_from_wire(
    data: Any,
    *,
    unit: Decimal,
    trios: bool = True,
    first_four: bool = True,
    position: int = 0,
) -> Wager:
    """Build a wager from its JSON form (the `drr settle` contract), or IllegalWager naming it."""
    if not isinstance(data, Mapping):
        raise IllegalWager(f"wager #{position + 1}: is not a JSON object")
    wid = str(data.get("id", f"#{position + 1}"))
    try:
        unknown = sorted(str(k) for k in data if k not in WIRE_WAGER_KEYS)
        if unknown:
            # A misspelt key (e.g. "amout") would otherwise be ignored or reported as missing.
            raise ValueError(f"unknown field(s) {', '.join(unknown)}")
        player = data.get("player", "")
        if not isinstance(player, str) or not player:
            raise ValueError("has no player")
        bet = _bet_from_wire(data, trios=trios, first_four=first_four)
        amount = check_amount(data.get("amount"), unit)
    except ValueError as exc:
        raise IllegalWager(f"wager {wid}: {exc}") from None
    return Wager(wid, player, bet, amount)


def _bet_from_wire(data: Mapping[str, Any], *, trios: bool, first_four: bool) -> Bet:
    name = data.get("bet")
    if name in NUMBERED_BET_NAMES:
        if "which" in data:
            raise ValueError(f"bet {name} takes numbers, not which")
        numbers = data.get("numbers")
        if not isinstance(numbers, list):
            raise ValueError(f"bet {name} needs a list of numbers")
        bet = inside_bet(numbers, trios=trios, first_four=first_four)
        if bet.wire_name != name:
            raise ValueError(
                f"numbers {'-'.join(map(str, sorted(bet.numbers)))} form a {bet.wire_name}, not a {name}"
            )
        return bet
    if not isinstance(name, str):
        raise ValueError(f"unknown bet {name!r}")
    try:
        kind = BetKind(name)
    except ValueError:
        raise ValueError(f"unknown bet {name!r}") from None
    if kind not in OUTSIDE_KINDS:
        raise ValueError(f"unknown bet {name!r}")
    if "numbers" in data:
        raise ValueError(f"bet {name} covers fixed numbers; it takes no numbers")
    if "which" in data and kind not in (BetKind.DOZEN, BetKind.COLUMN):
        raise ValueError(f"bet {name} takes no which")
    if kind in (BetKind.DOZEN, BetKind.COLUMN):
        which = data.get("which")
        if isinstance(which, bool) or which not in (1, 2, 3):
            raise ValueError(f"{kind.value} needs which = 1, 2 or 3, not {which!r}")
        return outside_bet(kind, which)
    return outside_bet(kind)
