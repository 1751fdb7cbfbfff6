"""Every figure of one table's surveillance page, computed from the store (headless, testable).

The statistics are `engine.store.stats.table_stats` — the very function behind `drr stats` — so the
station and the command line can never disagree. On top of them this module adds what only the
charts need: the frequency bars in layout or wheel order with the expected line and the 99% band,
the ring of per-pocket deviations, plain words with a power calculation, the tests on the order of
results (dealer signature, repeats) and the actual hold over time, plus the rotor trend and the
bonus outcomes read from the tail of the table's journal (`JournalTail`, incremental).

The order-dependent figures read at most `SEQUENCE_LIMIT` most recent rounds of the window, so a
page stays cheap on a table with millions of rounds.
"""

from __future__ import annotations

import functools
import json
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.exact import format_odds
from engine.floor.power import spins_needed, verdict
from engine.floor.sequence import Spin, dealer_signature, repeats
from engine.floor.wheel_alarms import WHEEL_PHYSICS, GameWatch, TableWatch
from engine.floor.windows import SpinWindow
from engine.journal_types import parse, spellings
from engine.round import BonusOutcome
from engine.store import schema
from engine.store.canonical import format_time
from engine.store.stats import DEFAULT_ALPHA, POCKETS, table_stats
from engine.wheel_events import WheelRotor
from engine.wheel_layout import WHEEL_ORDER

if TYPE_CHECKING:
    from engine.store.db import Store

SEQUENCE_LIMIT = 10_000
JOURNAL_TAIL = 20_000  # entries of a table's journal read when a page first opens
HOLD_POINTS = 300
BAND = 0.99
DEFAULT_EDGE = Fraction(1, 37)  # the single-zero edge of the even-money wagers (stations pass per-bet edges)
LAYOUT_ORDER = tuple(range(POCKETS))
# The journal's entries a page's tail keeps figures of (every stored spelling).
_TAIL_TYPES = frozenset(spellings(EntryType.ROUND_BONUS_OUTCOME, EntryType.WHEEL_ROTOR, *WHEEL_PHYSICS))


@dataclass
class JournalTail:
    """The rotor readings and bonus outcomes of a table, kept current by reading only new entries."""

    table: str
    last_seq: int = 0
    last_time: str | None = None
    rotor: deque[tuple[str, float, str]] = field(default_factory=lambda: deque(maxlen=2000))
    bonus_odds: Counter[str] = field(default_factory=Counter)
    # Each wheel game's physics (rpm and direction at the result, misfires; issue 26), for the charts.
    watch: TableWatch = field(default_factory=TableWatch)

    def update(self, store: Store) -> bool:
        """Read the entries appended since the last call; True if there were any."""
        j = schema.journal
        with store.read() as conn:
            head = conn.execute(
                sa.select(schema.chain_heads.c.seq).where(schema.chain_heads.c.table_id == self.table)
            ).scalar()
            if head is None or int(head) <= self.last_seq:
                return False
            start = max(self.last_seq + 1, int(head) - JOURNAL_TAIL + 1)
            rows = conn.execute(
                sa.select(j.c.seq, j.c.time, j.c.type, j.c.payload)
                .where(j.c.table_id == self.table, j.c.seq >= start)
                .order_by(j.c.seq)
            ).all()
        for seq, time, kind, payload in rows:
            self.last_seq, self.last_time = int(seq), time
            if kind not in _TAIL_TYPES:  # the other entries are not read
                continue
            try:  # wheel.rotor_speed of old journals (and the demo floor) reads as wheel.rotor
                p = parse(kind, json.loads(payload), where=f"journal entry {seq} of table {self.table}")
            except (DrrError, ValueError):
                continue  # an odd entry is not a figure (drr audit verify reports it)
            if isinstance(p, BonusOutcome):
                self.bonus_odds[format_odds(p.odds)] += 1
            elif isinstance(p, WheelRotor):
                self.rotor.append((time, float(p.rpm), p.direction))
            if not isinstance(p, BonusOutcome):
                self.watch.feed(p, time)
        return True


class _SeqRow(NamedTuple):
    # Plain tuples: attribute access on SQLAlchemy rows costs ~1.5 us, and 10,000 are read per refresh.
    result: int
    dealer: str | None
    status: str
    wagered: int
    returned: int
    opened_at: str


def _sequence(store: Store, table: str, window: SpinWindow) -> list[_SeqRow]:
    r = schema.rounds
    limit = min(window.last or SEQUENCE_LIMIT, SEQUENCE_LIMIT)
    query = (
        sa.select(r.c.result, r.c.dealer, r.c.status, r.c.wagered, r.c.returned, r.c.opened_at)
        .where(r.c.table_id == table, r.c.result.is_not(None))
        .order_by(r.c.opened_at.desc())
        .limit(limit)
    )
    if window.since is not None:
        query = query.where(r.c.opened_at >= format_time(window.since))
    if window.until is not None:
        query = query.where(r.c.opened_at < format_time(window.until))
    with store.read() as conn:
        rows = [_SeqRow._make(row) for row in conn.execute(query).all()]
    rows.reverse()
    return rows


@functools.lru_cache(maxsize=4096)
def _band(n: int) -> tuple[float, float]:
    """The 99% binomial band of one number's count in `n` spins (a wall's tiles share a few n)."""
    from scipy import stats

    p = 1 / POCKETS
    tail = (1 - BAND) / 2
    return float(stats.binom.ppf(tail, n, p)), float(stats.binom.isf(tail, n, p))


def frequency(counts: list[int], order: tuple[int, ...]) -> dict[str, Any]:
    """Bars in `order` with the expected count and the 99% binomial band of one number."""
    n = sum(counts)
    low, high = _band(n) if n else (0.0, 0.0)
    return {
        "numbers": list(order),
        "counts": [counts[k] for k in order],
        "expected": n * (1 / POCKETS),
        "band_low": low,
        "band_high": high,
    }


def hold_series(rows: list[Any], theoretical: float | None) -> dict[str, Any]:
    """Cumulative actual hold, (wagered - returned) / wagered, over the settled rounds of the window,
    sampled to HOLD_POINTS; `theoretical` is the Rules Submission's hold for the window's bets."""
    wagered = returned = 0
    xs: list[int] = []
    ys: list[float] = []
    settled = [row for row in rows if row.status == "settled" and row.wagered]
    step = max(1, len(settled) // HOLD_POINTS)
    for i, row in enumerate(settled, 1):
        wagered += row.wagered
        returned += row.returned
        if i % step == 0 or i == len(settled):
            xs.append(i)
            ys.append((wagered - returned) / wagered)
    return {"rounds": xs, "actual": ys, "theoretical": theoretical}


@dataclass
class SurveillancePage:
    """One table's surveillance page: `stats` is exactly `drr stats --json` for the same window."""

    table: str
    window: SpinWindow
    stats: dict[str, Any]
    layout: dict[str, Any]
    wheel: dict[str, Any]
    ring: list[tuple[int, float]]
    verdict: str
    spins_for_ratio: int
    dealers: list[dict[str, Any]]
    repeats: dict[str, Any]
    hold: dict[str, Any]
    rotor: list[tuple[str, float, str]]
    bonus_odds: dict[str, int]
    last_time: str | None
    games: list[GameWatch] = field(default_factory=list)  # the wheel's games, oldest first (issue 26)


def table_view(
    store: Store,
    table: str,
    window: SpinWindow,
    *,
    expected_lucky: Fraction | None = None,
    house_edge: Fraction | Mapping[str, Fraction] | None = DEFAULT_EDGE,
    alpha: float = DEFAULT_ALPHA,
    tail: JournalTail | None = None,
) -> SurveillancePage:
    stats = table_stats(
        store,
        table,
        **window.stats_kwargs(),
        expected_lucky=expected_lucky,
        house_edge=house_edge,
        alpha=alpha,
    )
    counts = stats["counts"]
    z = stats["z_scores"]["z"]
    rows = _sequence(store, table, window)
    tail = tail or JournalTail(table)
    tail.update(store)
    return SurveillancePage(
        table=table,
        window=window,
        stats=stats,
        layout=frequency(counts, LAYOUT_ORDER),
        wheel=frequency(counts, WHEEL_ORDER),
        ring=[(n, z[n]) for n in WHEEL_ORDER],
        verdict=verdict(stats, alpha=alpha),
        spins_for_ratio=spins_needed(1.2, alpha=alpha),
        dealers=dealer_signature([Spin(row.result, row.dealer) for row in rows], alpha),
        repeats=repeats([row.result for row in rows]),
        hold=hold_series(rows, stats["hold"]["theoretical"]),
        rotor=list(tail.rotor),
        bonus_odds=dict(sorted(tail.bonus_odds.items(), key=lambda kv: Fraction(kv[0]))),
        last_time=tail.last_time,
        games=list(tail.watch.games),
    )


def floor_tables(store: Store) -> list[str]:
    """Every table with a journal in the store (the back office's own chain excluded)."""
    from engine.store.users import FLOOR

    with store.read() as conn:
        names = conn.execute(sa.select(schema.chain_heads.c.table_id).order_by("table_id")).scalars()
        return [t for t in names if t != FLOOR]
