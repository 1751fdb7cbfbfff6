"""Outcome statistics of a table: a pure function over counts (`compute_stats`) and the query layer.

`compute_stats` takes what the aggregates hold (37 counts, counts per rotor direction, Lucky/Bonus
hits, money) and returns plain JSON-ready data: chi-square goodness of fit to 1/37 (scipy), per-number
z-scores with Bonferroni-corrected flags, the hottest wheel sector of 3, 5 and 9 neighbours with a
Monte-Carlo-calibrated p-value, the even-money splits, dozens, columns, Lucky/Bonus hit rates against
expectation and actual hold against a theoretical house edge.

`table_stats(store, …)` reads the aggregates (`number_counts`, `daily_totals`), never the journal; a
`last=N` window or a `since` that is not midnight reads the `rounds` rows it needs (indexed).

Sector p-values: the null distribution of the largest circular window sum is simulated (numpy) for
the sample size, standardised, and cached. Under the null every pocket is alike, so the distribution
does not depend on which numbers are neighbours. Above 1,000 spins the sample size is rounded to two
significant figures for the cache, so a live chart that gains one spin per round reuses it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.bets import KINDS
from engine.wheel_layout import BLACK, RED, WHEEL_ORDER

if TYPE_CHECKING:
    import numpy as np

    from engine.store.db import Store

POCKETS = 37
SECTOR_WIDTHS = (3, 5, 9)
MC_TRIALS = 4000
DEFAULT_ALPHA = 0.01


@dataclass
class Tally:
    """What the aggregates hold for a selection of spins (a table, a window, a time range)."""

    counts: list[int] = field(default_factory=lambda: [0] * POCKETS)
    by_direction: dict[str, list[int]] = field(default_factory=dict)  # "cw", "ccw", "" (unknown)
    drawn_spins: int = 0  # spins whose round had a Lucky/Bonus draw
    lucky_drawn: int = 0  # sum of k (Lucky Numbers lit) over those spins
    lucky_hits: int = 0
    bonus_hits: int = 0
    settled: int = 0
    wagered: Decimal = Decimal(0)
    paid: Decimal = Decimal(0)  # what the wagers won
    returned: Decimal = Decimal(0)  # handed back: paid plus the stakes of winning wagers
    handle_by_bet: dict[str, Decimal] = field(default_factory=dict)  # wire bet name -> settled handle

    @property
    def spins(self) -> int:
        return sum(self.counts)


# --- the pure part ------------------------------------------------------------------------------


def chi_square(counts: Sequence[int]) -> dict[str, Any]:
    """Pearson's chi-square of every number equally likely: `scipy.stats.chisquare`'s arithmetic and
    its p-value function (`chdtrc`, what `chi2.sf` calls), without its argument handling, which cost
    a wall of a hundred tiles 1.5 ms a tile."""
    import numpy as np
    from scipy import special

    n = sum(counts)
    if n == 0:
        return {"statistic": None, "df": POCKETS - 1, "p_value": None}
    observed = np.asarray(counts, dtype=float)
    expected = observed.mean()
    statistic = float(((observed - expected) ** 2 / expected).sum())
    df = len(counts) - 1
    return {"statistic": statistic, "df": POCKETS - 1, "p_value": float(special.chdtrc(df, statistic))}


# --- plain words for every test (what the screens show; the p-value alone is not a sentence) -------

# The chi-square approximation holds when every cell expects at least 5 (Cochran's rule): 37 pockets
# need 185 spins before a p-value means anything.
MIN_EXPECTED = 5
CHI_NEEDS = MIN_EXPECTED * POCKETS
DIRECTION_WORDS = {"cw": "clockwise spins", "ccw": "counter-clockwise spins"}


def chi_square_in_words(counts: Sequence[int], alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
    """The chi-square test of every number equally likely, with its sentence (a table's page, a wall tile)."""
    chi = chi_square(counts)
    chi["words"] = p_words(
        "every number equally likely (chi-square)", chi["p_value"], sum(counts), CHI_NEEDS, alpha=alpha
    )
    return chi


def chance_words(p: float) -> str:
    """How often a fair wheel gives a sample at least this uneven, in words."""
    if p >= 0.995:
        return "almost always"
    if p >= 0.1:
        return f"in about {p:.0%} of samples"
    if p < 1e-9:
        return "less than once in a billion samples"
    return f"about once in {round(1 / p):,} samples"


def p_words(
    what: str, p: float | None, n: int, needs: int, *, alpha: float = DEFAULT_ALPHA, unit: str = "spins"
) -> str:
    """One sentence for a test's result: too few `unit` to say anything (under `needs`), or the
    p-value with what it means and whether it crosses `alpha`."""
    if n < needs:
        return f"{what}: too few {unit} to test ({n:,} of the {needs:,} needed) — no p-value yet"
    if p is None:
        return f"{what}: no p-value"
    judged = f"unusual (below {alpha:g}): worth a look" if p < alpha else "nothing unusual"
    return f"{what}: p = {p:.2g} — a fair wheel is at least this uneven {chance_words(p)}; {judged}"


def sector_needs(width: int) -> int:
    """Spins before a sector of `width` pockets expects MIN_EXPECTED hits."""
    return math.ceil(MIN_EXPECTED * POCKETS / width)


def z_scores(counts: Sequence[int], alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
    """Per-number z = (count - n/37) / sqrt(n p (1-p)); flagged when two-sided p < alpha/37."""
    from scipy import special

    n = sum(counts)
    p = 1 / POCKETS
    threshold = alpha / POCKETS
    if n == 0:
        return {"z": [0.0] * POCKETS, "p_values": [1.0] * POCKETS, "flagged": [], "threshold": threshold}
    sd = math.sqrt(n * p * (1 - p))
    z = [(c - n * p) / sd for c in counts]
    pv = [float(v) for v in 2 * special.ndtr([-abs(v) for v in z])]  # norm.sf(x) is ndtr(-x), quicker
    return {
        "z": z,
        "p_values": pv,
        "flagged": [i for i, v in enumerate(pv) if v < threshold],
        "threshold": threshold,
    }


def _bucket(spins: int) -> int:
    if spins <= 1000:
        return spins
    digits = int(math.log10(spins)) - 1
    return round(spins, -digits)


@lru_cache(maxsize=64)
def _null_maxima(spins: int, trials: int) -> dict[int, np.ndarray]:
    """Standardised maxima of circular window sums under the null, sorted, per sector width."""
    import numpy as np

    rng = np.random.default_rng(617_012 + spins)  # fixed: the same store gives the same p-value
    samples = rng.multinomial(spins, [1 / POCKETS] * POCKETS, size=trials)
    out: dict[int, np.ndarray] = {}
    for width in SECTOR_WIDTHS:
        window = samples.copy()
        for shift in range(1, width):
            window += np.roll(samples, -shift, axis=1)
        mean = spins * width / POCKETS
        sd = math.sqrt(spins * width / POCKETS * (1 - width / POCKETS)) or 1.0
        out[width] = np.sort((window.max(axis=1) - mean) / sd)
    return out


def hottest_sectors(counts: Sequence[int], trials: int = MC_TRIALS) -> dict[str, Any]:
    """For 3, 5 and 9 neighbouring pockets: the sector with most hits and how surprising that is."""
    import numpy as np

    n = sum(counts)
    ring = [counts[number] for number in WHEEL_ORDER]
    result: dict[str, Any] = {}
    null = _null_maxima(_bucket(n), trials) if n else {}
    for width in SECTOR_WIDTHS:
        sums = [sum(ring[(start + k) % POCKETS] for k in range(width)) for start in range(POCKETS)]
        best = max(range(POCKETS), key=lambda s: (sums[s], -s))
        expected = n * width / POCKETS
        entry: dict[str, Any] = {
            "numbers": [WHEEL_ORDER[(best + k) % POCKETS] for k in range(width)],
            "count": sums[best],
            "expected": expected,
            "p_value": None,
        }
        if n:
            sd = math.sqrt(n * width / POCKETS * (1 - width / POCKETS))
            observed = (sums[best] - expected) / sd
            sorted_null = null[width]
            at_least = len(sorted_null) - int(np.searchsorted(sorted_null, observed - 1e-12, side="left"))
            entry["p_value"] = (1 + at_least) / (1 + len(sorted_null))
        result[str(width)] = entry
    return result


def splits(counts: Sequence[int]) -> dict[str, Any]:
    def total(numbers: Any) -> int:
        return sum(counts[i] for i in numbers)

    low, high = range(1, 19), range(19, 37)
    return {
        "red_black_zero": {"red": total(RED), "black": total(BLACK), "zero": counts[0]},
        "odd_even": {"odd": total(range(1, 37, 2)), "even": total(range(2, 37, 2))},
        "low_high": {"low": total(low), "high": total(high)},
        "dozens": [total(range(1 + 12 * d, 13 + 12 * d)) for d in range(3)],
        "columns": [total(range(c, 37, 3)) for c in (1, 2, 3)],
    }


def _rate(hits: int, trials: int) -> float | None:
    return hits / trials if trials else None


# The wire's bet names (engine.bets) and the kinds of engine.math's report that share their house edge.
# A wire name stands for the first kind of engine.bets' table that has it (street, not trio: a trio
# has a street's edge).
def _math_kind_of_bet() -> dict[str, str]:
    out: dict[str, str] = {}
    for info in KINDS:
        out.setdefault(info.wire, info.math_row)
    return out


MATH_KIND_OF_BET: Mapping[str, str] = _math_kind_of_bet()


def house_edges(rules: Any, strategy: str = "optimal") -> dict[str, Fraction]:
    """Each bet's house edge under `rules` (engine.math, exact), keyed by the wire's bet name.

    Inside bets' edges depend on how bonus games are played; "optimal" is the edge the Rules
    Submission's math reports as the game's design (the lowest), see docs/math.md.
    """
    from engine.math.bonus_value import Strategy
    from engine.math.wager_math import game_math

    wagers = game_math(rules).wagers
    chosen = Strategy(strategy)
    return {bet: wagers[kind].house_edge(chosen) for bet, kind in MATH_KIND_OF_BET.items() if kind in wagers}


def theoretical(
    tally: Tally, house_edge: Fraction | Mapping[str, Fraction] | None
) -> tuple[Fraction | None, Decimal | None]:
    """(theoretical hold, theoretical win): one edge times the handle, or each bet's handle times its edge.

    With edges per bet the hold is over the handle whose bets are known; None when a bet has no edge.
    """
    if house_edge is None:
        return None, None
    if isinstance(house_edge, Fraction):
        return house_edge, (tally.wagered * house_edge.numerator / house_edge.denominator).quantize(
            Decimal("0.01")
        )
    if not tally.handle_by_bet or any(bet not in house_edge for bet in tally.handle_by_bet):
        return None, None
    handle = sum((Fraction(v) for v in tally.handle_by_bet.values()), Fraction(0))
    win = sum((Fraction(v) * house_edge[bet] for bet, v in tally.handle_by_bet.items()), Fraction(0))
    if not handle:
        return None, None
    exact = Decimal(win.numerator) / Decimal(win.denominator)
    return win / handle, exact.quantize(Decimal("0.01"))


def compute_stats(
    tally: Tally,
    *,
    expected_lucky_count: Fraction | None = None,
    house_edge: Fraction | Mapping[str, Fraction] | None = None,
    alpha: float = DEFAULT_ALPHA,
    trials: int = MC_TRIALS,
) -> dict[str, Any]:
    """Every figure of the surveillance charts for one tally (see the module docstring)."""
    counts = list(tally.counts)
    n = sum(counts)
    expected_lucky = (
        float(expected_lucky_count / POCKETS)
        if expected_lucky_count is not None
        else (tally.lucky_drawn / tally.drawn_spins / POCKETS if tally.drawn_spins else None)
    )
    win = tally.wagered - tally.returned
    edge, theoretical_win = theoretical(tally, house_edge)
    hold: dict[str, Any] = {
        "rounds_settled": tally.settled,
        "wagered": str(tally.wagered),
        "paid": str(tally.paid),
        "returned": str(tally.returned),
        "win": str(win),
        "actual": float(win / tally.wagered) if tally.wagered else None,
        "theoretical": None if edge is None else float(edge),
        "theoretical_win": None if theoretical_win is None else str(theoretical_win),
        "handle_by_bet": {bet: str(v) for bet, v in sorted(tally.handle_by_bet.items())},
    }
    directions = {}
    for name, dcounts in sorted(tally.by_direction.items()):
        chi = chi_square(dcounts)
        what = DIRECTION_WORDS.get(name, "spins of unknown direction")
        chi["words"] = p_words(
            f"{what}, every number equally likely", chi["p_value"], sum(dcounts), CHI_NEEDS, alpha=alpha
        )
        directions[name or "unknown"] = {"spins": sum(dcounts), "counts": list(dcounts), "chi_square": chi}
    chi = chi_square_in_words(counts, alpha)
    sectors = hottest_sectors(counts, trials)
    for width, sector in sectors.items():
        numbers = "-".join(map(str, sector["numbers"]))
        needs = sector_needs(int(width))
        sector["words"] = p_words(
            f"hottest {width}-pocket sector {numbers}", sector["p_value"], n, needs, alpha=alpha
        )
    return {
        "spins": n,
        "counts": counts,
        "expected_per_number": n / POCKETS,
        "chi_square": chi,
        "z_scores": z_scores(counts, alpha),
        "sectors": sectors,
        **splits(counts),
        "by_direction": directions,
        "lucky": {
            "spins_with_draw": tally.drawn_spins,
            "hits": tally.lucky_hits,
            "rate": _rate(tally.lucky_hits, tally.drawn_spins),
            "expected_rate": expected_lucky,
            "expected_rate_as_drawn": tally.lucky_drawn / tally.drawn_spins / POCKETS
            if tally.drawn_spins
            else None,
        },
        "bonus": {
            "spins_with_draw": tally.drawn_spins,
            "hits": tally.bonus_hits,
            "rate": _rate(tally.bonus_hits, tally.drawn_spins),
            "expected_rate": 1 / POCKETS,
        },
        "hold": hold,
    }


def expected_lucky_count(lucky_counts: Mapping[int, int]) -> Fraction:
    """E[k] of a Rules Submission's `lucky_counts` (k -> weight)."""
    total = sum(lucky_counts.values())
    return sum((Fraction(k * w, total) for k, w in lucky_counts.items()), Fraction(0))


# --- the query layer ----------------------------------------------------------------------------


def _day(moment: datetime | str | None) -> str | None:
    if moment is None:
        return None
    from engine.store.canonical import format_time

    return (format_time(moment) if isinstance(moment, datetime) else moment)[:10]


def read_tally(
    store: Store,
    table: str | None = None,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    last: int | None = None,
) -> Tally:
    """The tally of a table (or all tables) from the aggregates, or from `rounds` for a window."""
    import sqlalchemy as sa

    from engine.store import schema
    from engine.store.canonical import format_time
    from engine.store.projections import from_units

    def whole_days(moment: datetime | None) -> bool:
        return moment is None or (moment.hour, moment.minute, moment.second, moment.microsecond) == (
            0,
            0,
            0,
            0,
        )

    tally = Tally()
    if last is not None or not (whole_days(since) and whole_days(until)):
        r = schema.rounds
        query = sa.select(
            r.c.result, r.c.direction, r.c.lucky_count, r.c.lucky_hit, r.c.bonus_hit, r.c.status,
            r.c.wagered, r.c.paid, r.c.closed_at, r.c.handle, r.c.returned,
        ).where(r.c.result.is_not(None))  # fmt: skip
        if table is not None:
            query = query.where(r.c.table_id == table)
        if since is not None:
            query = query.where(r.c.opened_at >= format_time(since))
        if until is not None:
            query = query.where(r.c.opened_at < format_time(until))
        if last is not None:
            query = query.order_by(r.c.opened_at.desc()).limit(last)
        wagered = paid = returned = 0
        with store.read() as conn:
            # Rows unpacked positionally: a 10,000-spin window is 10,000 rows.
            rows = conn.execute(query).all()
        handle: dict[str, int] = {}
        for (
            result,
            direction,
            lucky_count,
            lucky_hit,
            bonus_hit,
            status,
            w,
            p,
            closed_at,
            by_bet,
            back,
        ) in rows:
            tally.counts[result] += 1
            tally.by_direction.setdefault(direction or "", [0] * POCKETS)[result] += 1
            if closed_at is not None:
                tally.drawn_spins += 1
                tally.lucky_drawn += lucky_count
                tally.lucky_hits += bool(lucky_hit)
                tally.bonus_hits += bool(bonus_hit)
            if status == "settled":
                tally.settled += 1
                wagered += w
                paid += p
                returned += back
                for bet, units in (json.loads(by_bet) if by_bet else {}).items():
                    handle[bet] = handle.get(bet, 0) + units
        tally.handle_by_bet = {bet: from_units(units) for bet, units in handle.items()}
        tally.wagered, tally.paid, tally.returned = (
            from_units(wagered),
            from_units(paid),
            from_units(returned),
        )
        return tally

    nc, dt = schema.number_counts, schema.daily_totals
    count_q = sa.select(nc.c.direction, nc.c.number, sa.func.sum(nc.c.spins)).group_by(
        nc.c.direction, nc.c.number
    )
    total_q = sa.select(
        *(sa.func.coalesce(sa.func.sum(dt.c[name]), 0) for name in (
            "drawn_spins", "lucky_drawn", "lucky_hits", "bonus_hits",
            "settled", "wagered", "paid", "returned",
        ))
    )  # fmt: skip
    if table is not None:
        count_q = count_q.where(nc.c.table_id == table)
        total_q = total_q.where(dt.c.table_id == table)
    if since is not None:
        count_q = count_q.where(nc.c.day >= _day(since))
        total_q = total_q.where(dt.c.day >= _day(since))
    if until is not None:
        count_q = count_q.where(nc.c.day < _day(until))
        total_q = total_q.where(dt.c.day < _day(until))
    dh = schema.daily_handle
    handle_q = sa.select(dh.c.bet, sa.func.sum(dh.c.wagered)).group_by(dh.c.bet)
    if table is not None:
        handle_q = handle_q.where(dh.c.table_id == table)
    if since is not None:
        handle_q = handle_q.where(dh.c.day >= _day(since))
    if until is not None:
        handle_q = handle_q.where(dh.c.day < _day(until))
    with store.read() as conn:
        tally.handle_by_bet = {bet: from_units(int(units)) for bet, units in conn.execute(handle_q) if units}
        for direction, number, spins in conn.execute(count_q):
            tally.counts[number] += int(spins)
            tally.by_direction.setdefault(direction, [0] * POCKETS)[number] += int(spins)
        totals = conn.execute(total_q).one()
    tally.drawn_spins, tally.lucky_drawn, tally.lucky_hits, tally.bonus_hits, tally.settled = map(
        int, totals[:5]
    )
    tally.wagered, tally.paid, tally.returned = (from_units(int(v)) for v in totals[5:8])
    return tally


def spin_series(
    store: Store,
    table: str,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    last: int | None = None,
) -> tuple[list[int], list[int]]:
    """The results and rotor-direction codes (engine.sequential.direction_code) of a table's settled
    spins in the window, in spin (journal) order: what the sequential tests are fed."""
    import sqlalchemy as sa

    from engine.sequential import direction_code
    from engine.store import schema
    from engine.store.canonical import format_time

    r = schema.rounds
    query = sa.select(r.c.seq, r.c.result, r.c.direction).where(
        r.c.table_id == table, r.c.status == "settled", r.c.result.is_not(None)
    )
    if since is not None:
        query = query.where(r.c.opened_at >= format_time(since))
    if until is not None:
        query = query.where(r.c.opened_at < format_time(until))
    query = query.order_by(r.c.opened_at.desc(), r.c.seq.desc()).limit(last) if last else query
    with store.read() as conn:
        rows = sorted(conn.execute(query).all())
    return [int(row[1]) for row in rows], [direction_code(row[2]) for row in rows]


def sequential_stats(
    store: Store,
    table: str | None,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    last: int | None = None,
    thresholds: Any = None,
) -> dict[str, Any]:
    """`drr stats --json`'s "sequential": the sequential tests (engine.sequential) over the window's
    spins of the table (of each table, for every table: their alarms named by table)."""
    from engine.sequential import DEFAULT_THRESHOLDS, alarms_json

    chosen = thresholds or DEFAULT_THRESHOLDS
    if table is not None:
        return alarms_json(*spin_series(store, table, since=since, until=until, last=last), chosen)
    from engine.store.users import FLOOR

    alarms: list[dict[str, Any]] = []
    out: dict[str, Any] = {}
    for name in store.journal.tables():
        if name == FLOOR:
            continue
        out = alarms_json(*spin_series(store, name, since=since, until=until, last=last), chosen)
        alarms += [{**a, "words": f"table {name}: {a['words']}"} for a in out["alarms"]]
    alarms.sort(key=lambda a: a["at_spin"])
    return {
        "alarms": alarms,
        "false_alarms_per_table_year": alarms_json([], None, chosen)["false_alarms_per_table_year"],
    }


def table_stats(
    store: Store,
    table: str | None = None,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    last: int | None = None,
    expected_lucky: Fraction | None = None,
    house_edge: Fraction | Mapping[str, Fraction] | None = None,
    alpha: float = DEFAULT_ALPHA,
    sequential: bool = False,
    thresholds: Any = None,
) -> dict[str, Any]:
    """`compute_stats` over the store's aggregates for a table (None: every table) and window; with
    `sequential` (`drr stats`), the sequential tests' alarms over the same spins (`thresholds`:
    engine.sequential.Thresholds). A surveillance page reads the table's live tests instead
    (engine.table.bias_watch), not a replay of its window at every refresh."""
    tally = read_tally(store, table, since=since, until=until, last=last)
    result = compute_stats(tally, expected_lucky_count=expected_lucky, house_edge=house_edge, alpha=alpha)
    if sequential:
        result["sequential"] = sequential_stats(
            store, table, since=since, until=until, last=last, thresholds=thresholds
        )
    result["table"] = table
    result["window"] = {
        "since": None if since is None else since.isoformat(),
        "until": None if until is None else until.isoformat(),
        "last": last,
    }
    return result
