"""Exact game math: bonus-game values by strategy, wager statistics, and the shipped paytable design."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from engine.bets import Bet
from engine.math.bonus_value import STRATEGIES, BonusAnalysis, Strategy, bonus_values
from engine.math.wager_math import KIND_ORDER, game_math, percent, sqrt_decimal
from engine.rules import RulesSubmission, load_default_rules, load_rules, parse_rules

WORKED = Path(__file__).parents[1] / "data" / "worked-example-rules.toml"


def test_worked_example_bonus_values() -> None:
    values = bonus_values(load_rules(WORKED))
    assert values[Strategy.CASH_OUT_AT_3].mean == 74
    assert values[Strategy.PLAY_TO_END].mean == Fraction("63.3888")
    assert values[Strategy.OPTIMAL].mean == Fraction("104.130816")


def test_distributions_are_complete_and_optimal_is_best() -> None:
    for rules in (load_rules(WORKED), load_default_rules()):
        game = BonusAnalysis.from_rules(rules)
        values = {s: game.value(s) for s in STRATEGIES}
        for v in values.values():
            assert sum(v.distribution.values()) == 1
            assert min(v.distribution) >= min(rules.bonus_rounds[0])
            assert v.maximum <= rules.max_bonus
        best = values[Strategy.OPTIMAL].mean
        assert best == game._value(1, Fraction(0), Fraction(0))  # forward pass = backward induction
        assert best >= values[Strategy.CASH_OUT_AT_3].mean and best >= values[Strategy.PLAY_TO_END].mean
        # Only a player who never cashes out can reach the top prize.
        assert values[Strategy.PLAY_TO_END].maximum == rules.max_bonus


def test_play_to_end_closed_form() -> None:
    # E[B] = E[round 1] + P(survive rounds 2-6) * (sum of the means of rounds 2-6).
    rules = load_default_rules()
    means = [Fraction(sum(v * w for v, w in t.items()), sum(t.values())) for t in rules.bonus_rounds]
    survive = Fraction(4 * 3 * 2 * 2 * 1, 5**5)
    expected = means[0] + survive * sum(means[1:])
    assert bonus_values(rules)[Strategy.PLAY_TO_END].mean == expected


def test_optimal_policy_is_a_threshold_on_the_amount_at_risk() -> None:
    for policy in BonusAnalysis.from_rules(load_rules(WORKED)).optimal_policy():
        if policy.continue_max_at_risk is not None and policy.cash_out_min_at_risk is not None:
            assert policy.continue_max_at_risk < policy.cash_out_min_at_risk


def _one_lucky_rules() -> RulesSubmission:
    """A small game (one Lucky Number, two Lucky odds) whose every draw can be enumerated."""
    text = WORKED.read_text(encoding="utf-8")
    text = text.replace("counts = { 1 = 20, 3 = 45, 5 = 30, 10 = 5 }", "counts = { 1 = 3 }")
    text = text.replace("odds = { 49 = 500, 99 = 300, 199 = 50, 499 = 8 }", "odds = { 49 = 2, 499 = 1 }")
    return parse_rules(text.encode())


def _enumerated(rules: RulesSubmission, bet: Bet, strategy: Strategy) -> tuple[Fraction, Fraction, Fraction]:
    """(RTP, E[R^2], P(bet covers the Lucky Number)) by walking every draw and result."""
    odds_total = sum(rules.lucky_odds.values())
    bonus = bonus_values(rules)[strategy].distribution
    mean = second = covers = Fraction(0)
    n = bet.size
    base = rules.base_payout(bet)
    for lucky, bonus_number in itertools.permutations(range(37), 2):
        p_draw = Fraction(1, 37 * 36)
        covers += p_draw * (lucky in bet.numbers)
        for x, w in rules.lucky_odds.items():
            p_x = p_draw * Fraction(w, odds_total)
            for result in range(37):
                p = p_x / 37
                if result not in bet.numbers:
                    continue
                if not bet.inside:
                    outcomes = {1 + base: Fraction(1)}
                elif result == lucky:
                    outcomes = {1 + x / n: Fraction(1)}
                elif result == bonus_number:
                    outcomes = {1 + b / n: q for b, q in bonus.items()}
                else:
                    outcomes = {1 + base: Fraction(1)}
                for r, q in outcomes.items():
                    mean += p * q * r
                    second += p * q * r * r
    return mean, second, covers


@pytest.mark.parametrize("kind", ["straight", "split", "six_line", "first_four", "dozen"])
def test_wager_stats_match_enumeration(kind: str) -> None:
    rules = _one_lucky_rules()
    stats = game_math(rules).wagers[kind]
    for strategy in (Strategy.OPTIMAL, Strategy.PLAY_TO_END):
        mean, second, covers = _enumerated(rules, stats.bet, strategy)
        assert stats.rtp[strategy] == mean
        assert stats.variance[strategy] == second - mean * mean
        assert stats.p_lucky == covers
    assert stats.hit_frequency == Fraction(stats.numbers, 37)


def test_covering_a_lucky_number_with_several_lucky_numbers() -> None:
    text = WORKED.read_text(encoding="utf-8")
    text = text.replace("counts = { 1 = 20, 3 = 45, 5 = 30, 10 = 5 }", "counts = { 1 = 1, 3 = 2 }")
    lucky = game_math(parse_rules(text.encode())).lucky
    for numbers in ({17}, {0, 1}, {0, 1, 2, 3}, set(range(1, 7))):
        expected = Fraction(1, 3) * Fraction(len(numbers), 37)
        triples = list(itertools.combinations(range(37), 3))
        expected += Fraction(2, 3) * Fraction(
            sum(1 for t in triples if numbers.intersection(t)), len(triples)
        )
        assert lucky.p_covers_lucky(len(numbers)) == expected
    assert lucky.p_covers_lucky(37) == 1


def test_default_paytable_meets_its_design() -> None:
    rules = load_default_rules()
    math = game_math(rules)
    assert list(math.wagers) == list(KIND_ORDER)
    straight = math.wagers["straight"].rtp[Strategy.OPTIMAL]
    assert abs(straight - Fraction("0.9730")) <= Fraction("0.0005")
    for kind, stats in math.wagers.items():
        for strategy in STRATEGIES:
            if stats.bet.inside:
                assert Fraction("0.965") <= stats.rtp[strategy] <= Fraction("0.99"), (kind, strategy)
            else:
                assert stats.rtp[strategy] == Fraction(36, 37)
    # The whole range of § 617b.12 is reachable.
    assert max(rules.lucky_odds) == 499
    assert rules.max_bonus == 4999
    assert 10 in rules.lucky_counts
    assert math.wagers["straight"].max_payout == 4999
    assert math.wagers["six_line"].max_payout == Fraction(4999, 6)


def test_decimal_helpers_round_correctly() -> None:
    assert sqrt_decimal(Fraction(2), 6) == "1.414214"
    assert sqrt_decimal(Fraction(9, 4), 3) == "1.500"
    assert percent(Fraction(36, 37)) == "97.2973"
