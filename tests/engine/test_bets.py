"""Legal bets: every one enumerated and counted, illegal shapes and amounts refused with a reason."""

from __future__ import annotations

import itertools
from collections import Counter
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.bets import (
    INSIDE_BETS,
    BetKind,
    check_amount,
    inside_bet,
    legal_bets,
    outside_bet,
    wager_from_wire,
)
from engine.errors import IllegalWager
from engine.wheel_layout import BLACK, RED

UNIT = Decimal("0.01")


def test_every_legal_bet_is_counted() -> None:
    counts = Counter(b.kind for b in legal_bets())
    assert counts == {
        BetKind.STRAIGHT: 37,
        BetKind.SPLIT: 60,
        BetKind.STREET: 12,
        BetKind.TRIO: 2,
        BetKind.CORNER: 22,
        BetKind.FIRST_FOUR: 1,
        BetKind.SIX_LINE: 11,
        BetKind.RED: 1,
        BetKind.BLACK: 1,
        BetKind.ODD: 1,
        BetKind.EVEN: 1,
        BetKind.LOW: 1,
        BetKind.HIGH: 1,
        BetKind.DOZEN: 3,
        BetKind.COLUMN: 3,
    }


def test_switches_remove_trios_and_first_four() -> None:
    kinds = Counter(b.kind for b in legal_bets(trios=False, first_four=False))
    assert BetKind.TRIO not in kinds and BetKind.FIRST_FOUR not in kinds
    assert len(legal_bets(trios=False, first_four=False)) == len(legal_bets()) - 3
    with pytest.raises(ValueError, match="trio bets are not offered"):
        inside_bet([0, 1, 2], trios=False)
    with pytest.raises(ValueError, match="first-four bet is not offered"):
        inside_bet([0, 1, 2, 3], first_four=False)


def test_splits_are_exactly_the_adjacent_pairs_of_the_layout() -> None:
    def adjacent(a: int, b: int) -> bool:
        a, b = min(a, b), max(a, b)
        if a == 0:
            return b in (1, 2, 3)
        return b - a == 3 or (b - a == 1 and a % 3 != 0)

    expected = {frozenset(p) for p in itertools.combinations(range(37), 2) if adjacent(*p)}
    assert {b.numbers for b in legal_bets() if b.kind is BetKind.SPLIT} == expected


def test_sizes_and_coverage() -> None:
    sizes = {BetKind.STRAIGHT: 1, BetKind.SPLIT: 2, BetKind.STREET: 3, BetKind.TRIO: 3}
    sizes |= {BetKind.CORNER: 4, BetKind.FIRST_FOUR: 4, BetKind.SIX_LINE: 6}
    for bet in legal_bets():
        if bet.inside:
            assert bet.size == sizes[bet.kind]
        else:
            assert 0 not in bet.numbers  # zero loses every outside wager
            assert bet.size in (12, 18)
    assert outside_bet(BetKind.RED).numbers == RED
    assert outside_bet(BetKind.BLACK).numbers == BLACK
    assert outside_bet(BetKind.COLUMN, 2).numbers == frozenset(range(2, 36, 3))
    assert outside_bet(BetKind.DOZEN, 3).numbers == frozenset(range(25, 37))


@pytest.mark.parametrize(
    ("numbers", "reason"),
    [
        ([1, 5], "do not form a legal inside bet"),
        ([3, 4], "do not form a legal inside bet"),  # not adjacent across a street end
        ([0, 4], "do not form a legal inside bet"),
        ([1, 2, 4], "do not form a legal inside bet"),
        ([2, 3, 5, 6, 8], "do not form a legal inside bet"),
        ([0, 1, 3], "do not form a legal inside bet"),
        ([37], "outside 0-36"),
        ([-1], "outside 0-36"),
        ([1, 1], "repeat"),
        ([1.0], "not a whole number"),
        (["1"], "not a whole number"),
        ([True], "not a whole number"),
        ([], "do not form"),
    ],
)
def test_illegal_shapes_are_refused(numbers: list[object], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        inside_bet(numbers)


@given(st.sets(st.integers(0, 36), min_size=1, max_size=6))
def test_any_number_set_is_legal_exactly_when_enumerated(numbers: set[int]) -> None:
    key = frozenset(numbers)
    if key in INSIDE_BETS:
        assert inside_bet(sorted(numbers)).numbers == key
    else:
        with pytest.raises(ValueError):
            inside_bet(sorted(numbers))


@pytest.mark.parametrize(
    ("amount", "ok"),
    [
        ("5", True),
        (5, True),
        ("0.01", True),
        ("1.10", True),
        ("0.001", False),
        ("0", False),
        ("-5", False),
        (-5, False),
        (0.5, False),
        ("abc", False),
        ("NaN", False),
        ("Infinity", False),
        (None, False),
    ],
)
def test_amounts(amount: object, ok: bool) -> None:
    if ok:
        assert check_amount(amount, UNIT) == Decimal(str(amount))
    else:
        with pytest.raises(ValueError):
            check_amount(amount, UNIT)


def test_amount_must_be_a_multiple_of_the_unit() -> None:
    assert check_amount("2.50", Decimal("0.50")) == Decimal("2.5")
    with pytest.raises(ValueError, match=r"multiple of the wager unit 0\.50"):
        check_amount("2.25", Decimal("0.50"))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"id": "w9", "player": "a", "bet": "split", "numbers": [1, 5], "amount": "1"},
            "wager w9: numbers 1-5",
        ),
        (
            {"id": "w9", "player": "a", "bet": "street", "numbers": [1, 2], "amount": "1"},
            "form a split, not a street",
        ),
        ({"id": "w9", "player": "a", "bet": "dozen", "which": 4, "amount": "1"}, "which = 1, 2 or 3"),
        ({"id": "w9", "player": "a", "bet": "column", "amount": "1"}, "which = 1, 2 or 3"),
        ({"id": "w9", "player": "a", "bet": "lucky", "amount": "1"}, "unknown bet 'lucky'"),
        ({"id": "w9", "player": "a", "bet": "red", "amount": 1.5}, "not a float"),
        ({"id": "w9", "player": "a", "bet": "red", "amount": "0"}, "not positive"),
        ({"id": "w9", "bet": "red", "amount": "1"}, "wager w9: has no player"),
        ({"id": "w9", "player": "a", "bet": "straight", "numbers": 7, "amount": "1"}, "list of numbers"),
        ({"id": "w9", "player": "a", "bet": "red", "amount": "NaN"}, "not a finite number"),
        ({"id": "w9", "player": "a", "bet": "red", "amount": "-Infinity"}, "not a finite number"),
        # More digits than an exact remainder by the unit can hold: refused, never rounded.
        ({"id": "w9", "player": "a", "bet": "red", "amount": "1" * 40}, "too large"),
        ({"id": "w9", "player": "a", "bet": "red", "amount": "1", "stake": "2"}, r"unknown field\(s\) stake"),
        ({"id": "w9", "player": "a", "bet": "odd", "which": 1, "amount": "1"}, "odd takes no which"),
    ],
)
def test_wire_wagers_name_the_wager_and_the_reason(data: dict[str, object], message: str) -> None:
    with pytest.raises(IllegalWager, match=message) as info:
        wager_from_wire(data, unit=UNIT)
    assert info.value.exit_code == 2


def test_wire_trio_is_a_street_and_first_four_a_corner() -> None:
    trio = wager_from_wire(
        {"id": "t", "player": "a", "bet": "street", "numbers": [0, 1, 2], "amount": "1"}, unit=UNIT
    )
    assert trio.bet.kind is BetKind.TRIO
    ff = wager_from_wire(
        {"id": "f", "player": "a", "bet": "corner", "numbers": [0, 1, 2, 3], "amount": "1"}, unit=UNIT
    )
    assert ff.bet.kind is BetKind.FIRST_FOUR
    for bet in legal_bets():
        back = wager_from_wire({"id": "x", "player": "a", "amount": "1", **bet.to_wire()}, unit=UNIT)
        assert back.bet == bet


def test_bet_from_wire_cache_keeps_refusing_what_only_equals_a_good_wire_form() -> None:
    """Each spot's Bet is built once (bets.bet_from_wire's cache), but True == 1 and 17.0 == 17 to a
    dict: a wire form refused before must still be refused after an equal good one is cached."""
    import pytest

    from engine.bets import bet_from_wire

    dozen = bet_from_wire({"bet": "dozen", "which": 1})
    assert bet_from_wire({"bet": "dozen", "which": 1}) is dozen  # the cached one
    with pytest.raises(ValueError, match="which"):
        bet_from_wire({"bet": "dozen", "which": True})
    assert bet_from_wire({"bet": "straight", "numbers": [17]}).numbers == frozenset({17})
    with pytest.raises(ValueError):
        bet_from_wire({"bet": "straight", "numbers": [17.0]})
    with pytest.raises(ValueError, match="takes no numbers"):
        bet_from_wire({"bet": "red", "numbers": []})
    assert bet_from_wire({"bet": "red"}) == bet_from_wire({"bet": "red"})
    with pytest.raises(ValueError):  # unhashable: checked the long way, refused as before
        bet_from_wire({"bet": "straight", "numbers": [[17]]})
