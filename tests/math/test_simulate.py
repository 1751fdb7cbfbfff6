"""Monte Carlo simulator: agrees with the exact math, with the engine's own scalar path, and is repeatable.

Seeds are fixed, so each test is deterministic. A statistical check at 99% fails by chance
about once in a hundred kinds; the cross-checks between two estimates use 4 standard errors.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from engine.math import simulate as sim
from engine.math.bonus_value import STRATEGIES, BonusAnalysis, Strategy
from engine.math.wager_math import KIND_ORDER, game_math
from engine.rng import SeededRng
from engine.rules import RulesSubmission, load_default_rules, load_rules
from gui.cli import main

RULES = load_default_rules()
WORKED = Path(__file__).parents[1] / "data" / "worked-example-rules.toml"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_rtp_inside_the_99_percent_interval(seed: int) -> None:
    result = sim.simulate(RULES, 300_000, seed=seed, workers=1)
    exact = game_math(RULES).wagers
    assert list(result.kinds) == list(KIND_ORDER)
    for kind, e in result.kinds.items():
        assert e.exact_rtp == exact[kind].rtp[Strategy.OPTIMAL]
        assert e.ci99[0] <= float(e.exact_rtp) <= e.ci99[1], (kind, e)
        # Hits and Lucky/Bonus coverage are binomial: check them at 4 standard errors.
        for got, want in (
            (e.hit_frequency, exact[kind].hit_frequency),
            (e.p_lucky, exact[kind].p_lucky),
            (e.p_bonus, exact[kind].p_bonus),
        ):
            p = float(want)
            assert abs(got - p) < 4 * math.sqrt(p * (1 - p) / result.spins), (kind, got, want)


@pytest.mark.parametrize("rules", [RULES, load_rules(WORKED)], ids=["default", "worked-example"])
def test_vectorised_cash_out_thresholds_are_the_exact_policy(rules: RulesSubmission) -> None:
    game = BonusAnalysis.from_rules(rules)
    for strategy in STRATEGIES:
        cut = sim.SimPlan.of(rules, strategy).cash_out_at_risk
        states = {(Fraction(v), Fraction(v)) for v in rules.bonus_rounds[0]}  # after round 1
        for rnd in range(2, 7):
            going_on = set()
            for total, first in states:  # every state the strategy can reach
                stops = game.cashes_out(strategy, rnd, total, first)
                assert (float(total - first) >= cut[rnd - 1]) == stops
                if not stops:
                    going_on.add((total, first))
            states = {(t + v, f) for t, f in going_on for v in rules.bonus_rounds[rnd - 1]}


def test_lucky_and_bonus_draw_is_uniform_and_disjoint() -> None:
    plan = sim.SimPlan.of(RULES, Strategy.OPTIMAL)
    rng = np.random.default_rng(8)
    result = rng.integers(0, 37, size=400_000)
    draws = sim.draw_spins(plan, rng, result)
    bits = ((draws.lucky_mask[:, None] >> np.arange(37, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    counts = bits.sum(axis=1)
    # How many Lucky Numbers: the weights of lucky.counts.
    values, seen = np.unique(counts, return_counts=True)
    weights = np.array([RULES.lucky_counts[int(v)] for v in values], dtype=float)
    assert set(values) == set(RULES.lucky_counts)
    assert stats.chisquare(seen, weights / weights.sum() * counts.size).pvalue > 0.001
    # Every number equally often Lucky; the Bonus Number never Lucky and uniform.
    assert stats.chisquare(bits.sum(axis=0)).pvalue > 0.001
    assert not bits[np.arange(result.size), draws.bonus].any()
    assert stats.chisquare(np.bincount(draws.bonus, minlength=37)).pvalue > 0.001
    # The result's X only when the result is Lucky, drawn from lucky.odds.
    lucky_result = bits[np.arange(result.size), result]
    assert ((draws.result_x > 0) == lucky_result).all()
    odds, got = np.unique(draws.result_x[lucky_result], return_counts=True)
    want = np.array([RULES.lucky_odds[Fraction(int(x))] for x in odds], dtype=float)
    assert stats.chisquare(got, want / want.sum() * got.sum()).pvalue > 0.001


def test_weighted_tables_of_any_size_draw_by_their_weights() -> None:
    rng = np.random.default_rng(12)
    for table in ({Fraction(49): 3, Fraction(499): 1}, {Fraction(49): 300_000, Fraction(499): 100_000}):
        weighted = sim._Weighted.of(table)
        assert (weighted.lookup is None) == (sum(table.values()) > sim.LOOKUP_MAX)
        draws = weighted.draw(rng, 100_000)
        assert set(np.unique(draws)) == {49.0, 499.0}
        assert abs((draws == 49.0).mean() - 0.75) < 4 * math.sqrt(0.75 * 0.25 / draws.size)


def test_distinct_numbers_are_uniform_subsets() -> None:
    rows = sim.distinct_numbers(np.random.default_rng(3), 300_000, 3)
    assert (np.diff(rows, axis=1) > 0).all()
    # Each of the 666 unordered pairs appears equally often inside the triples.
    pairs = np.concatenate(
        [rows[:, 0] * 37 + rows[:, 1], rows[:, 0] * 37 + rows[:, 2], rows[:, 1] * 37 + rows[:, 2]]
    )
    seen = np.bincount(pairs, minlength=37 * 37).reshape(37, 37)[np.triu_indices(37, 1)]
    assert stats.chisquare(seen).pvalue > 0.001


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_other_strategies_inside_the_99_percent_interval(strategy: Strategy) -> None:
    result = sim.simulate(RULES, 300_000, seed=11, strategy=strategy, workers=1)
    for kind in ("straight", "six_line"):
        assert result.kinds[kind].exact_inside_ci99, (kind, result.kinds[kind])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_simulated_bonus_games_follow_the_exact_distribution(strategy: Strategy) -> None:
    plan = sim.SimPlan.of(RULES, strategy)
    outcomes = sim.play_bonus_games(plan, np.random.default_rng(5), 200_000)
    exact = BonusAnalysis.from_rules(RULES).value(strategy)
    edges = [29, 30, 40, 50, 70, 100, 200, 500, 1000, 2000, 3000, 5000]  # bins [a, b)
    expected = np.zeros(len(edges) - 1)
    for b, p in exact.distribution.items():
        expected[np.searchsorted(edges, float(b), side="right") - 1] += float(p)
    observed = np.bincount(np.searchsorted(edges, outcomes, side="right") - 1, minlength=len(expected))
    possible = expected > 0
    assert observed[~possible].sum() == 0  # nothing the exact math calls impossible
    assert stats.chisquare(observed[possible], expected[possible] * outcomes.size).pvalue > 0.001
    assert abs(outcomes.mean() - float(exact.mean)) < 4 * outcomes.std() / math.sqrt(outcomes.size)
    assert outcomes.max() <= float(exact.maximum) and outcomes.min() >= 29


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_engine_bonus_game_played_by_strategy_matches_the_exact_value(strategy: Strategy) -> None:
    policy = BonusAnalysis.from_rules(RULES)
    rng = SeededRng(21)
    outcomes = np.array(
        [float(sim.play_engine_bonus_game(RULES, rng, policy, strategy)) for _ in range(3000)]
    )
    exact = policy.value(strategy)
    assert abs(outcomes.mean() - float(exact.mean)) < 4 * math.sqrt(
        float(exact.second_moment - exact.mean**2) / 3000
    )
    assert set(outcomes) <= {float(b) for b in exact.distribution}


def test_same_seed_same_answer_on_any_number_of_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim, "TASK_SPINS", 50_000)
    monkeypatch.setattr(sim, "PARALLEL_FROM", 100_000)
    done: list[int] = []
    one = sim.simulate(RULES, 200_000, seed=9, workers=1)
    two = sim.simulate(RULES, 200_000, seed=9, workers=2, progress=done.append)
    assert done == [50_000] * 4
    again = sim.simulate(RULES, 200_000, seed=9, workers=1)
    other = sim.simulate(RULES, 200_000, seed=10, workers=1)
    assert one.kinds == two.kinds == again.kinds
    assert one.kinds != other.kinds


def test_scalar_reference_path_agrees_with_the_vectorised_one() -> None:
    scalar = sim.simulate_scalar(RULES, 20_000, seed=4)
    fast = sim.simulate(RULES, 1_000_000, seed=4, workers=1)
    assert scalar.bonus_games > 0
    for kind in KIND_ORDER:
        a, b = scalar.kinds[kind], fast.kinds[kind]
        z = (a.rtp - b.rtp) / math.hypot(a.stderr, b.stderr)
        assert abs(z) < 4, (kind, a, b)
        for got, p in ((a.hit_frequency, b.hit_frequency), (a.p_lucky, b.p_lucky), (a.p_bonus, b.p_bonus)):
            assert abs(got - p) < 4 * math.sqrt(p * (1 - p) / scalar.spins), kind


def test_bad_spins_get_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for bad, why in (
        ("0", "at least 1"),
        ("-5", "at least 1"),
        ("lots", "whole number"),
        ("1.5", "whole number"),
        ("1" + "0" * 15, "at most"),
    ):
        assert main(["simulate", "--spins", bad]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and why in err and "--spins" in err
    assert main(["simulate", "--spins", "10", "--seed", "x"]) == 2
    assert "--seed" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least 1"):
        sim.simulate(RULES, 0)


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--spins", "20_000", "--seed", "1", "--strategy", "play_to_end", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["spins"] == 20_000 and doc["strategy"] == "play_to_end" and doc["seed"] == 1
    assert doc["spins_per_second"] > 0
    straight = doc["bets"]["straight"]
    lo, hi = (float(x) for x in straight["ci99"])
    assert lo < float(straight["rtp"]) < hi
    assert Fraction(straight["exact_rtp"]) == game_math(RULES).wagers["straight"].rtp[Strategy.PLAY_TO_END]
    assert set(doc["bets"]) == set(KIND_ORDER)


def test_invalid_rules_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("schema = 1\n", encoding="utf-8")
    assert main(["rules", "check", str(bad)]) == 1
    check = capsys.readouterr().err
    assert main(["simulate", "--spins", "10", "--rules", str(bad)]) == 1
    assert capsys.readouterr().err == "drr: " + check


def test_bad_strategy_gets_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--spins", "10", "--strategy", "greedy"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "--strategy" in err and "'greedy'" in err and "cash_out_at_3" in err


def test_progress_bar_on_a_terminal_leaves_json_intact(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    advanced: list[int] = []
    real = sim.simulate

    def watched(*args: object, **kwargs: object) -> sim.SimulationResult:
        progress = kwargs["progress"]
        assert callable(progress)

        def spy(n: int) -> None:
            advanced.append(n)
            progress(n)

        kwargs["progress"] = spy
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sim, "simulate", watched)
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    assert main(["simulate", "--spins", "30000", "--seed", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["spins"] == 30_000 and sum(advanced) == 30_000
