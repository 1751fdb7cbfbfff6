"""Tests on the order of results: the dealer signature and repeated numbers.

Dealer signature: a dealer who releases the ball the same way lands it a similar distance (in
pockets, clockwise on the wheel) from where the previous ball landed. For each dealer the distances
0..36 from the previous result are counted and tested against uniform with chi-square.

Repeats: the same number twice in a row has chance 1/37 per pair under the null; more repeats than
that (binomial tail) or a long run is flagged.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, NamedTuple

from engine.store.stats import CHI_NEEDS, p_words
from engine.wheel_layout import wheel_distance

POCKETS = 37


class Spin(NamedTuple):
    """One result in time order, as the sequence tests need it (a tuple: 10,000 are made per refresh)."""

    number: int
    dealer: str | None


def dealer_signature(spins: Sequence[Spin], alpha: float = 0.01) -> list[dict[str, Any]]:
    """Per dealer: distance counts, chi-square and a flag at alpha / number of dealers."""
    from scipy import stats

    by_dealer: dict[str, list[int]] = {}
    for prev, cur in itertools.pairwise(spins):
        counts = by_dealer.setdefault(cur.dealer or "unknown", [0] * POCKETS)
        counts[wheel_distance(prev.number, cur.number)] += 1
    out = []
    limit = alpha / max(1, len(by_dealer))
    for dealer, counts in sorted(by_dealer.items()):
        n = sum(counts)
        chi = stats.chisquare(counts) if n else None
        enough = n >= CHI_NEEDS  # fewer: the chi-square approximation does not hold, no p-value shown
        p = float(chi.pvalue) if chi is not None and enough else None
        out.append(
            {
                "dealer": dealer,
                "spins": n,
                "distances": counts,
                "statistic": float(chi.statistic) if chi is not None and enough else None,
                "df": POCKETS - 1,
                "p_value": p,
                "needs": CHI_NEEDS,
                "flagged": p is not None and p < limit,
                "words": p_words(
                    f"{dealer}'s ball lands any distance from the last result alike", p, n, CHI_NEEDS,
                    alpha=limit,
                ),
            }
        )  # fmt: skip
    return out


def repeats(numbers: Sequence[int], alpha: float = 0.001) -> dict[str, Any]:
    """Same number twice in a row: count, expectation, binomial tail p-value, longest run."""
    from scipy import stats

    pairs = max(0, len(numbers) - 1)
    count = sum(1 for a, b in itertools.pairwise(numbers) if a == b)
    longest = run = 1 if numbers else 0
    for a, b in itertools.pairwise(numbers):
        run = run + 1 if a == b else 1
        longest = max(longest, run)
    p = float(stats.binom.sf(count - 1, pairs, 1 / POCKETS)) if pairs else None
    # A run of r identical results somewhere in n spins: chance about n·(1/37)^(r−1).
    run_p = min(1.0, pairs * (1 / POCKETS) ** (longest - 1)) if longest > 1 else 1.0
    needs = POCKETS  # pairs before one repeat is expected at all
    return {
        "pairs": pairs,
        "repeats": count,
        "expected": pairs / POCKETS,
        "p_value": p,
        "longest_run": longest,
        "longest_run_p": run_p,
        "flagged": (p is not None and p < alpha) or run_p < alpha,
        "needs": needs,
        "words": p_words(
            f"the same number twice in a row ({count} times, {pairs / POCKETS:.1f} expected)",
            p, pairs, needs, alpha=alpha, unit="pairs of spins",
        ),
    }  # fmt: skip
