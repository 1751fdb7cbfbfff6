"""Settlement of wagers: what each wager wins, exactly, and why (§ 617b.12(f), (g), (l)).

Public API (used by the table service, `drr settle` and the game math):

- `settle_wager(wager, result, draw, bonus_odds, rules) -> Settlement`: one wager.
- `settle_round(wagers, result, draw, bonus_odds, rules) -> RoundSettlement`: every wager
  of a round, with `total_wagered` and `total_paid`.
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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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
from functools import cached_property
from itertools import repeat
from operator import add, attrgetter
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from engine.errors import BonusOutcomeMissing, DrrError
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
        odds = self.odds
        return {
            "id": self.wager.id,
            "kind": self.kind,
            "odds": str(odds.numerator) if odds.denominator == 1 else f"{odds.numerator}/{odds.denominator}",
            "payout": str(self.payout),
        }


class Outcome(NamedTuple):
    """What a wager won, without the wager: shared by every wager of a round that settles alike
    (all losing wagers share one, winners one per winning bet class and amount)."""

    kind: WinKind
    odds: Fraction
    payout: Decimal


@dataclass(frozen=True)
class RoundSettlement:
    """Every wager of a round settled, in the order given.

    `outcomes[i]` is what `wagers[i]` won; `settlements` pairs them up as Settlement records
    (built on first use: replay and totals need only the outcomes)."""

    result: int
    wagers: tuple[Wager, ...]
    outcomes: tuple[Outcome, ...]
    total_wagered: Decimal
    total_paid: Decimal  # what the wagers won; stakes not included
    total_returned: Decimal  # handed back to players: winnings plus the stakes of winning wagers
    money_quantum: Decimal = Decimal("0.01")  # money in to_wire() is written to this many places

    @cached_property
    def settlements(self) -> tuple[Settlement, ...]:
        # (wager,) + (kind, odds, payout) -> Settlement, all in C (no Python frame per wager).
        records = map(add, zip(self.wagers), self.outcomes)
        return tuple(map(tuple.__new__, repeat(Settlement), records))

    def to_wire(self) -> dict[str, Any]:
        """The `drr settle` output; every amount written to the same number of places."""
        q = self.money_quantum
        wire = []
        for w, o in zip(self.wagers, self.outcomes, strict=True):
            odds = o.odds
            wire.append(
                {
                    "id": w.id,
                    "kind": o.kind,
                    "odds": str(odds.numerator)
                    if odds.denominator == 1
                    else f"{odds.numerator}/{odds.denominator}",
                    "payout": str(_quantize(o.payout, q)),
                }
            )
        return {
            "result": self.result,
            "wagers": wire,
            "total_wagered": str(_quantize(self.total_wagered, q)),
            "total_paid": str(_quantize(self.total_paid, q)),
        }


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


def settle_round(
    wagers: Sequence[Wager] | Iterable[Wager],
    result: int,
    draw: DrawLike,
    bonus_odds: Mapping[str, Fraction],
    rules: RulesSubmission,
) -> RoundSettlement:
    """Settle every wager of a round. Same answers as `settle_wager`, computed faster: the odds
    of every winning bet are worked out once per round, each payout once per (odds, amount),
    and wagers that settle alike share one immutable Outcome (most of a round's wagers lose)."""
    d = as_draw(draw)
    _check_result(result)
    wagers = tuple(wagers)
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
        result, wagers, outcomes, total_wagered, total_paid, total_returned, money_quantum(rules)
    )
