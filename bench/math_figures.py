"""Game-math benchmarks for `drr bench`: how fast the Monte Carlo simulator plays whole spins.

`simulate_spins_per_s`: full-game spins per second (every wager kind, bonus games played
optimally) of `drr simulate` on every core, pool start-up included. Goal >= 1,000,000.
`simulate_spins_per_s_one_core`: the same simulator in one process.
`simulate_vs_scalar`: that one-process rate divided by the rate, in the same run, of the
scalar reference path (the engine's own draw, bonus game and settlement, one spin at a
time, also one process): like for like. Goal >= 100.
`math_exact_s`: seconds for the exact analysis of the default Rules Submission (every
wager kind, three bonus strategies, the outcome distribution) as `drr math --json` does it,
interpreter start-up excluded. Goal: `drr math` under 2 s.
`simulate_kinds_outside_ci99`: of the ten wager kinds, how many exact RTPs fall outside
the 99% interval of the big run (the full check the unit tests only sample; expect 0,
sometimes 1 by chance).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from engine.math.bonus_value import Strategy
from engine.math.report import to_json
from engine.math.simulate import simulate, simulate_scalar
from engine.math.wager_math import game_math
from engine.rules import load_default_rules

SPINS_ALL_CORES = 40_000_000
SPINS_ONE_CORE = 4_000_000
SPINS_SCALAR = 20_000


def bench_simulate() -> dict[str, float]:
    rules = load_default_rules()
    big = simulate(rules, SPINS_ALL_CORES, seed=2026, strategy=Strategy.OPTIMAL)
    one = simulate(rules, SPINS_ONE_CORE, seed=2027, strategy=Strategy.OPTIMAL, workers=1)
    scalar = simulate_scalar(rules, SPINS_SCALAR, seed=2028, strategy=Strategy.OPTIMAL)
    return {
        "simulate_spins_per_s": big.spins_per_second,
        "simulate_spins_per_s_one_core": one.spins_per_second,
        "simulate_scalar_spins_per_s": scalar.spins_per_second,
        "simulate_vs_scalar": one.spins_per_second / scalar.spins_per_second,
        "simulate_kinds_outside_ci99": float(
            sum(1 for e in big.kinds.values() if e.exact_inside_ci99 is False)
        ),
    }


def bench_exact() -> dict[str, float]:
    rules = load_default_rules()
    started = time.perf_counter()
    to_json(game_math(rules))
    return {"math_exact_s": time.perf_counter() - started}


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {
    "math_exact": bench_exact,
    "simulate": bench_simulate,
}
