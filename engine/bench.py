"""Engine benchmarks for `drr bench`: how fast a round's wagers are settled.

`settle_wagers_per_s`: wagers settled per second by `settle_round` (10,000 mixed wagers:
every legal bet, several players, amounts from 0.01 to 500, a Lucky result so lucky, base
and lose outcomes all occur).
`settle_vs_baseline`: the time of that settlement divided by the time, in the same run, of
a bare loop that only looks up each wager's amount and adds it up (the handle). Goal <= 5.
Each figure is the best of several repetitions, so a busy machine disturbs it less, timed
as timeit does (garbage collector paused); `settle_vs_baseline_gc_running` is the same
ratio with the collector running; `settle_with_records_vs_baseline` also builds the
per-wager Settlement records (`RoundSettlement.settlements`, made on first use).
"""

from __future__ import annotations

import gc
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


def _best(fn: Callable[[], object], *, pause_gc: bool = True) -> float:
    """Best time of REPEATS runs; like timeit, the garbage collector is paused while timing
    unless pause_gc is False."""
    best = float("inf")
    was_enabled = gc.isenabled()
    try:
        for _ in range(REPEATS):
            if pause_gc:
                gc.disable()
            started = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - started)
            if was_enabled:
                gc.enable()
    finally:
        if was_enabled:
            gc.enable()
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
    # The same ratio with the collector running, as it does at the table (10,000 new
    # Settlement objects trigger collections; the baseline allocates no tracked objects).
    settle_gc_seconds = _best(lambda: settle_round(wagers, 17, draw, {}, rules), pause_gc=False)
    # settle_round shares one Outcome among wagers that settle alike and pairs them with their
    # wagers as Settlement records on first use; this figure includes building those records.
    records_seconds = _best(lambda: settle_round(wagers, 17, draw, {}, rules).settlements)
    return {
        "settle_wagers_per_s": WAGERS / settle_seconds,
        "settle_vs_baseline": settle_seconds / baseline_seconds,
        "settle_vs_baseline_gc_running": settle_gc_seconds / baseline_seconds,
        "settle_with_records_vs_baseline": records_seconds / baseline_seconds,
    }


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"settle": bench_settle}
