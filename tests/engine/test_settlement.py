"""Settlement: the worked examples row by row, hand-computed tables per bet type, rounding, bonus rules."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bets import EVEN_MONEY_KINDS, Bet, BetKind, Wager, inside_bet, legal_bets, outside_bet
from engine.errors import BonusOutcomeMissing, DrrError
from engine.rng import Draw
from engine.rules import RulesSubmission, load_default_rules
from engine.settlement import payout_of, players_needing_bonus, settle_round, settle_wager

RULES = load_default_rules()


def w(bet: Bet, amount: str, player: str = "p", wid: str = "w") -> Wager:
    return Wager(wid, player, bet, Decimal(amount))


def ins(*numbers: int) -> Bet:
    return inside_bet(numbers)


# --- worked-examples.md -----------------------------------------------------------------------

EXAMPLE_DRAW = Draw({26: Fraction(299), 9: Fraction(49)}, 31)

BALL_ON_26 = [
    (ins(26), "2", "lucky", Fraction(299), "598.00"),
    (ins(26, 29), "4", "lucky", Fraction(299, 2), "598.00"),
    (ins(25, 26, 27), "1", "lucky", Fraction(299, 3), "99.66"),
    (ins(25, 26, 28, 29), "3", "lucky", Fraction(299, 4), "224.25"),
    (ins(25, 26, 27, 28, 29, 30), "2", "lucky", Fraction(299, 6), "99.66"),
    (ins(9, 12), "5", "lose", Fraction(0), "0.00"),
    (outside_bet(BetKind.BLACK), "10", "base", Fraction(1), "10.00"),
    (outside_bet(BetKind.COLUMN, 2), "5", "base", Fraction(2), "10.00"),
    (outside_bet(BetKind.LOW), "5", "lose", Fraction(0), "0.00"),
]


@pytest.mark.parametrize(("bet", "amount", "kind", "odds", "payout"), BALL_ON_26)
def test_worked_example_ball_on_lucky_26(
    bet: Bet, amount: str, kind: str, odds: Fraction, payout: str
) -> None:
    s = settle_wager(w(bet, amount), 26, EXAMPLE_DRAW, {}, RULES)
    assert (s.kind, s.odds, str(s.payout)) == (kind, odds, payout)


BALL_ON_31 = [
    ("A", ins(31), "1", "bonus", Fraction(49), "49.00"),
    ("A", ins(31, 34), "2", "bonus", Fraction(49, 2), "49.00"),
    ("B", ins(31, 32, 34, 35), "1", "bonus", Fraction(79, 4), "19.75"),
    ("B", ins(31, 32, 33, 34, 35, 36), "5", "bonus", Fraction(79, 6), "65.83"),
    ("C", ins(30), "5", "lose", Fraction(0), "0.00"),
    ("C", outside_bet(BetKind.ODD), "5", "base", Fraction(1), "5.00"),
]
BONUS_AB = {"A": Fraction(49), "B": Fraction(29 + 50)}


@pytest.mark.parametrize(("player", "bet", "amount", "kind", "odds", "payout"), BALL_ON_31)
def test_worked_example_ball_on_bonus_31(
    player: str, bet: Bet, amount: str, kind: str, odds: Fraction, payout: str
) -> None:
    s = settle_wager(w(bet, amount, player), 31, EXAMPLE_DRAW, BONUS_AB, RULES)
    assert (s.kind, s.odds, str(s.payout)) == (kind, odds, payout)


BALL_ON_30 = [
    (ins(30), "1", Fraction(29), "29.00"),
    (ins(30, 33), "1", Fraction(14), "14.00"),
    (ins(28, 29, 30), "1", Fraction(9), "9.00"),
    (ins(29, 30, 32, 33), "2", Fraction(13, 2), "13.00"),
    (ins(28, 29, 30, 31, 32, 33), "1", Fraction(4), "4.00"),
]


@pytest.mark.parametrize(("bet", "amount", "odds", "payout"), BALL_ON_30)
def test_worked_example_ball_on_plain_30(bet: Bet, amount: str, odds: Fraction, payout: str) -> None:
    s = settle_wager(w(bet, amount), 30, EXAMPLE_DRAW, {}, RULES)
    assert (s.kind, s.odds, str(s.payout)) == ("base", odds, payout)


def test_worked_examples_as_whole_rounds() -> None:
    wagers = [w(b, a, wid=f"w{i}") for i, (b, a, *_rest) in enumerate(BALL_ON_26)]
    r = settle_round(wagers, 26, EXAMPLE_DRAW, {}, RULES)
    assert [str(s.payout) for s in r.settlements] == [row[4] for row in BALL_ON_26]
    assert r.total_wagered == Decimal(2 + 4 + 1 + 3 + 2 + 5 + 10 + 5 + 5)
    assert r.total_paid == Decimal("598") * 2 + Decimal("99.66") * 2 + Decimal("224.25") + Decimal(20)
    wagers = [w(b, a, p, f"w{i}") for i, (p, b, a, *_rest) in enumerate(BALL_ON_31)]
    r = settle_round(wagers, 31, EXAMPLE_DRAW, BONUS_AB, RULES)
    assert [s.kind for s in r.settlements] == [row[3] for row in BALL_ON_31]
    assert [str(s.payout) for s in r.settlements] == [row[5] for row in BALL_ON_31]


# --- hand-computed: every bet type x lucky / bonus / base / lose -------------------------------
# Draw: Lucky 0 (99 to 1) and 20 (199 to 1); Bonus Number 14; the player's bonus outcome 130.
HAND_DRAW = Draw({0: Fraction(99), 20: Fraction(199)}, 14)
HAND_BONUS = {"p": Fraction(130)}

# (bet, result, kind, odds, payout on an amount of 3)
HAND_TABLE = [
    # straight
    (ins(20), 20, "lucky", Fraction(199), "597.00"),
    (ins(14), 14, "bonus", Fraction(130), "390.00"),
    (ins(7), 7, "base", Fraction(29), "87.00"),
    (ins(7), 8, "lose", Fraction(0), "0.00"),
    # split: 199/2 x 3 = 298.5; 130/2 x 3 = 195; 14 x 3
    (ins(17, 20), 20, "lucky", Fraction(199, 2), "298.50"),
    (ins(14, 15), 14, "bonus", Fraction(65), "195.00"),
    (ins(0, 2), 0, "lucky", Fraction(99, 2), "148.50"),
    (ins(7, 8), 8, "base", Fraction(14), "42.00"),
    (ins(7, 8), 9, "lose", Fraction(0), "0.00"),
    # street / trio: 199/3 x 3 = 199; 130/3 x 3 = 130; 99/3 x 3 = 99
    (ins(19, 20, 21), 20, "lucky", Fraction(199, 3), "199.00"),
    (ins(13, 14, 15), 14, "bonus", Fraction(130, 3), "130.00"),
    (ins(0, 1, 2), 0, "lucky", Fraction(33), "99.00"),
    (ins(0, 2, 3), 3, "base", Fraction(9), "27.00"),
    (ins(1, 2, 3), 0, "lose", Fraction(0), "0.00"),
    # corner / first four: 199/4 x 3 = 149.25; 130/4 x 3 = 97.5; 6.5 x 3 = 19.5
    (ins(16, 17, 19, 20), 20, "lucky", Fraction(199, 4), "149.25"),
    (ins(13, 14, 16, 17), 14, "bonus", Fraction(65, 2), "97.50"),
    (ins(0, 1, 2, 3), 0, "lucky", Fraction(99, 4), "74.25"),
    (ins(0, 1, 2, 3), 1, "base", Fraction(13, 2), "19.50"),
    (ins(1, 2, 4, 5), 3, "lose", Fraction(0), "0.00"),
    # six line: 199/6 x 3 = 99.5; 130/6 x 3 = 65; 4 x 3
    (ins(19, 20, 21, 22, 23, 24), 20, "lucky", Fraction(199, 6), "99.50"),
    (ins(13, 14, 15, 16, 17, 18), 14, "bonus", Fraction(65, 3), "65.00"),
    (ins(1, 2, 3, 4, 5, 6), 6, "base", Fraction(4), "12.00"),
    (ins(1, 2, 3, 4, 5, 6), 0, "lose", Fraction(0), "0.00"),
    # outside wagers are base on a Lucky or Bonus Number, and zero loses them all
    (outside_bet(BetKind.RED), 14, "base", Fraction(1), "3.00"),
    (outside_bet(BetKind.EVEN), 20, "base", Fraction(1), "3.00"),
    (outside_bet(BetKind.HIGH), 20, "base", Fraction(1), "3.00"),
    (outside_bet(BetKind.LOW), 14, "base", Fraction(1), "3.00"),
    (outside_bet(BetKind.BLACK), 14, "lose", Fraction(0), "0.00"),
    (outside_bet(BetKind.ODD), 14, "lose", Fraction(0), "0.00"),
    (outside_bet(BetKind.DOZEN, 2), 14, "base", Fraction(2), "6.00"),
    (outside_bet(BetKind.COLUMN, 2), 20, "base", Fraction(2), "6.00"),
    (outside_bet(BetKind.COLUMN, 1), 20, "lose", Fraction(0), "0.00"),
]
HAND_TABLE += [(outside_bet(k), 0, "lose", Fraction(0), "0.00") for k in sorted(EVEN_MONEY_KINDS)]
HAND_TABLE += [
    (outside_bet(k, i), 0, "lose", Fraction(0), "0.00")
    for k in (BetKind.DOZEN, BetKind.COLUMN)
    for i in (1, 2, 3)
]


@pytest.mark.parametrize(("bet", "result", "kind", "odds", "payout"), HAND_TABLE)
def test_hand_computed_table(bet: Bet, result: int, kind: str, odds: Fraction, payout: str) -> None:
    s = settle_wager(w(bet, "3"), result, HAND_DRAW, HAND_BONUS, RULES)
    assert (s.kind, s.odds, str(s.payout)) == (kind, odds, payout)
    r = settle_round([w(bet, "3")], result, HAND_DRAW, HAND_BONUS, RULES)
    assert r.settlements[0] == s


# --- rounding -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "odds", "rounding", "expected"),
    [
        ("1", Fraction(299, 3), "0.01", "99.66"),  # 99.666... down, never up
        ("0.01", Fraction(13, 2), "0.01", "0.06"),  # 0.065 down
        ("0.03", Fraction(49, 6), "0.01", "0.24"),  # 0.245 down
        ("7", Fraction(499, 6), "0.05", "582.15"),  # 582.1666... down to a 0.05 chip
        ("7", Fraction(499, 6), "1", "582"),
        ("2.5", Fraction(1), "0.01", "2.50"),
        ("1", Fraction(0), "0.01", "0.00"),
    ],
)
def test_payout_rounds_down(amount: str, odds: Fraction, rounding: str, expected: str) -> None:
    assert str(payout_of(Decimal(amount), odds, Decimal(rounding))) == expected


@settings(max_examples=300, deadline=None)
@given(
    units=st.integers(1, 10**7),
    num=st.integers(1, 5000),
    den=st.sampled_from([1, 2, 3, 4, 6]),
    rounding=st.sampled_from(["0.01", "0.05", "0.25", "1", "5"]),
)
def test_payout_is_the_exact_floor(units: int, num: int, den: int, rounding: str) -> None:
    amount = Decimal(units) * Decimal("0.01")
    r = Decimal(rounding)
    got = payout_of(amount, Fraction(num, den), r)
    exact = Fraction(amount) * Fraction(num, den)
    assert Fraction(got) <= exact < Fraction(got) + Fraction(r)
    assert Fraction(got) % Fraction(r) == 0


# --- bonus rules ----------------------------------------------------------------------------------


def test_missing_bonus_outcome_is_a_clear_error() -> None:
    with pytest.raises(BonusOutcomeMissing, match=r"wager w: player 'p' won on the Bonus Number 14"):
        settle_wager(w(ins(14), "1"), 14, HAND_DRAW, {}, RULES)
    with pytest.raises(BonusOutcomeMissing, match="bonus game must be played"):
        settle_round([w(ins(14), "1")], 14, HAND_DRAW, {"someone else": Fraction(50)}, RULES)


def test_bonus_outcome_outside_617b12_l_is_refused() -> None:
    for bad in (Fraction(28), Fraction(5000)):
        with pytest.raises(DrrError, match=r"617b\.12\(l\)"):
            settle_wager(w(ins(14), "1"), 14, HAND_DRAW, {"p": bad}, RULES)


def test_players_needing_bonus() -> None:
    wagers = [
        w(ins(14), "1", "anna", "1"),
        w(outside_bet(BetKind.RED), "1", "bob", "2"),  # outside never plays the bonus game
        w(ins(13, 14), "1", "carl", "3"),
        w(ins(10, 11, 12), "1", "dora", "4"),  # does not cover 14
        w(ins(14, 17), "1", "anna", "5"),
    ]
    assert players_needing_bonus(wagers, 14, HAND_DRAW) == ("anna", "carl")
    assert players_needing_bonus(wagers, 20, HAND_DRAW) == ()
    assert players_needing_bonus(wagers, 14, (HAND_DRAW.lucky, 14)) == ("anna", "carl")


def test_draw_may_be_given_as_lucky_mapping_and_bonus_number() -> None:
    s = settle_wager(w(ins(20), "1"), 20, ({20: Fraction(199)}, 14), {}, RULES)
    assert (s.kind, s.payout) == ("lucky", Decimal("199.00"))


def test_returned_adds_the_stake_only_on_a_win() -> None:
    win = settle_wager(w(ins(7), "2"), 7, HAND_DRAW, {}, RULES)
    lose = settle_wager(w(ins(7), "2"), 8, HAND_DRAW, {}, RULES)
    assert win.returned == Decimal("60.00")
    assert lose.returned == 0


def _rules_with(**changes: object) -> RulesSubmission:
    return RulesSubmission(**{**RULES.__dict__, **changes})  # type: ignore[arg-type]


def test_rounding_follows_the_rules_submission() -> None:
    rules = _rules_with(rounding=Decimal("1"))
    s = settle_wager(w(ins(25, 26, 27), "1"), 26, EXAMPLE_DRAW, {}, rules)
    assert str(s.payout) == "99"


# --- settle_round agrees with settle_wager on anything --------------------------------------------

ALL_BETS = legal_bets()


@settings(max_examples=200, deadline=None)
@given(
    picks=st.lists(
        st.tuples(st.sampled_from(ALL_BETS), st.integers(1, 100_000), st.sampled_from(["a", "b", "c"])),
        max_size=40,
    ),
    result=st.integers(0, 36),
    lucky=st.dictionaries(st.integers(0, 36), st.integers(49, 499), min_size=1, max_size=10),
    bonus=st.integers(0, 36),
    outcomes=st.tuples(st.integers(29, 4999), st.integers(29, 4999), st.integers(29, 4999)),
)
def test_settle_round_matches_settle_wager(
    picks: list[tuple[Bet, int, str]],
    result: int,
    lucky: dict[int, int],
    bonus: int,
    outcomes: tuple[int, int, int],
) -> None:
    lucky.pop(bonus, None)
    draw = Draw({n: Fraction(x) for n, x in lucky.items()}, bonus)
    bonus_odds = {p: Fraction(o) for p, o in zip("abc", outcomes, strict=True)}
    wagers = [Wager(f"w{i}", p, b, Decimal(c) / 100) for i, (b, c, p) in enumerate(picks)]
    r = settle_round(wagers, result, draw, bonus_odds, RULES)
    singles = [settle_wager(x, result, draw, bonus_odds, RULES) for x in wagers]
    assert list(r.settlements) == singles
    # The JSON form (written from the shared outcomes) says what each wager's record says.
    assert r.to_wire()["wagers"] == [x.to_wire() for x in singles]
    assert r.total_wagered == sum((x.amount for x in wagers), Decimal(0))
    assert r.total_paid == sum((s.payout for s in singles), Decimal(0))
    assert r.total_returned == sum((s.returned for s in singles), Decimal(0))
    for s in singles:
        assert s.payout >= 0
        assert (s.kind == "lose") == (result not in s.wager.bet.numbers)
        if s.kind == "lucky":
            assert s.wager.bet.inside and result in draw.lucky


def test_settle_round_takes_any_iterable_of_wagers() -> None:
    wagers = [w(ins(26), "2", wid="a"), w(outside_bet(BetKind.BLACK), "10", wid="b")]
    r = settle_round(iter(wagers), 26, EXAMPLE_DRAW, {}, RULES)  # type: ignore[arg-type]
    assert [s.wager.id for s in r.settlements] == ["a", "b"]
    assert (r.total_wagered, r.total_paid) == (Decimal(12), Decimal("608.00"))


# --- a bonus outcome priced onto the result's settlement (engine.table.settlements) --------------


@pytest.mark.parametrize("count", [7, 300])  # the Decimal path, and the int64 path from 256 wagers
def test_bonus_outcomes_priced_onto_a_settlement_are_what_settle_round_pays(count: int) -> None:
    from engine.settlement import BONUS_OUTCOME_MIN, with_bonus_outcomes

    bets = [b for b in legal_bets() if 31 in b.numbers] + [outside_bet(BetKind.RED), ins(5)]
    wagers = [
        w(bets[i % len(bets)], str(Decimal(1 + i % 9) + Decimal("0.5") * (i % 2)), f"p{i % 3}", f"w{i}")
        for i in range(count)
    ]
    players = {x.player for x in wagers if x.bet.inside and 31 in x.bet.numbers}
    standing = settle_round(wagers, 31, EXAMPLE_DRAW, dict.fromkeys(players, BONUS_OUTCOME_MIN), RULES)
    odds = {p: Fraction(130 + 7 * k) for k, p in enumerate(sorted(players))}
    for known in ({next(iter(sorted(players))): odds[min(players)]}, odds):
        stood = {**dict.fromkeys(players, BONUS_OUTCOME_MIN), **known}
        priced = with_bonus_outcomes(standing, stood, RULES)
        fresh = settle_round(wagers, 31, EXAMPLE_DRAW, stood, RULES)
        assert priced == fresh and priced.settlements == fresh.settlements
        # Written the same way: the journal's round.settled carries these strings.
        assert priced.to_wire() == fresh.to_wire()
        assert (str(priced.total_paid), str(priced.total_returned)) == (
            str(fresh.total_paid),
            str(fresh.total_returned),
        )
    assert with_bonus_outcomes(standing, {}, RULES) is standing
