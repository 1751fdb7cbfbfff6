"""Legal bets on the single-zero layout (Chapter 617a, § 617b.12(m)) and wagers placed on them.

`KINDS` is the one table of bet kinds (a `KindInfo` per `BetKind`: name, paytable line and so
size, inside or outside, Rules Submission payout key, clause, wire name, math row); the rules, the
math, the statistics, `drr rules`, the felt and the croupier window read it, never a copy.

A `Bet` is a spot on the felt: its kind and the numbers it covers. A `Wager` is money of
one player on one bet. Every legal bet is enumerable; anything else is refused with a
message that names the wager and the reason.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import cache, lru_cache
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


@dataclass(frozen=True, slots=True)
class PayoutLine:
    """One line of the paytable: a Rules Submission `[payouts]` key and what every bet paid on it shares."""

    key: str  # the [payouts] key of the line's base "N to 1" odds
    size: int  # numbers each bet on the line covers (the n of "X to n")
    name: str  # the line's heading: the croupier's Lucky payout table, the felt's Lucky card
    label: str  # the line in `drr rules`' paytable (every kind it pays)
    # § 617b.12(l): the n-number range of bonus payouts, which also bounds the line's base odds
    # (inside lines only; outside wagers play neither Lucky nor Bonus).
    bonus_range: tuple[Fraction, Fraction] | None = None

    @property
    def inside(self) -> bool:
        return self.bonus_range is not None


@dataclass(frozen=True, slots=True)
class KindInfo:
    """One kind of bet: what the rules, the math, the statistics and the screens know of it."""

    kind: BetKind
    name: str  # how screens and labels call it ("six line")
    line: PayoutLine  # the paytable line that pays it (a trio is paid as a street)
    clause: str  # where Chapter 617a defines it (§ 617b.12(m) names the inside ones)
    title: str  # the title of its row in the math report (the six even-money kinds share one)
    switch: str | None = None  # the Rules Submission's [wagers] switch that offers it, if any
    numbers: frozenset[int] | None = None  # the fixed numbers of an outside bet without `which`
    takes_which: bool = False  # dozen / column: which of the three (1..3)
    example: tuple[int, ...] = ()  # the math's representative bet: its numbers, or (which,)

    @property
    def size(self) -> int:
        return self.line.size

    @property
    def inside(self) -> bool:
        return self.line.inside

    @property
    def payout_key(self) -> str:
        return self.line.key

    @property
    def wire(self) -> str:
        """The `bet` name in the JSON contracts and in the statistics' handle by bet: an inside bet
        is named by its paytable line (a trio is a street, first four a corner on the wire)."""
        return self.line.key if self.inside else self.kind.value

    @property
    def math_row(self) -> str:
        """The math report's row with this kind's figures: each inside kind has its own (a trio's
        zero changes nothing, but the report lists it), outside kinds share their paytable line's."""
        return self.kind.value if self.inside else self.line.key

    def offered(self, trios: bool = True, first_four: bool = True) -> bool:
        """Whether a Rules Submission with these [wagers] switches offers the kind."""
        return {None: True, "trios": trios, "first_four": first_four}[self.switch]

    def example_bet(self) -> Bet:
        """The representative bet of the kind in the math (every bet of a kind has its math)."""
        if self.inside:
            return inside_bet(self.example)
        return outside_bet(self.kind, self.example[0] if self.takes_which else None)


_BONUS_TOP = Fraction(4999)  # § 617b.12(l): the straight-up maximum, shared by n
_STRAIGHT = PayoutLine("straight", 1, "straight", "straight", (Fraction(29), _BONUS_TOP))
_SPLIT = PayoutLine("split", 2, "split", "split", (Fraction(14), _BONUS_TOP / 2))
_STREET = PayoutLine("street", 3, "street", "street / trio", (Fraction(9), _BONUS_TOP / 3))
_CORNER = PayoutLine("corner", 4, "corner", "corner / first four", (Fraction(13, 2), _BONUS_TOP / 4))
_SIX_LINE = PayoutLine("six_line", 6, "six line", "six line", (Fraction(4), _BONUS_TOP / 6))
_EVEN_MONEY = PayoutLine("even_money", 18, "even money", "red/black/odd/even/low/high")
_DOZEN = PayoutLine("dozen", 12, "dozen", "dozen")
_COLUMN = PayoutLine("column", 12, "column", "column")

# The paytable's lines in the order the Rules Submission, `drr rules` and the screens list them.
PAYOUT_LINES: tuple[PayoutLine, ...] = (
    _STRAIGHT, _SPLIT, _STREET, _CORNER, _SIX_LINE, _EVEN_MONEY, _DOZEN, _COLUMN
)  # fmt: skip
INSIDE_LINES: tuple[PayoutLine, ...] = tuple(line for line in PAYOUT_LINES if line.inside)
PAYOUT_KEYS: tuple[str, ...] = tuple(line.key for line in PAYOUT_LINES)
INSIDE_SIZES: tuple[int, ...] = tuple(line.size for line in INSIDE_LINES)  # (1, 2, 3, 4, 6)

_E = "§ 617a.3(e)"
_OUT = "Chapter 617a"
# THE table of bet kinds, in display order (the math report's rows, the headless players' wagers).
# Adding a kind: a BetKind member, a row here, its spots in engine/bets.py's layout (INSIDE_BETS or
# outside_bet) and gui/widgets/felt_geometry.py; everything else reads this table.
KINDS: tuple[KindInfo, ...] = (
    KindInfo(BetKind.STRAIGHT, "straight", _STRAIGHT, f"{_E}(1)", "Straight up", example=(17,)),
    KindInfo(BetKind.SPLIT, "split", _SPLIT, f"{_E}(2)", "Split", example=(17, 20)),
    KindInfo(BetKind.STREET, "street", _STREET, f"{_E}(3)", "Street", example=(16, 17, 18)),
    KindInfo(BetKind.TRIO, "trio", _STREET, f"{_E}(3)", "Trio", "trios", example=(0, 1, 2)),
    KindInfo(BetKind.CORNER, "corner", _CORNER, f"{_E}(4)", "Corner", example=(17, 18, 20, 21)),
    KindInfo(BetKind.FIRST_FOUR, "first four", _CORNER, f"{_E}(4)", "First four", "first_four",
             example=(0, 1, 2, 3)),
    KindInfo(BetKind.SIX_LINE, "six line", _SIX_LINE, f"{_E}(5)", "Six line", example=tuple(range(16, 22))),
    KindInfo(BetKind.RED, "red", _EVEN_MONEY, _OUT, "Even money", numbers=RED),
    KindInfo(BetKind.BLACK, "black", _EVEN_MONEY, _OUT, "Even money", numbers=BLACK),
    KindInfo(BetKind.ODD, "odd", _EVEN_MONEY, _OUT, "Even money", numbers=frozenset(range(1, 37, 2))),
    KindInfo(BetKind.EVEN, "even", _EVEN_MONEY, _OUT, "Even money", numbers=frozenset(range(2, 37, 2))),
    KindInfo(BetKind.LOW, "low", _EVEN_MONEY, _OUT, "Even money", numbers=frozenset(range(1, 19))),
    KindInfo(BetKind.HIGH, "high", _EVEN_MONEY, _OUT, "Even money", numbers=frozenset(range(19, 37))),
    KindInfo(BetKind.DOZEN, "dozen", _DOZEN, _OUT, "Dozen", takes_which=True, example=(2,)),
    KindInfo(BetKind.COLUMN, "column", _COLUMN, _OUT, "Column", takes_which=True, example=(2,)),
)  # fmt: skip
KIND: Mapping[BetKind, KindInfo] = {info.kind: info for info in KINDS}
assert list(KIND) == list(BetKind), "every BetKind has exactly one row in KINDS, in enum order"

INSIDE_KINDS = frozenset(info.kind for info in KINDS if info.inside)
EVEN_MONEY_KINDS = frozenset(info.kind for info in KINDS if info.line is _EVEN_MONEY)
OUTSIDE_KINDS = frozenset(info.kind for info in KINDS if not info.inside)
WHICH_KINDS = frozenset(info.kind for info in KINDS if info.takes_which)  # dozen, column


def offered_kinds(trios: bool = True, first_four: bool = True) -> tuple[KindInfo, ...]:
    """The kinds a Rules Submission with these [wagers] switches offers, in display order."""
    return tuple(info for info in KINDS if info.offered(trios, first_four))


def math_rows(trios: bool = True, first_four: bool = True) -> dict[str, KindInfo]:
    """The math report's rows (row name -> the kind whose example bet stands for it), in order."""
    rows: dict[str, KindInfo] = {}
    for info in offered_kinds(trios, first_four):
        rows.setdefault(info.math_row, info)
    return rows


# Names accepted where a bet is given by numbers (`drr settle`): trios are streets and first
# four is a corner on the wire, as the engine issue's contract says.
NUMBERED_BET_NAMES = tuple(line.key for line in INSIDE_LINES)
# THE public list of bet names on the wire (`drr settle`'s "bet", the statistics' handle by bet), in
# display order: each kind's `wire` name once (a trio is written "street", first four "corner").
WIRE_BET_NAMES: tuple[str, ...] = tuple(dict.fromkeys(info.wire for info in KINDS))
# The aliases integrators use (the names of `drr math --json`'s rows): accepted for exactly their
# kind's bets ("trio" for 0-1-2 / 0-2-3, "first_four" for 0-1-2-3), written back as the wire name.
WIRE_ALIASES: Mapping[str, BetKind] = {
    info.kind.value: info.kind for info in KINDS if info.inside and info.kind.value != info.wire
}
ACCEPTED_BET_NAMES: tuple[str, ...] = (*WIRE_BET_NAMES, *WIRE_ALIASES)


_KNOWN = f"bet names: {', '.join(ACCEPTED_BET_NAMES)}"


def bet_names_text() -> str:
    """The bet names in words, for `drr settle --help` and the docs' check."""
    aliases = ", ".join(f"{alias} (a {KIND[kind].wire})" for alias, kind in WIRE_ALIASES.items())
    return f"Bet names: {', '.join(WIRE_BET_NAMES)}; aliases {aliases}."


WIRE_WAGER_KEYS = frozenset({"id", "player", "bet", "numbers", "which", "amount"})


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
        return KIND[self.kind].wire

    @property
    def label(self) -> str:
        name = KIND[self.kind].name
        if self.kind in WHICH_KINDS:
            return f"{name} {self.which}"
        if not self.inside:
            return name
        nums = sorted(self.numbers)
        sep = "/" if self.kind in (BetKind.SPLIT, BetKind.CORNER, BetKind.FIRST_FOUR) else "-"
        if self.kind is BetKind.SIX_LINE:
            return f"{name} {nums[0]}-{nums[-1]}"
        return f"{name} {sep.join(map(str, nums))}"

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
    if kind in WHICH_KINDS:
        if which not in (1, 2, 3):
            raise ValueError(f"{kind.value} needs which = 1, 2 or 3, not {which!r}")
        pick = dozen_of if kind is BetKind.DOZEN else column_of
        return Bet(kind, frozenset(n for n in range(1, 37) if pick(n) == which), which)
    covers = KIND[kind].numbers
    if covers is None:
        raise ValueError(f"{kind.value} is not an outside bet")
    return Bet(kind, covers)


@cache
def legal_bets(trios: bool = True, first_four: bool = True) -> tuple[Bet, ...]:
    """Every legal bet on the layout under the Rules Submission's trio/first-four switches."""
    bets = [
        Bet(kind, numbers) for numbers, kind in INSIDE_BETS.items() if KIND[kind].offered(trios, first_four)
    ]
    # The order fixes each bet's index in settle keys: even money by name, then dozens and columns.
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


# A wager packed into one int for fast settlement (engine/settlement.py): its amount's digits
# (the amount in units of its own last decimal place: 25.00 -> 2500), how many decimal places
# the amount is written with (at most KEY_PLACES), and the index of its bet in legal_bets().
# Amounts that do not fit settle by the plain Decimal path. The digits, not the amount in
# 10**-KEY_PLACES units, keep the key of an everyday amount (up to 5,242.87 written with two
# places) below 2**30: one machine digit of a Python int, which the settlement reads into its
# array several times faster than a longer one.
KEY_PLACES = 4
KEY_MAX_UNITS = 1 << 40  # the amount in 10**-KEY_PLACES units stays below this
KEY_INDEX_BITS = 8
KEY_PLACES_BITS = 3


@cache
def legal_bet_index() -> Mapping[Bet, int]:
    """Each legal bet (trios and first four included) -> its position in `legal_bets()`."""
    return {bet: i for i, bet in enumerate(legal_bets())}


def settle_key(bet: Bet, amount: Decimal) -> int | None:
    """`bet` and `amount` packed as (digits, places, bet index) in one int, or None if they do not
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
    places = -exponent if exponent < 0 else 0
    own = int("".join(map(str, digits))) * 10 ** (exponent + places)  # in units of its last place
    if own * 10 ** (KEY_PLACES - places) >= KEY_MAX_UNITS:
        return None
    return (((own << KEY_PLACES_BITS) | places) << KEY_INDEX_BITS) | index


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

    @property
    def words(self) -> str:
        """The wager as the croupier and the players say it ("Bob's 25 on straight 17"): what a
        refusal at the table names, never the journal's internal wager id."""
        return amount_words(self.player, self.bet, self.amount)


def amount_words(player: str, bet: Bet, amount: Decimal | str | int) -> str:
    """`player`'s `amount` on `bet` in words (Wager.words before the wager has an id)."""
    return f"{player}'s {amount} on {bet.label}"


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
        bet = bet_from_wire(data, trios=trios, first_four=first_four)
        amount = check_amount(data.get("amount"), unit)
    except ValueError as exc:
        raise IllegalWager(f"wager {wid}: {exc}") from None
    return Wager(wid, player, bet, amount)


def bet_from_wire(data: Mapping[str, Any], *, trios: bool = True, first_four: bool = True) -> Bet:
    """The bet of a wager's JSON form (its `bet`, `numbers`, `which`), or ValueError naming what is
    wrong. A table's bets are a few hundred spots wagered millions of times, and a rebuild or an audit
    types every wager entry of years: each spot's Bet is built and checked once (`_cached_bet`)."""
    try:
        key = tuple(_typed(data.get(name, _ABSENT)) for name in ("bet", "numbers", "which"))
        hash(key)
    except TypeError:  # an unhashable value in the payload: checked (and refused) the long way
        return _bet_from_wire(data, trios=trios, first_four=first_four)
    return _cached_bet(key, trios, first_four)


class _Absent:
    """A key the wire form does not have (no JSON value is this)."""


_ABSENT = _Absent()


def _typed(value: Any) -> Any:
    """`value` with its type (and a list's items' types) beside it, hashable: 1, 1.0 and True are
    equal keys to a dict, but not the same wire form (a bool is no number)."""
    if type(value) is list:
        return (list, tuple((type(v), v) for v in value))
    return (type(value), value)


@lru_cache(maxsize=4096)
def _cached_bet(key: tuple[Any, ...], trios: bool, first_four: bool) -> Bet:
    """`_bet_from_wire` of the wire form `key` stands for (a refusal is raised each time, not cached)."""
    data: dict[str, Any] = {}
    for name, (kind, value) in zip(("bet", "numbers", "which"), key, strict=True):
        if value is _ABSENT:
            continue
        data[name] = [v for _t, v in value] if kind is list else value
    return _bet_from_wire(data, trios=trios, first_four=first_four)


def _bet_from_wire(data: Mapping[str, Any], *, trios: bool, first_four: bool) -> Bet:
    name = data.get("bet")
    alias = WIRE_ALIASES.get(name) if isinstance(name, str) else None
    if name in NUMBERED_BET_NAMES or alias is not None:
        if "which" in data:
            raise ValueError(f"bet {name} takes numbers, not which")
        numbers = data.get("numbers")
        if not isinstance(numbers, list):
            raise ValueError(f"bet {name} needs a list of numbers")
        bet = inside_bet(numbers, trios=trios, first_four=first_four)
        if alias is not None and bet.kind is not alias:
            shown = "-".join(map(str, sorted(bet.numbers)))
            raise ValueError(f"numbers {shown} form a {KIND[bet.kind].name}, not a {name}")
        if alias is None and bet.wire_name != name:
            raise ValueError(
                f"numbers {'-'.join(map(str, sorted(bet.numbers)))} form a {bet.wire_name}, not a {name}"
            )
        return bet
    if not isinstance(name, str):
        raise ValueError(f"unknown bet {name!r} ({_KNOWN})")
    try:
        kind = BetKind(name)
    except ValueError:
        raise ValueError(f"unknown bet {name!r} ({_KNOWN})") from None
    if kind not in OUTSIDE_KINDS:
        raise ValueError(f"unknown bet {name!r} ({_KNOWN})")
    if "numbers" in data:
        raise ValueError(f"bet {name} covers fixed numbers; it takes no numbers")
    if "which" in data and kind not in WHICH_KINDS:
        raise ValueError(f"bet {name} takes no which")
    if kind in WHICH_KINDS:
        which = data.get("which")
        if isinstance(which, bool) or which not in (1, 2, 3):
            raise ValueError(f"{kind.value} needs which = 1, 2 or 3, not {which!r}")
        return outside_bet(kind, which)
    return outside_bet(kind)
