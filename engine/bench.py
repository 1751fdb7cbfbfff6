"""Engine benchmarks for `drr bench`: how fast a round's wagers are settled.

`settle_wagers_per_s`: wagers settled per second by `settle_round` (10,000 mixed wagers:
every legal bet, several players, amounts from 0.01 to 500, a Lucky result so lucky, base
and lose outcomes all occur).
`settle_vs_baseline`: the time of that settlement divided by the time, in the same run, of
a bare loop that only looks up each wager's amount and adds it up (the handle). Goal <= 5.
Each figure is the best of several repetitions, so a busy machine disturbs it less.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction

from engine.bets import Wager, legal_bets
from engine.rng import Draw, SeededRng
from engine.rules import load_default_rules
from engine.settlement import settle_round

WAGERS = 10_000
REPEATS = 7


def _mixed_wagers(n: int) -> list[Wager]:
    rng = SeededRng("bench")
    bets = legal_bets()
    amounts = [Decimal(c) / 100 for c in (1, 50, 100, 250, 500, 1000, 2500, 10000, 50000)]
    return [
        Wager(f"w{i}", f"player{rng.randbelow(8)}", bets[rng.randbelow(len(bets))], amounts[rng.randbelow(9)])
        for i in range(n)
    ]


def _best(fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def _baseline(wagers: Sequence[Wager]) -> Decimal:
    total = Decimal(0)
    for w in wagers:
        total += w.amount
    return total


def bench_settle() -> dict[str, float]:
    rules = load_default_rules()
    wagers = _mixed_wagers(WAGERS)
    # 17 is Lucky, 8 the Bonus Number; the ball on 17 mixes lucky, base and lose outcomes.
    draw = Draw({17: Fraction(199), 5: Fraction(49), 30: Fraction(99)}, 8)
    settle_seconds = _best(lambda: settle_round(wagers, 17, draw, {}, rules))
    baseline_seconds = _best(lambda: _baseline(wagers))
    return {
        "settle_wagers_per_s": WAGERS / settle_seconds,
        "settle_vs_baseline": settle_seconds / baseline_seconds,
    }


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"settle": bench_settle}
