"""Settlement of wagers: what each wager wins, exactly, and why (§ 617b.12(f), (g), (l)).

Public API (used by the table service, `drr settle` and the game math):

- `settle_wager(wager, result, draw, bonus_odds, rules) -> Settlement`: one wager.
- `settle_round(wagers, result, draw, bonus_odds, rules) -> RoundSettlement`: every wager
  of a round, with `total_wagered` and `total_paid`.
- `with_bonus_outcomes(settled, bonus_odds, rules)`: a round's settlement with its Bonus wins
  paid at the players' bonus outcomes (what settle_round gives at them; only those wins redone).
- `players_needing_bonus(wagers, result, draw)`: who must play a bonus game before the
  round can be settled (an inside wager covering the Bonus Number when it hits).
- `payout_of(amount, odds, rounding)`: the rounding rule on its own.

Rules applied, in this order, to a wager covering n numbers when the ball lands on `result`:
- the wager does not cover `result` -> `lose` (zero loses every outside wager);
- inside wager, `result` is a Lucky Number with straight-up X -> `lucky`, X/n to 1;
- inside wager, `result` is the Bonus Number -> `bonus`, B/n to 1, B that player's bonus
  outcome (`bonus_odds[player]`; missing -> BonusOutcomeMissing: run the bonus game first);
- otherwise -> `base`, the Rules Submission's base odds (outside wagers are always base).

A payout is what the wager wins: amount x odds rounded DOWN to a multiple of
`rules.rounding`. The stake is returned on top of it and is not part of `payout`.

How settle_round computes a round of 256 wagers or more (smaller ones are faster with the
Decimal path below): each Wager carries a key made when it is built (engine/bets.py: its
amount in 10**-4 minor units and its bet's index among the 157 legal bets), so a round reads
one int per wager and works out every payout in exact int64 arithmetic, with products
checked to stay far from overflow; Decimals are made only for the totals and, on first use,
the per-wager records. A round that does not fit (an amount with more places or too large, a
finer rounding, odds with huge numerators) is settled by the Decimal path, which gives the
same answers digit for digit (tests/engine/test_settlement_units.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import (
    ROUND_FLOOR,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Overflow,
    localcontext,
)
from fractions import Fraction
from functools import cache, cached_property
from itertools import repeat
from operator import add, attrgetter
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from engine.bets import KEY_INDEX_BITS, KEY_MAX_UNITS, KEY_PLACES, KEY_PLACES_BITS, legal_bets
from engine.errors import BonusOutcomeMissing, DrrError
from engine.exact import format_odds
from engine.rng import Draw

if TYPE_CHECKING:
    from engine.bets import Bet, Wager
    from engine.rules import RulesSubmission

WinKind = Literal["lucky", "bonus", "base", "lose"]
LUCKY: Final = "lucky"
BONUS: Final = "bonus"
BASE: Final = "base"
LOSE: Final = "lose"

BONUS_OUTCOME_MIN, BONUS_OUTCOME_MAX = Fraction(29), Fraction(4999)  # § 617b.12(l), straight up

# One exact context for all money arithmetic: wide enough for any table, and any inexact
# step raises instead of rounding silently. divide_int is exact floor division here.
_MONEY = Context(prec=60, rounding=ROUND_FLOOR, traps=[InvalidOperation, DivisionByZero, Overflow, Inexact])
_ZERO_ODDS: Final = Fraction(0)

DrawLike = Draw | tuple[Mapping[int, Fraction], int]


class Settlement(NamedTuple):
    """The outcome of one wager. `payout` excludes the stake, which is returned on a win."""

    wager: Wager
    kind: WinKind
    odds: Fraction  # "to 1"; 0 for a losing wager
    payout: Decimal

    @property
    def won(self) -> bool:
        return self.kind != LOSE

    @property
    def returned(self) -> Decimal:
        """What goes back to the player: payout plus stake on a win, nothing on a loss."""
        return self.payout + self.wager.amount if self.kind != LOSE else self.payout

    def to_wire(self) -> dict[str, Any]:
        """The `drr settle` form: id, kind, exact odds ("199/2") and payout."""
        return {
            "id": self.wager.id,
            "kind": self.kind,
            "odds": format_odds(self.odds),
            "payout": str(self.payout),
        }


class Outcome(NamedTuple):
    """What a wager won, without the wager: shared by every wager of a round that settles alike
    (all losing wagers share one, winners one per winning bet class and amount)."""

    kind: WinKind
    odds: Fraction
    payout: Decimal


@dataclass(frozen=True, eq=False)
class RoundSettlement:
    """Every wager of a round settled, in the order given.

    `settle_round` works out every wager's payout before it returns; `outcomes[i]` (what
    `wagers[i]` won) and the Settlement records of `settlements` are built from those payouts on
    first use (replay and totals need neither). Two settlements are equal when their result,
    wagers, outcomes and totals are."""

    result: int
    wagers: tuple[Wager, ...]
    total_wagered: Decimal
    total_paid: Decimal  # what the wagers won; stakes not included
    total_returned: Decimal  # handed back to players: winnings plus the stakes of winning wagers
    money_quantum: Decimal = Decimal("0.01")  # money in to_wire() is written to this many places
    # The per-wager outcomes, or the compact payouts they are built from (see _Payouts).
    source: tuple[Outcome, ...] | _Payouts = field(default=(), repr=False)

    @cached_property
    def outcomes(self) -> tuple[Outcome, ...]:
        src = self.source
        return src if isinstance(src, tuple) else src.outcomes()

    @cached_property
    def settlements(self) -> tuple[Settlement, ...]:
        # (wager,) + (kind, odds, payout) -> Settlement, all in C (no Python frame per wager).
        records = map(add, zip(self.wagers), self.outcomes)
        return tuple(map(tuple.__new__, repeat(Settlement), records))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RoundSettlement):
            return NotImplemented
        return (
            self.result == other.result
            and self.wagers == other.wagers
            and (self.total_wagered, self.total_paid, self.total_returned)
            == (other.total_wagered, other.total_paid, other.total_returned)
            and self.money_quantum == other.money_quantum
            and self.outcomes == other.outcomes
        )

    def __hash__(self) -> int:
        # Equal settlements have equal results, wagers and totals (outcomes follow from them).
        return hash((self.result, self.wagers, self.total_wagered, self.total_paid))

    def to_wire(self) -> dict[str, Any]:
        """The `drr settle` output; every amount written to the same number of places."""
        q = self.money_quantum
        wire = []
        for w, o in zip(self.wagers, self.outcomes, strict=True):
            wire.append(
                {
                    "id": w.id,
                    "kind": o.kind,
                    "odds": format_odds(o.odds),
                    "payout": str(_quantize(o.payout, q)),
                }
            )
        return {
            "result": self.result,
            "wagers": wire,
            "total_wagered": str(_quantize(self.total_wagered, q)),
            "total_paid": str(_quantize(self.total_paid, q)),
        }


def with_bonus_outcomes(
    settled: RoundSettlement, bonus_odds: Mapping[str, Fraction], rules: RulesSubmission
) -> RoundSettlement:
    """`settled` with the Bonus wins of the players in `bonus_odds` paid at their outcome (B/n to 1):
    the same settlement `settle_round` gives at those outcomes, digit for digit, but only the Bonus
    wins are worked out again (a round is settled once per result; its bonus games end later)."""
    outcomes = list(settled.outcomes)
    paid, returned = settled.total_paid, settled.total_returned
    made: dict[tuple[Fraction, Decimal], Outcome] = {}
    changed = False
    for i, (w, o) in enumerate(zip(settled.wagers, settled.outcomes, strict=True)):
        if o.kind != BONUS or w.player not in bonus_odds:
            continue
        odds = check_bonus_outcome(w.player, Fraction(bonus_odds[w.player])) / w.bet.size
        if odds == o.odds:
            continue
        new = made.get((odds, w.amount))
        if new is None:
            new = made[odds, w.amount] = Outcome(BONUS, odds, payout_of(w.amount, odds, rules.rounding))
        # Exact under the money context; every payout has the rounding's places, so the totals keep
        # the places settle_round writes them with.
        paid = _MONEY.add(_MONEY.subtract(paid, o.payout), new.payout)
        returned = _MONEY.add(_MONEY.subtract(returned, o.payout), new.payout)
        outcomes[i] = new
        changed = True
    if not changed:
        return settled
    return RoundSettlement(
        settled.result,
        settled.wagers,
        settled.total_wagered,
        paid,
        returned,
        settled.money_quantum,
        tuple(outcomes),
    )


def money_quantum(rules: RulesSubmission) -> Decimal:
    """The finest step of money under the rules (wager unit or payout rounding, at least 1): every
    amount and payout is a multiple of it, so writing them to its places is exact."""
    exponent = min(int(rules.unit.as_tuple().exponent), int(rules.rounding.as_tuple().exponent), 0)
    return Decimal(1).scaleb(exponent)


def _quantize(amount: Decimal, quantum: Decimal) -> Decimal:
    # Exact by construction (see money_quantum); Inexact is trapped so a bug cannot round.
    return amount.quantize(quantum, context=_MONEY)


def payout_of(amount: Decimal, odds: Fraction, rounding: Decimal) -> Decimal:
    """amount x odds rounded down to a multiple of `rounding` (exact; never float)."""
    units = _MONEY.divide_int(
        _MONEY.multiply(amount, Decimal(odds.numerator)), _MONEY.multiply(Decimal(odds.denominator), rounding)
    )
    return _MONEY.multiply(units, rounding)


def as_draw(draw: DrawLike) -> Draw:
    """A Draw from a Draw or a (lucky mapping, bonus number) pair."""
    if isinstance(draw, Draw):
        return draw
    lucky, bonus = draw
    return Draw({n: Fraction(x) for n, x in lucky.items()}, bonus)


def check_bonus_outcome(player: str, odds: Fraction) -> Fraction:
    """The straight-up bonus outcome if it lies in § 617b.12(l)'s 29-4,999 to 1, else DrrError."""
    if not BONUS_OUTCOME_MIN <= odds <= BONUS_OUTCOME_MAX:
        raise DrrError(
            f"bonus outcome of player {player!r} is {odds} to 1, outside 29 to 1 - 4,999 to 1 (§ 617b.12(l))"
        )
    return odds


def players_needing_bonus(wagers: Iterable[Wager], result: int, draw: DrawLike) -> tuple[str, ...]:
    """Players with an inside wager covering `result` when it is the Bonus Number, in wager order."""
    d = as_draw(draw)
    if result != d.bonus_number:
        return ()
    seen: dict[str, None] = {}
    for w in wagers:
        if w.bet.inside and result in w.bet.numbers:
            seen.setdefault(w.player, None)
    return tuple(seen)


def settle_wager(
    wager: Wager,
    result: int,
    draw: DrawLike,
    bonus_odds: Mapping[str, Fraction],
    rules: RulesSubmission,
) -> Settlement:
    """Settle one wager (see the module docstring for the rules)."""
    d = as_draw(draw)
    _check_result(result)
    bet = wager.bet
    if result not in bet.numbers:
        return Settlement(wager, LOSE, _ZERO_ODDS, payout_of(wager.amount, _ZERO_ODDS, rules.rounding))
    kind: WinKind = BASE
    if bet.inside:
        lucky = d.lucky.get(result)
        if lucky is not None:
            kind, odds = LUCKY, lucky / bet.size
        elif result == d.bonus_number:
            b = bonus_odds.get(wager.player)
            if b is None:
                raise _missing(wager, result)
            kind, odds = BONUS, check_bonus_outcome(wager.player, Fraction(b)) / bet.size
        else:
            odds = rules.base_payout(bet)
    else:
        odds = rules.base_payout(bet)
    return Settlement(wager, kind, odds, payout_of(wager.amount, odds, rules.rounding))


def _check_result(result: int) -> None:
    if isinstance(result, bool) or not isinstance(result, int) or not 0 <= result <= 36:
        raise DrrError(f"result {result!r} is not a number 0-36")


def _missing(wager: Wager, result: int) -> BonusOutcomeMissing:
    return BonusOutcomeMissing(
        f"wager {wager.id}: player {wager.player!r} won on the Bonus Number {result} and has no "
        "bonus-game outcome; the bonus game must be played before settlement"
    )


class _Odds:
    """Odds of one winning class of bets, with the Decimal factors of its payout precomputed."""

    __slots__ = ("divisor", "kind", "multiplier", "odds", "outcomes")

    def __init__(self, kind: WinKind, odds: Fraction, rounding: Decimal) -> None:
        self.kind = kind
        self.odds = odds
        self.multiplier = Decimal(odds.numerator)
        self.divisor = _MONEY.multiply(Decimal(odds.denominator), rounding)
        self.outcomes: dict[Decimal, Outcome] = {}  # amount -> outcome, within one round


_amount_of = attrgetter("amount")
_BY_PLAYER = _Odds(BONUS, Fraction(0), Decimal(1))  # marker: the odds depend on the player


def _winning_odds(bet: Bet, lucky: Fraction | None, on_bonus: bool, rules: RulesSubmission) -> _Odds:
    if bet.inside and lucky is not None:
        return _Odds(LUCKY, lucky / bet.size, rules.rounding)
    if bet.inside and on_bonus:
        return _BY_PLAYER
    return _Odds(BASE, rules.base_payout(bet), rules.rounding)


# --- the integer path ----------------------------------------------------------------------
# A round whose wagers all carry a settle key (engine/bets.py: the amount's digits and places
# and the legal-bet index, packed in one int) settles in int64 arrays: each amount in
# 10**-KEY_PLACES minor units is digits x 10**(KEY_PLACES - places), each winning payout is
# floor(units x num / (den x rounding units)) rounding steps, the same floor as payout_of, with
# every product checked to stay below 2**62 first. Anything that does not fit (an amount or
# odds too large, a finer rounding) takes the Decimal path below.

_LIMIT: Final = 1 << 62
_KEY_MAX_WAGERS: Final = _LIMIT // KEY_MAX_UNITS  # so the sum of all amounts' units fits int64
# Below this many wagers the Decimal path is the faster one (the array set-up costs ~40 us a
# round; measured with the records built, the two cross near 250 wagers).
_INT_PATH_MIN_WAGERS: Final = 256
_PLACES_MASK: Final = (1 << KEY_PLACES_BITS) - 1


@cache
def _scale() -> Any:
    """10**(KEY_PLACES - places) by places (0..7; a key never has more than KEY_PLACES places)."""
    import numpy as np

    return np.array([10 ** max(KEY_PLACES - p, 0) for p in range(1 << KEY_PLACES_BITS)], np.int64)


@cache
def _covering(result: int) -> tuple[int, ...]:
    """Indices in legal_bets() of the bets that win when the ball lands on `result`."""
    return tuple(i for i, bet in enumerate(legal_bets()) if result in bet.numbers)


class _Payouts:
    """A round's payouts in compact form: `steps[i]` is what wagers[i] won in multiples of the
    rounding; the winners `win` (ascending) won in odds class `win_class` of `classes` (class 0
    is a loss). Outcomes are built from it on first use."""

    __slots__ = ("classes", "rounding", "steps", "win", "win_class")

    def __init__(
        self, classes: list[tuple[WinKind, Fraction]], steps: Any, win: Any, win_class: Any, rounding: Decimal
    ) -> None:
        self.classes = classes
        self.steps = steps
        self.win = win
        self.win_class = win_class
        self.rounding = rounding

    def outcomes(self) -> tuple[Outcome, ...]:
        classes, rounding = self.classes, self.rounding
        lost = Outcome(LOSE, _ZERO_ODDS, _MONEY.multiply(Decimal(0), rounding))
        out = [lost] * len(self.steps)  # most wagers lose; the winners are filled in below
        made: dict[tuple[int, int], Outcome] = {}
        win_steps = self.steps.take(self.win).tolist()
        for i, key in zip(
            self.win.tolist(), zip(self.win_class.tolist(), win_steps, strict=True), strict=True
        ):
            o = made.get(key)
            if o is None:  # wagers that settle alike share one Outcome
                kind, odds = classes[key[0]]
                o = made[key] = Outcome(kind, odds, _MONEY.multiply(Decimal(key[1]), rounding))
            out[i] = o
        return tuple(out)


def _decimal_of_units(units: int, places: int) -> Decimal:
    # Exact: every amount summed has at most `places` places (Inexact is trapped otherwise).
    return Decimal(units).scaleb(-KEY_PLACES, _MONEY).quantize(Decimal(1).scaleb(-places), context=_MONEY)


def _settle_in_units(
    wagers: tuple[Wager, ...],
    result: int,
    d: Draw,
    bonus_odds: Mapping[str, Fraction],
    rules: RulesSubmission,
) -> RoundSettlement | None:
    """settle_round on int64 arrays, or None when the round does not fit them."""
    import numpy as np

    rounding = rules.rounding
    sign, _, exponent = rounding.as_tuple()
    if sign or not rounding or not isinstance(exponent, int) or exponent < -KEY_PLACES:
        return None
    step = int(rounding.scaleb(KEY_PLACES, _MONEY))  # the rounding in minor units
    n = len(wagers)
    try:
        # A comprehension reads the slot faster than map(attrgetter) does, list included; an
        # unsigned array takes the list's ints several times faster than np.fromiter (an everyday
        # key is one machine digit, engine/bets.py), and the array's buffer becomes `keys`
        # (every key is below 2**62: the same bits as int64).
        keys = np.frombuffer(array("Q", [w.key for w in wagers]), np.int64)  # type: ignore[type-var]
    except (TypeError, OverflowError, AttributeError):  # a wager without a key (engine.bets.settle_key)
        return None

    # Per round, per legal bet: its odds class (0: loses, -1: odds by player) and exact odds.
    lucky = d.lucky.get(result)
    on_bonus = result == d.bonus_number
    bets = legal_bets()
    classes: list[tuple[WinKind, Fraction]] = [(LOSE, _ZERO_ODDS)]
    class_of_bet = np.zeros(len(bets), np.int64)
    lucky_odds: dict[int, Fraction] = {}  # X/n by bet size n: a dozen winning inside bets, five sizes
    for i in _covering(result):
        bet = bets[i]
        if bet.inside and lucky is not None:
            size = bet.size
            odds = lucky_odds.get(size)
            if odds is None:
                odds = lucky_odds[size] = lucky / size
            classes.append((LUCKY, odds))
        elif bet.inside and on_bonus:
            class_of_bet[i] = -1
            continue
        else:
            classes.append((BASE, rules.base_payout(bet)))
        class_of_bet[i] = len(classes) - 1

    # Few arrays the size of the round, and the small ones compact: fresh memory costs more
    # than the arithmetic here. The low byte of a key is its bet index (a uint8 cast wraps).
    bet_of_wager = keys.astype(np.uint8)
    win = np.flatnonzero((class_of_bet != 0).take(bet_of_wager))
    win_class = class_of_bet.take(bet_of_wager.take(win))
    by_player = np.flatnonzero(win_class < 0)
    if by_player.size:
        # One bonus outcome per player applies to all their winning inside wagers (B/n), checked
        # in wager order so the first wager without an outcome is the one reported.
        bonus_class: dict[tuple[str, int], int] = {}
        for j in by_player.tolist():
            wager = wagers[int(win[j])]
            key = (wager.player, wager.bet.size)
            c = bonus_class.get(key)
            if c is None:
                raw = bonus_odds.get(wager.player)
                if raw is None:
                    raise _missing(wager, result)
                b = check_bonus_outcome(wager.player, Fraction(raw))
                classes.append((BONUS, b / key[1]))
                c = bonus_class[key] = len(classes) - 1
            win_class[j] = c
    if any(o.numerator >= _LIMIT or o.denominator * step >= _LIMIT for _, o in classes):
        return None
    num = np.array([o.numerator for _, o in classes], np.int64).take(win_class)
    den = np.array([o.denominator * step for _, o in classes], np.int64).take(win_class)
    keys >>= KEY_INDEX_BITS  # in place (keys is ours): only the places and digits are left to read
    places = keys.astype(np.uint8) & _PLACES_MASK
    keys >>= KEY_PLACES_BITS
    keys *= _scale().take(places)  # every amount in minor units (below KEY_MAX_UNITS: settle_key)
    units = keys.take(win)
    max_product = int(units.max()) * int(num.max()) if win.size else 0
    if max_product * max(win.size, 1) >= _LIMIT:  # the products and their sum stay exact
        return None
    win_steps = units * num // den  # floor: all non-negative
    steps = np.zeros(n, np.int64)
    steps[win] = win_steps  # every wager's payout, in rounding steps

    max_places = int(places.max()) if n else 0
    win_places = int(places.take(win).max()) if win.size else 0
    total_wagered = _decimal_of_units(int(keys.sum()), max_places)
    total_paid = _MONEY.multiply(Decimal(int(win_steps.sum())), rounding)
    total_returned = _MONEY.add(total_paid, _decimal_of_units(int(units.sum()), win_places))
    payouts = _Payouts(classes, steps, win, win_class, rounding)
    return RoundSettlement(
        result, wagers, total_wagered, total_paid, total_returned, money_quantum(rules), payouts
    )


def settle_round(
    wagers: Sequence[Wager] | Iterable[Wager],
    result: int,
    draw: DrawLike,
    bonus_odds: Mapping[str, Fraction],
    rules: RulesSubmission,
) -> RoundSettlement:
    """Settle every wager of a round: the same answers as `settle_wager`, written the same way,
    computed in integer minor units where the round fits (see the module docstring), else with
    Decimals: the odds of every winning bet are worked out once per round, each payout once per
    (odds, amount), and wagers that settle alike share one immutable Outcome."""
    d = as_draw(draw)
    _check_result(result)
    wagers = tuple(wagers)
    if _INT_PATH_MIN_WAGERS <= len(wagers) < _KEY_MAX_WAGERS:
        in_units = _settle_in_units(wagers, result, d, bonus_odds, rules)
        if in_units is not None:
            return in_units
    rounding = rules.rounding
    zero = _MONEY.multiply(Decimal(0), rounding)
    lost = Outcome(LOSE, _ZERO_ODDS, zero)
    lucky = d.lucky.get(result)
    on_bonus = result == d.bonus_number
    by_numbers: dict[frozenset[int], _Odds] = {}
    bonus_classes: dict[tuple[str, int], _Odds] = {}  # (player, size) -> bonus odds
    paid: list[Decimal] = []  # payouts of the winning wagers
    staked: list[Decimal] = []  # and their stakes

    def win(w: Wager) -> Outcome:
        bet = w.bet
        # A bet's numbers identify it (and hash fast: a frozenset caches its hash), so the
        # odds of each winning bet are worked out once per round.
        o = by_numbers.get(bet.numbers)
        if o is None:
            o = by_numbers[bet.numbers] = _winning_odds(bet, lucky, on_bonus, rules)
        if o is _BY_PLAYER:
            # One bonus outcome per player applies to all their winning inside wagers (B/n).
            key = (w.player, len(bet.numbers))
            o = bonus_classes.get(key)
            if o is None:
                raw = bonus_odds.get(w.player)
                if raw is None:
                    raise _missing(w, result)
                b = check_bonus_outcome(w.player, Fraction(raw))
                o = bonus_classes[key] = _Odds(BONUS, b / key[1], rounding)
        amount = w.amount
        outcome = o.outcomes.get(amount)
        if outcome is None:  # wagers repeat chip amounts: each payout is worked out once
            # divide_int (//) truncates, which is the floor for these non-negative amounts.
            payout = (amount * o.multiplier) // o.divisor * rounding
            outcome = o.outcomes[amount] = Outcome(o.kind, o.odds, payout)
        paid.append(outcome.payout)
        staked.append(amount)
        return outcome

    # Plain operators run under the exact money context, so any inexact step raises instead
    # of rounding (see _MONEY).
    with localcontext(_MONEY):
        total_wagered = sum(map(_amount_of, wagers), Decimal(0))
        outcomes = tuple([lost if result not in w.bet.numbers else win(w) for w in wagers])
        total_paid = sum(paid, zero)
        total_returned = total_paid + sum(staked, Decimal(0))
    return RoundSettlement(
        result, wagers, total_wagered, total_paid, total_returned, money_quantum(rules), outcomes
    )
