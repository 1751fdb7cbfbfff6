"""How many spins a biased number needs before the surveillance test can see it (a power calculation).

The test is the one the charts flag with: a two-sided z-test per number at the Bonferroni level
alpha/37. For a number that comes up `ratio` times as often as 1/37, the spins needed for the flag to
show with probability `power` are (normal approximation to the binomial, exact enough above ~100
expected hits): n = ((z_a·sqrt(p0·q0) + z_b·sqrt(p1·q1)) / (p1 − p0))².
"""

from __future__ import annotations

import functools
import math

POCKETS = 37
DEFAULT_POWER = 0.8


@functools.cache  # pure, and asked for on every refresh of every table
def spins_needed(ratio: float, *, alpha: float = 0.01, power: float = DEFAULT_POWER) -> int:
    """Spins for a number hit `ratio`× as often as fair to be flagged with probability `power`."""
    from scipy import stats

    if ratio <= 0 or ratio == 1:
        raise ValueError("ratio must be positive and not 1")
    p0 = 1 / POCKETS
    p1 = min(ratio * p0, 1.0)
    z_a = float(stats.norm.isf(alpha / POCKETS / 2))
    z_b = float(stats.norm.isf(1 - power))
    n = ((z_a * math.sqrt(p0 * (1 - p0)) + z_b * math.sqrt(p1 * (1 - p1))) / (p1 - p0)) ** 2
    return math.ceil(n)


@functools.cache
def detectable_ratio(spins: int, *, alpha: float = 0.01, power: float = DEFAULT_POWER) -> float | None:
    """The smallest over-representation (×fair) that `spins` spins would flag with `power`."""
    if spins <= 0:
        return None
    low, high = 1.0 + 1e-9, float(POCKETS)
    if spins_needed(high, alpha=alpha, power=power) > spins:
        return None
    for _ in range(60):
        mid = (low + high) / 2
        if spins_needed(mid, alpha=alpha, power=power) > spins:
            low = mid
        else:
            high = mid
    return high


def round_figure(n: int) -> str:
    """14,237 -> "14,000"; small numbers stay as they are."""
    if n < 1000:
        return f"{n:,}"
    digits = int(math.log10(n)) - 1
    return f"{round(n, -digits):,}"


def off_numbers(stats: dict) -> str:  # type: ignore[type-arg]
    """The numbers the per-number test flags, as a surveillance officer says them: "number 5 comes up
    too often" ("" when none). The test behind it (a z-test per number, strict enough that all 37
    together raise a false alarm less than 1% of the time) is in docs/surveillance-guide.md's glossary."""
    z = stats["z_scores"]
    flagged = z["flagged"]
    if not flagged:
        return ""
    values = z.get("z")
    if values is None:  # the direction unknown (a summary without the z values)
        one = len(flagged) == 1
        numbers = ", ".join(map(str, flagged))
        return f"number{'' if one else 's'} {numbers} far off {'its' if one else 'their'} fair share"
    often = [n for n in flagged if values[n] > 0]
    rarely = [n for n in flagged if values[n] <= 0]

    def told(numbers: list[int], how: str) -> str:
        one = len(numbers) == 1
        return f"number{'' if one else 's'} {', '.join(map(str, numbers))} come{'s' if one else ''} up {how}"

    parts = [told(often, "far too often for chance")] if often else []
    parts += [told(rarely, "far too rarely for chance")] if rarely else []
    return "; ".join(parts)


def verdict(stats: dict, *, alpha: float = 0.01, ratio: float = 1.2) -> str:  # type: ignore[type-arg]
    """Plain words for the chi-square and z-score figures of `engine.store.stats.compute_stats`."""
    n = stats["spins"]
    need = round_figure(spins_needed(ratio, alpha=alpha))
    if n == 0:
        return f"no spins in this window; a {ratio:g}x number needs ~{need} spins to show"
    from engine.store.stats import CHI_NEEDS

    if n < CHI_NEEDS:
        return f"too few spins to judge: {n:,} of the {CHI_NEEDS} a test needs (a {ratio:g}x number: ~{need})"
    chi = stats["chi_square"]
    flagged = stats["z_scores"]["flagged"]
    p = chi["p_value"]
    if flagged or (p is not None and p < alpha):
        what = []
        if p is not None and p < alpha:
            what.append(f"chi-square p = {p:.2g}")
        if flagged:
            what.append(off_numbers(stats))
        return f"possible bias at {n:,} spins: {'; '.join(what)} — check the wheel"
    seen = detectable_ratio(n, alpha=alpha)
    tail = f"; at this sample only a {seen:.1f}x number would show" if seen is not None and seen < 5 else ""
    return f"no evidence of bias at {n:,} spins; a {ratio:g}x number needs ~{need} spins to show{tail}"
