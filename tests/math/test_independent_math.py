"""An independent check of the exact game math, by other methods than engine/math uses.

- The return of an inside wager is enumerated draw by draw: how many Lucky Numbers k, how
  many of them fall on the wager's numbers (hypergeometric), whether the Bonus Number falls
  on the rest, where the ball lands, and every Lucky odds X, all with exact fractions.
  engine/math instead uses linearity (a winning number is Lucky with probability E[k]/37).
- The bonus game is valued by a brute-force expectimax over every box layout of every
  round, the player choosing a box (or cash-out) before the boxes are opened, keyed by the
  full history of picks. engine/math uses a DP over (round, sum, round-1 multiplier) that
  assumes a pick is just a draw from the round's table with probability m/5.
- The absent player (`cash_out_at_3`) is played through the engine's own BonusGame with its
  timer running out in every round (§ 617b.12(i)): random picks in rounds 1-2, then the
  default preset cashes out at round 3.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from engine.bets import Wager, inside_bet
from engine.bonus_game import BonusGame
from engine.math.bonus_value import STRATEGIES, BonusAnalysis, Strategy
from engine.math.wager_math import game_math
from engine.rng import Draw, SeededRng, draw_lucky_and_bonus
from engine.rules import RulesSubmission, default_rules_path, load_default_rules, load_rules, parse_rules
from engine.settlement import settle_round

WORKED = Path(__file__).parents[1] / "data" / "worked-example-rules.toml"
MULTIPLIERS_PER_ROUND = (5, 4, 3, 2, 2, 1)  # § 617b.12(h)(1)-(5), restated here on purpose
X = "X"

# --- the bonus game by brute force over box layouts ------------------------------------------

Layout = tuple[Fraction | str, ...]


def _layouts(table: Mapping[Fraction, int], multipliers: int) -> list[tuple[Layout, Fraction]]:
    """Every arrangement of a round's five boxes with its probability: the X boxes anywhere
    (every choice of positions equally likely), each multiplier drawn from the table."""
    total = sum(table.values())
    values = [(Fraction(v), Fraction(w, total)) for v, w in table.items()]
    slots = list(itertools.combinations(range(5), multipliers))
    out = []
    for where in slots:
        for picks in itertools.product(values, repeat=multipliers):
            boxes: list[Fraction | str] = [X] * 5
            p = Fraction(1, len(slots))
            for pos, (v, q) in zip(where, picks, strict=True):
                boxes[pos] = v
                p *= q
            out.append((tuple(boxes), p))
    assert sum(p for _, p in out) == 1
    return out


def brute_force_bonus(rules: RulesSubmission, strategy: Strategy) -> Fraction:
    """Expected straight-up bonus outcome under `strategy`, by expectimax over box layouts."""
    layouts = [_layouts(t, m) for t, m in zip(rules.bonus_rounds, MULTIPLIERS_PER_ROUND, strict=True)]

    @cache
    def value(history: tuple[Fraction, ...]) -> Fraction:
        rnd = len(history) + 1  # the round about to be played
        if rnd > 6:
            return sum(history, Fraction(0))  # survived round 6: the sum of all picks
        box_values = []
        for box in range(5):
            v = Fraction(0)
            for boxes, p in layouts[rnd - 1]:
                content = boxes[box]
                # An X pays the round-1 multiplier (§ 617b.12(k)); round 1 has no X.
                v += p * (history[0] if content == X else value((*history, Fraction(content))))
            box_values.append(v)
        cash = sum(history, Fraction(0))  # § 617b.12(j): offered following round 2
        if strategy is Strategy.CASH_OUT_AT_3:
            # Absent: the timer picks a random box in rounds 1-2, the default cashes out after.
            return cash if rnd >= 3 else sum(box_values, Fraction(0)) / 5
        if strategy is Strategy.PLAY_TO_END:
            return max(box_values)
        return max([*box_values, cash]) if rnd >= 3 else max(box_values)

    return value(())


def _small_rules() -> RulesSubmission:
    """A game small enough to enumerate, with cash-out decisions that go both ways."""
    text = WORKED.read_text(encoding="utf-8")
    start = text.index("rounds = [")
    small = """rounds = [
    { 29 = 2, 59 = 1 },
    { 20 = 1, 80 = 1 },
    { 30 = 3, 150 = 1 },
    { 100 = 1, 400 = 1 },
    { 200 = 2, 900 = 1 },
    { 500 = 1, 3000 = 1 },
]
"""
    return parse_rules((text[:start] + small).encode())


@pytest.mark.parametrize("which", ["worked-example", "small"])
def test_bonus_dp_equals_brute_force_expectimax_over_layouts(which: str) -> None:
    rules = load_rules(WORKED) if which == "worked-example" else _small_rules()
    analysis = BonusAnalysis.from_rules(rules)
    brute = {s: brute_force_bonus(rules, s) for s in STRATEGIES}
    for strategy in STRATEGIES:
        assert analysis.value(strategy).mean == brute[strategy], strategy
    if which == "worked-example":  # the figures of /work/shared/docs/worked-examples.md
        assert brute[Strategy.CASH_OUT_AT_3] == 74
        assert brute[Strategy.PLAY_TO_END] == Fraction("63.3888")
        assert brute[Strategy.OPTIMAL] == Fraction("104.130816")
    else:  # the small game's optimal player both goes on and cashes out somewhere
        policy = analysis.optimal_policy()
        assert any(p.cash_out_min_at_risk is not None for p in policy)
        assert any(p.continue_max_at_risk is not None for p in policy)


# --- the wager's return, draw by draw ---------------------------------------------------------


Moments = tuple[Fraction, Fraction]  # (E[Y], E[Y^2])


def _independent_bonus_moments(rules: RulesSubmission) -> dict[Strategy, Moments]:
    """(E[B], E[B^2]) per strategy by a plain backward recursion over (round, sum, round-1
    multiplier) written from § 617b.12(h)-(k) alone (the default tables are too big for the
    layout brute force); the optimal player cashes out when that is worth at least going on."""
    tables = [[(Fraction(v), Fraction(w, sum(t.values()))) for v, w in t.items()] for t in rules.bonus_rounds]

    def solve(strategy: Strategy) -> Moments:
        @cache
        def v(rnd: int, total: Fraction, first: Fraction) -> Moments:
            if rnd == 7:
                return total, total * total
            m = MULTIPLIERS_PER_ROUND[rnd - 1]
            after = [(p, v(rnd + 1, total + x, x if rnd == 1 else first)) for x, p in tables[rnd - 1]]
            go_mean = Fraction(5 - m, 5) * first + Fraction(m, 5) * sum(
                (p * e for p, (e, _) in after), Fraction(0)
            )
            go_sq = Fraction(5 - m, 5) * first * first + Fraction(m, 5) * sum(
                (p * e2 for p, (_, e2) in after), Fraction(0)
            )
            stop = rnd >= 3 and (
                strategy is Strategy.CASH_OUT_AT_3 or (strategy is Strategy.OPTIMAL and total >= go_mean)
            )
            return (total, total * total) if stop else (go_mean, go_sq)

        return v(1, Fraction(0), Fraction(0))

    return {s: solve(s) for s in STRATEGIES}


def enumerated_moments(rules: RulesSubmission, numbers: Sequence[int], bonus: Moments) -> Moments:
    """(E[R], E[R^2]) of one unit on an inside wager, R its return, enumerating k, |Lucky ∩
    wager| = j, the Bonus Number's place, the ball and X. Counts are whole-set combinatorics."""
    n = len(numbers)
    base = rules.base_payout(inside_bet(numbers))
    b_mean, b_sq = bonus
    k_total = sum(rules.lucky_counts.values())
    x_total = sum(rules.lucky_odds.values())
    mean = second = Fraction(0)
    for k, kw in rules.lucky_counts.items():
        p_k = Fraction(kw, k_total)
        for j in range(0, min(k, n) + 1):
            # Lucky sets with exactly j of the wager's numbers, out of all C(37, k).
            p_j = Fraction(math.comb(n, j) * math.comb(37 - n, k - j), math.comb(37, k))
            if p_j == 0:
                continue
            # The Bonus Number is one of the 37 - k numbers that are not Lucky.
            for on_wager in (True, False):
                p_b = Fraction(n - j if on_wager else 37 - k - n + j, 37 - k)
                if p_b == 0:
                    continue
                w = p_k * p_j * p_b
                # The ball lands on each of the 37 numbers with probability 1/37.
                for x, xw in rules.lucky_odds.items():  # a Lucky result pays X/n to 1
                    r = 1 + Fraction(x) / n
                    q = w * Fraction(j, 37) * Fraction(xw, x_total)
                    mean += q * r
                    second += q * r * r
                if on_wager:  # pays B/n to 1
                    q = w * Fraction(1, 37)
                    mean += q * (1 + b_mean / n)
                    second += q * (1 + 2 * b_mean / n + b_sq / (n * n))
                q = w * Fraction(n - j - on_wager, 37)
                mean += q * (1 + base)
                second += q * (1 + base) ** 2
    return mean, second


@pytest.mark.parametrize(
    "kind, numbers",
    [
        ("straight", [17]),
        ("corner", [17, 18, 20, 21]),
        ("six_line", list(range(16, 22))),
        ("trio", [0, 1, 2]),
    ],
)
def test_default_rtp_and_variance_by_enumeration_equal_game_math(kind: str, numbers: list[int]) -> None:
    rules = load_default_rules()
    bonus = _independent_bonus_moments(rules)
    stats = game_math(rules).wagers[kind]
    for strategy in STRATEGIES:
        mean, second = enumerated_moments(rules, numbers, bonus[strategy])
        assert stats.rtp[strategy] == mean, (kind, strategy)
        assert stats.variance[strategy] == second - mean * mean, (kind, strategy)
    # The Bonus Number falls on the wager's n - j numbers that are not Lucky.
    k_total = sum(rules.lucky_counts.values())
    n = len(numbers)
    p_bonus = sum(
        (
            Fraction(kw, k_total)
            * Fraction(math.comb(n, j) * math.comb(37 - n, k - j), math.comb(37, k))
            * Fraction(n - j, 37 - k)
            for k, kw in rules.lucky_counts.items()
            for j in range(min(k, n) + 1)
        ),
        Fraction(0),
    )
    assert stats.p_bonus == p_bonus


def test_independent_figures_of_the_default_paytable() -> None:
    """The shipped paytable's design targets, from the independent enumeration alone."""
    rules = load_default_rules()
    bonus = _independent_bonus_moments(rules)
    for numbers in ([17], [17, 20], [16, 17, 18], [17, 18, 20, 21], list(range(16, 22))):
        rtp = {s: enumerated_moments(rules, numbers, bonus[s])[0] for s in STRATEGIES}
        assert all(Fraction("0.965") <= rtp[s] <= Fraction("0.99") for s in STRATEGIES), numbers
        if len(numbers) == 1:
            assert abs(rtp[Strategy.OPTIMAL] - Fraction("0.9730")) <= Fraction("0.0005")


# --- the absent player through the engine's own bonus game -----------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_absent_player_through_engine_timeouts_is_cash_out_at_3() -> None:
    rules = load_default_rules()
    rng = SeededRng(617)
    exact = BonusAnalysis.from_rules(rules).value(Strategy.CASH_OUT_AT_3)
    games = 4000
    outcomes = []
    for _ in range(games):
        clock = _Clock()
        game = BonusGame.start(rules, rng, player="absent", clock=clock)  # default timer preset
        while not game.finished:
            clock.now += rules.bonus_timer_seconds + 1
            assert game.tick(), "the timer ran out, so the timeout rule must act"
        picks = list(game.picks)
        assert all(p.by == "timeout" for p in picks)
        assert game.round <= 3
        if game.end_reason == "cash_out":  # rounds 1-2 picked at random, cashed out at round 3
            assert game.round == 3 and len(picks) == 2
            assert game.outcome == sum((Fraction(p.content) for p in picks), Fraction(0))
        else:  # an X in round 2 pays the round-1 multiplier
            assert game.end_reason == "x" and game.round == 2
            assert game.outcome == Fraction(picks[0].content)
        assert game.outcome is not None
        outcomes.append(game.outcome)
    mean = sum(outcomes, Fraction(0)) / games
    sd = math.sqrt(float(exact.second_moment - exact.mean**2))
    assert abs(float(mean - exact.mean)) < 4 * sd / math.sqrt(games)
    assert set(outcomes) <= set(exact.distribution)


def test_absent_player_with_the_random_preset_is_play_to_end() -> None:
    """§ 617b.12(i)(2)(ii): a player who set random selection and walks away never cashes out."""
    rules = load_default_rules()
    rng = SeededRng(618)
    exact = BonusAnalysis.from_rules(rules).value(Strategy.PLAY_TO_END)
    games = 4000
    outcomes = []
    for _ in range(games):
        clock = _Clock()
        game = BonusGame.start(rules, rng, player="absent", preset="random", clock=clock)
        while not game.finished:
            clock.now += rules.bonus_timer_seconds + 1
            game.tick()
        assert game.end_reason in ("x", "completed") and game.outcome is not None
        outcomes.append(game.outcome)
    mean = sum(outcomes, Fraction(0)) / games
    sd = math.sqrt(float(exact.second_moment - exact.mean**2))
    assert abs(float(mean - exact.mean)) < 4 * sd / math.sqrt(games)
    assert set(outcomes) <= set(exact.distribution)


# --- the engine's own draw and settlement, every random path ----------------------------------


class _PathRng:
    """Replays a fixed prefix of `randbelow` answers, then answers 0; records what was asked,
    so that every path of a draw can be walked like an odometer."""

    name = "path"
    production_safe = False

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.asked: list[tuple[int, int]] = []  # (answer, n)

    def randbelow(self, n: int) -> int:
        answer = self.prefix[len(self.asked)] if len(self.asked) < len(self.prefix) else 0
        self.asked.append((answer, n))
        return answer


def _every_draw(rules: RulesSubmission) -> list[tuple[Draw, Fraction]]:
    """Every outcome of the engine's `draw_lucky_and_bonus` with its exact probability."""
    out = []
    prefix: list[int] = []
    while True:
        rng = _PathRng(prefix)
        draw = draw_lucky_and_bonus(rules, rng)
        p = Fraction(1)
        for _answer, n in rng.asked:
            p /= n
        out.append((draw, p))
        # Next path: bump the last answer that can still grow, drop what came after it.
        i = len(rng.asked) - 1
        while i >= 0 and rng.asked[i][0] == rng.asked[i][1] - 1:
            i -= 1
        if i < 0:
            return out
        prefix = [a for a, _ in rng.asked[:i]] + [rng.asked[i][0] + 1]


def test_engine_draw_and_settlement_over_every_path_give_game_math() -> None:
    """One Lucky Number, two Lucky odds: the engine's draw has 37 x 2 x 36 paths. Settling
    one wager of each kind with `settle_round` on every result, with the bonus outcome at its
    exact mean and a stake that makes every payout a whole number of cents, gives exactly
    game_math's RTP (which assumes nothing about the engine)."""
    text = default_rules_path().read_text(encoding="utf-8")
    text = text.replace("counts = { 1 = 45, 3 = 40, 5 = 10, 10 = 5 }", "counts = { 1 = 1 }")
    text = text.replace(
        "odds = { 49 = 450, 99 = 390, 199 = 125, 299 = 30, 499 = 5 }", "odds = { 49 = 1, 499 = 1 }"
    )
    rules = parse_rules(text.encode())
    assert rules.lucky_counts == {1: 1} and len(rules.lucky_odds) == 2
    math_ = game_math(rules)
    draws = _every_draw(rules)
    assert len(draws) == 37 * 2 * 36 and sum(p for _, p in draws) == 1
    # Every path has the same probability here, so plain Decimal sums (exact) will do.
    assert {p for _, p in draws} == {Fraction(1, len(draws))}
    b = math_.bonus[Strategy.OPTIMAL].mean
    stake = Decimal(100 * 12 * b.denominator)  # X/n, B/n and 6.5 x stake: whole cents
    wagers = [Wager(kind, "p", w.bet, stake) for kind, w in math_.wagers.items()]
    returned = dict.fromkeys(math_.wagers, Decimal(0))
    for draw, _p in draws:
        for result in range(37):
            for s in settle_round(wagers, result, draw, {"p": b}, rules).settlements:
                if s.won:
                    returned[s.wager.id] += s.returned
    for kind, w in math_.wagers.items():
        rtp = Fraction(returned[kind]) / (len(draws) * 37) / Fraction(stake)
        assert rtp == w.rtp[Strategy.OPTIMAL], kind
