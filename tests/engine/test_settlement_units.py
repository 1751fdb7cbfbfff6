"""Settlement in integer minor units: the int64 path of settle_round gives, digit for digit, what
the exact Decimal path gives (payouts, kinds, odds, totals and how they are written), and rounds
that do not fit it fall back to the Decimal path."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import settlement
from engine.bets import (
    KEY_INDEX_BITS,
    KEY_MAX_UNITS,
    KEY_PLACES,
    KEY_PLACES_BITS,
    Bet,
    BetKind,
    Wager,
    inside_bet,
    legal_bets,
    outside_bet,
)
from engine.errors import BonusOutcomeMissing
from engine.rng import Draw
from engine.rules import RulesSubmission, load_default_rules
from engine.settlement import RoundSettlement, settle_round, settle_wager

RULES = load_default_rules()
ALL_BETS = legal_bets()
DRAW = Draw({17: Fraction(199), 5: Fraction(49), 30: Fraction(99)}, 8)


def _rules_with(**changes: object) -> RulesSubmission:
    return RulesSubmission(**{**RULES.__dict__, **changes})  # type: ignore[arg-type]


@contextmanager
def _decimal_path_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as m:
        m.setattr(settlement, "_settle_in_units", lambda *args: None)
        yield


def _written(r: RoundSettlement) -> tuple[object, ...]:
    """Everything a settlement says, as text, so equal values written differently do not match."""
    return (
        str(r.total_wagered),
        str(r.total_paid),
        str(r.total_returned),
        [(o.kind, o.odds, str(o.payout)) for o in r.outcomes],
        r.to_wire(),
    )


def _both_paths(
    wagers: Sequence[Wager],
    result: int,
    draw: Draw,
    bonus_odds: dict[str, Fraction],
    rules: RulesSubmission,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[RoundSettlement | None, RoundSettlement]:
    """The round settled by the integer path (None if it does not fit) and by the Decimal path."""
    fast = settlement._settle_in_units(tuple(wagers), result, draw, bonus_odds, rules)
    with _decimal_path_only(monkeypatch):
        exact = settle_round(wagers, result, draw, bonus_odds, rules)
    return fast, exact


# Amounts written with 0 to KEY_PLACES places and as exponents, as a wire or a test may give them.
AMOUNTS = st.one_of(
    st.integers(0, 10**6).map(lambda c: Decimal(c) / 100),
    st.integers(1, 10**7).map(lambda c: Decimal(c).scaleb(-KEY_PLACES)),
    st.integers(1, 500).map(lambda c: Decimal(f"{c}.0")),
    st.integers(1, 9).map(lambda c: Decimal(f"{c}E+2")),
)
ROUNDINGS = st.sampled_from(["0.01", "0.05", "0.25", "1", "5", "0.0001"]).map(Decimal)


@settings(max_examples=300, deadline=None)
@given(
    picks=st.lists(st.tuples(st.sampled_from(ALL_BETS), AMOUNTS, st.sampled_from("abc")), max_size=60),
    result=st.integers(0, 36),
    lucky=st.dictionaries(st.integers(0, 36), st.integers(49, 4999), min_size=1, max_size=10),
    bonus=st.integers(0, 36),
    outcomes=st.tuples(*[st.fractions(29, 4999, max_denominator=1000)] * 3),
    rounding=ROUNDINGS,
)
def test_integer_path_writes_what_the_decimal_path_writes(
    picks: list[tuple[Bet, Decimal, str]],
    result: int,
    lucky: dict[int, int],
    bonus: int,
    outcomes: tuple[Fraction, Fraction, Fraction],
    rounding: Decimal,
) -> None:
    lucky.pop(bonus, None)
    draw = Draw({n: Fraction(x) for n, x in lucky.items()}, bonus)
    bonus_odds = dict(zip("abc", outcomes, strict=True))
    rules = _rules_with(rounding=rounding, unit=Decimal(1).scaleb(-KEY_PLACES))  # every amount drawn
    wagers = [Wager(f"w{i}", p, b, a) for i, (b, a, p) in enumerate(picks)]
    assert all(x.key is not None for x in wagers)
    with pytest.MonkeyPatch.context() as mp:
        fast, exact = _both_paths(wagers, result, draw, bonus_odds, rules, mp)
    assert fast is not None
    assert _written(fast) == _written(exact)
    assert fast == exact and hash(fast) == hash(exact)
    assert list(fast.settlements) == [settle_wager(x, result, draw, bonus_odds, rules) for x in wagers]


def _losers(n: int) -> list[Wager]:
    """n ordinary wagers that lose on 17: enough of them make settle_round try the integer path."""
    return [Wager(f"pad{i}", "pad", inside_bet([1]), Decimal("1")) for i in range(n)]


def test_settle_round_takes_the_integer_path_for_large_rounds_only() -> None:
    small = settle_round(_losers(settlement._INT_PATH_MIN_WAGERS - 1), 17, DRAW, {}, RULES)
    assert isinstance(small.source, tuple)
    large = settle_round(_losers(settlement._INT_PATH_MIN_WAGERS), 17, DRAW, {}, RULES)
    assert isinstance(large.source, settlement._Payouts)


def test_the_integer_path_settles_ordinary_rounds() -> None:
    wagers = tuple(Wager(f"w{i}", "p", b, Decimal("2.50")) for i, b in enumerate(ALL_BETS))
    fast = settlement._settle_in_units(wagers, 17, DRAW, {}, RULES)
    assert fast is not None
    # 17 is Lucky at 199: the straight pays 2.50 x 199.
    straight = next(s for s in fast.settlements if s.wager.bet == inside_bet([17]))
    assert (straight.kind, str(straight.payout)) == ("lucky", "497.50")
    assert str(fast.total_wagered) == str(Decimal("2.50") * len(ALL_BETS))


def test_every_wager_payout_is_worked_out_before_settlement_returns() -> None:
    wagers = (
        Wager("a", "p", inside_bet([17]), Decimal("1")),
        Wager("b", "p", outside_bet(BetKind.RED), Decimal("3")),
        Wager("c", "p", outside_bet(BetKind.BLACK), Decimal("3")),
    )
    r = settlement._settle_in_units(wagers, 17, DRAW, {}, RULES)
    assert r is not None and isinstance(r.source, settlement._Payouts)
    assert r.source.steps.tolist() == [19900, 0, 300]  # in steps of the 0.01 rounding, 17 is black


def _settles_like_each_wager(
    wagers: list[Wager], result: int, draw: Draw, bonus_odds: dict[str, Fraction], rules: RulesSubmission
) -> RoundSettlement:
    """settle_round of a round too large for the Decimal-only shortcut, checked wager by wager."""
    r = settle_round(wagers, result, draw, bonus_odds, rules)
    singles = [settle_wager(x, result, draw, bonus_odds, rules) for x in wagers]
    assert list(r.settlements) == singles
    assert [str(s.payout) for s in r.settlements] == [str(s.payout) for s in singles]
    assert r.total_paid == sum((s.payout for s in singles), Decimal(0))
    return r


@pytest.mark.parametrize(
    ("amount", "why"),
    [
        ("0.00001", "more places than KEY_PLACES"),
        (str(Decimal(KEY_MAX_UNITS).scaleb(-KEY_PLACES)), "too many minor units"),
        ("1E+13", "exponent too large"),
    ],
)
def test_amounts_that_do_not_fit_settle_by_the_decimal_path(amount: str, why: str) -> None:
    big = Wager("big", "p", inside_bet([17]), Decimal(amount))
    small = Wager("small", "p", outside_bet(BetKind.BLACK), Decimal("2"))
    assert big.key is None, why
    wagers = [big, small, *_losers(settlement._INT_PATH_MIN_WAGERS)]
    assert settlement._settle_in_units(tuple(wagers), 17, DRAW, {}, RULES) is None
    r = _settles_like_each_wager(wagers, 17, DRAW, {}, RULES)
    assert r.total_wagered == Decimal(amount) + 2 + settlement._INT_PATH_MIN_WAGERS


def test_a_hand_made_bet_or_a_finer_rounding_settles_by_the_decimal_path() -> None:
    odd_bet = Wager("x", "p", Bet(BetKind.STRAIGHT, frozenset({17}), which=9), Decimal("1"))
    assert odd_bet.key is None
    r = _settles_like_each_wager([odd_bet, *_losers(settlement._INT_PATH_MIN_WAGERS)], 17, DRAW, {}, RULES)
    assert str(r.total_paid) == "199.00"
    fine = _rules_with(rounding=Decimal("0.00001"))
    wagers = [Wager("y", "p", inside_bet([17]), Decimal("0.03")), *_losers(settlement._INT_PATH_MIN_WAGERS)]
    assert settlement._settle_in_units(tuple(wagers), 17, DRAW, {}, fine) is None
    assert str(_settles_like_each_wager(wagers, 17, DRAW, {}, fine).total_paid) == "5.97000"


def test_products_that_could_overflow_int64_fall_back() -> None:
    # A bonus outcome with a 15-digit denominator has a numerator near 2**59: times the units of
    # an ordinary amount that leaves int64, so the round is settled with Decimals, still exactly.
    odd_outcome = Fraction(4999 * 10**14 - 1, 10**14)
    wagers = [
        Wager("w", "p", inside_bet([8]), Decimal("3.00")),
        Wager("v", "q", inside_bet([9]), Decimal("1")),
        *_losers(settlement._INT_PATH_MIN_WAGERS),
    ]
    assert settlement._settle_in_units(tuple(wagers), 8, DRAW, {"p": odd_outcome}, RULES) is None
    r = _settles_like_each_wager(wagers, 8, DRAW, {"p": odd_outcome}, RULES)
    assert str(r.total_paid) == "14996.99"  # 3 x 4998.99999999999999 rounded down to 0.01
    top = Wager("top", "p", inside_bet([17]), Decimal(KEY_MAX_UNITS - 1).scaleb(-KEY_PLACES))
    lucky_top = settlement._settle_in_units((top,), 17, Draw({17: Fraction(4999)}, 8), {}, RULES)
    assert lucky_top is not None  # the largest key still fits at 4,999 to 1
    assert lucky_top.total_paid == (top.amount * 4999).quantize(Decimal("0.01"), rounding="ROUND_FLOOR")


def test_missing_bonus_outcome_names_the_first_wager_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    wagers = [
        Wager("lose", "zed", inside_bet([1]), Decimal("1")),
        Wager("first", "anna", inside_bet([7, 8]), Decimal("1")),
        Wager("second", "bob", inside_bet([8]), Decimal("1")),
    ]
    with pytest.raises(BonusOutcomeMissing, match="wager first: player 'anna' won on the Bonus Number 8"):
        settlement._settle_in_units(tuple(wagers), 8, DRAW, {"bob": Fraction(40)}, RULES)
    fast, exact = _both_paths(
        wagers, 8, DRAW, {"anna": Fraction(41), "bob": Fraction(40)}, RULES, monkeypatch
    )
    assert fast is not None and _written(fast) == _written(exact)
    assert [(o.kind, o.odds, str(o.payout)) for o in fast.outcomes] == [
        ("lose", Fraction(0), "0.00"),
        ("bonus", Fraction(41, 2), "20.50"),
        ("bonus", Fraction(40), "40.00"),
    ]


def test_settle_key_packs_digits_places_and_bet_index() -> None:
    bet = outside_bet(BetKind.DOZEN, 2)
    w = Wager("w", "p", bet, Decimal("12.50"))
    assert w.key is not None
    assert w.key & ((1 << KEY_INDEX_BITS) - 1) == ALL_BETS.index(bet)
    assert (w.key >> KEY_INDEX_BITS) & ((1 << KEY_PLACES_BITS) - 1) == 2
    assert w.key >> (KEY_INDEX_BITS + KEY_PLACES_BITS) == 1250  # the amount's digits at its places
    # The key is derived: it takes no part in a wager's identity and follows a replaced amount.
    assert w == Wager("w", "p", bet, Decimal("12.5")) and "key" not in repr(w)
    moved = dataclasses.replace(w, amount=Decimal("3"))
    assert moved.key is not None and moved.key >> (KEY_INDEX_BITS + KEY_PLACES_BITS) == 3
    assert Wager("w", "p", bet, Decimal("3E+2")).key >> (KEY_INDEX_BITS + KEY_PLACES_BITS) == 300  # type: ignore[operator]
    # An everyday amount's key is one machine digit of a Python int (the settlement reads those fast).
    assert Wager("w", "p", bet, Decimal("5242.87")).key < 1 << 30  # type: ignore[operator]
    for refused in ("-1", "NaN", "Infinity", "-0"):
        assert Wager("w", "p", bet, Decimal(refused)).key is None
