"""Engine benchmarks for `drr bench`: how fast a round's wagers are settled.

The round: 10,000 mixed wagers (every legal bet, 8 players, amounts from 0.01 to 500) settled
on 17, a Lucky Number, so lucky, base and losing wagers all occur. Settling means one call of
`settle_round`, which works out every wager's payout (an array of payouts aligned with the
wagers) and the round's totals; the per-wager Decimal records are built from it on first use.

Figures (each time is the median of REPEATS runs in this process, garbage collector paused as
timeit does unless said otherwise; no best-of, issue 28):
- `settle_wagers_per_s`: 10,000 / the settlement time.
- `settle_vs_baseline`: the settlement time divided by the time of the baseline, a bare loop
  that ONLY looks up each wager's amount (`for w in wagers: w.amount`), timed in the same run.
  This is the issue's definition; goal <= 5.
- `settle_vs_baseline_gc_running`: the same ratio with the collector running for both.
- `settle_with_records_vs_baseline`: settlement plus building every wager's Settlement record
  (`RoundSettlement.settlements`), over the same baseline.
- `settle_vs_summing_baseline`: the settlement time over a different, slower loop that also
  adds the amounts up (a Decimal sum); not the issue's figure, kept for comparison with the
  figures reported before the baseline was corrected (they used this loop).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction

from engine.bets import Wager, legal_bets
from engine.rng import Draw, SeededRng
from engine.rules import load_default_rules
from engine.settlement import settle_round

WAGERS = 10_000
REPEATS = 25  # each run takes well under 2 ms; more runs make the median on a shared machine steadier


def _mixed_wagers(n: int) -> list[Wager]:
    rng = SeededRng("bench")
    bets = legal_bets()
    amounts = [Decimal(c) / 100 for c in (1, 50, 100, 250, 500, 1000, 2500, 10000, 50000)]
    return [
        Wager(f"w{i}", f"player{rng.randbelow(8)}", bets[rng.randbelow(len(bets))], amounts[rng.randbelow(9)])
        for i in range(n)
    ]


def _median(fn: Callable[[], object], *, pause_gc: bool = True) -> float:
    """Median time of REPEATS runs; like timeit, the garbage collector is paused while timing
    unless pause_gc is False."""
    times: list[float] = []
    was_enabled = gc.isenabled()
    try:
        for _ in range(REPEATS):
            if pause_gc:
                gc.disable()
            started = time.perf_counter()
            fn()
            times.append(time.perf_counter() - started)
            if was_enabled:
                gc.enable()
    finally:
        if was_enabled:
            gc.enable()
    return statistics.median(times)


def _baseline(wagers: Sequence[Wager]) -> None:
    """The issue's baseline: only look up each wager's amount."""
    for w in wagers:
        w.amount  # noqa: B018 - the lookup is the whole point of the loop


def _summing_loop(wagers: Sequence[Wager]) -> Decimal:
    """Look each amount up and add it to a Decimal total (for settle_vs_summing_baseline)."""
    total = Decimal(0)
    for w in wagers:
        total += w.amount
    return total


def bench_settle() -> dict[str, float]:
    rules = load_default_rules()
    wagers = _mixed_wagers(WAGERS)
    # 17 is Lucky, 8 the Bonus Number; the ball on 17 mixes lucky, base and lose outcomes.
    draw = Draw({17: Fraction(199), 5: Fraction(49), 30: Fraction(99)}, 8)

    def settle() -> object:
        return settle_round(wagers, 17, draw, {}, rules)

    settle_seconds = _median(settle)
    baseline_seconds = _median(lambda: _baseline(wagers))
    # With the collector running, as at the table (the baseline allocates nothing it tracks).
    settle_gc_seconds = _median(settle, pause_gc=False)
    baseline_gc_seconds = _median(lambda: _baseline(wagers), pause_gc=False)
    records_seconds = _median(lambda: settle_round(wagers, 17, draw, {}, rules).settlements)
    summing_seconds = _median(lambda: _summing_loop(wagers))
    return {
        "settle_wagers_per_s": WAGERS / settle_seconds,
        "settle_vs_baseline": settle_seconds / baseline_seconds,
        "settle_vs_baseline_gc_running": settle_gc_seconds / baseline_gc_seconds,
        "settle_with_records_vs_baseline": records_seconds / baseline_seconds,
        "settle_vs_summing_baseline": settle_seconds / summing_seconds,
    }


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"settle": bench_settle}
