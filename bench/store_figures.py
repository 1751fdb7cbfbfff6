"""Store benchmarks for `drr bench`: durable journal appends, CSV import, statistics at casino scale.

`journal_appends_per_s`: single `Journal.append` calls per second on a SQLite file (WAL,
synchronous=FULL: each append committed and fsynced before it returns, hash-chained, projections
updated), a typical wager event each; the median of 5 runs of 600, with `_min` and `_max` (the
older key `…_median` is the same median). Its
chain has no key file, so no signature or MAC: `journal_appends_signed_per_s` is the same with the
table's key, as a table writes (each entry MAC'd, the head signed with Ed25519 at every append, the
witness rewritten at most every 0.25 s). Goal (unsigned) >= 2,000. What an append costs beyond its
one fdatasync (which a shared disk can make 1-4 ms; ~0.3 ms on an idle one): ~200 us of CPU
unsigned and ~300 us signed on the shared 2-core machine at load 6 (it was ~900 and ~1,200 before
the statements were precompiled, issue 15), about a third of it SQLite's own, a fifth the head's
Ed25519 signature when signed.
`limit_fsync_commits_per_s`: the disk's limit for the same work (bench.limits: raw sqlite3, WAL,
synchronous=FULL, one 350-byte INSERT + COMMIT), each run alternated with the appends' runs in the
same folder; `appends_vs_limit` is the signed appends' time over the limit's (1.0 is the limit;
goal <= 1.6), `appends_unsigned_vs_limit` the same unsigned.
`import_rounds_per_s`: rounds per second through `drr history import` (CSV parsed and checked, one
transaction of `history.imported` journal entries with their projections).
`audit_verify_events_per_s`: journal entries per second checked by `drr audit verify` (hash recomputed,
chain and checkpoints followed), over that import (an unsigned chain: every entry by the reference
check). The `chain` group (bench/chain_figures.py) measures a signed, MAC'd table chain:
`audit_verify_entries_per_s`, `audit_verify_incremental_ms_at_200k`, `table_start_ms_at_200k_entries`.
`stats_ms_at_1M_rounds`: one full `table_stats` (every figure of `drr stats`) of a table holding
1,000,000 rounds, after a first call has filled the Monte-Carlo null cache (the steady state of a
surveillance screen); `stats_cold_ms_at_1M_rounds` is that first call (scipy already imported). The
million rounds are written straight into the projections (one year, 2,740 a day, random pockets and
directions) as the journal would leave them; the statistics read only the aggregates.
`stats_last10k_ms_at_1M_rounds`: the `--last 10000` window, which reads the newest 10,000 `rounds`
rows through an index.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

APPENDS = 3000
REPEATS = 5
IMPORT_ROUNDS = 20_000
BIG_TABLE_ROUNDS = 1_000_000


def bench_appends() -> dict[str, float]:
    """The append figures, each repetition beside a repetition of the fsync limit in the same folder."""
    import os

    from bench.limits import Spread, fsync_commits_per_s, vs_limit
    from engine.store import keys, open_store

    per_run = APPENDS // REPEATS
    runs: dict[str, list[float]] = {"unsigned": [], "signed": [], "limit": []}
    with tempfile.TemporaryDirectory() as tmp:
        saved = os.environ.get(keys.KEY_DIR_ENV)
        os.environ[keys.KEY_DIR_ENV] = str(Path(tmp) / "keys")  # the bench's key never in the user's dir
        try:
            with (
                open_store(str(Path(tmp) / "bench.sqlite")) as unsigned,
                open_store(str(Path(tmp) / "signed.sqlite")) as signed,
            ):
                # as a table's first start leaves it: a key, its witness marking the chain
                keys.update(keys.create(signed.where, "B1"), journaled=True)
                append_unsigned, append_signed = _appender(unsigned), _appender(signed)
                for _ in range(REPEATS):
                    # Alternated, so another program's disk traffic on a shared machine falls on all three.
                    runs["limit"].append(fsync_commits_per_s(Path(tmp), per_run))
                    runs["unsigned"].append(append_unsigned(per_run))
                    runs["signed"].append(append_signed(per_run))
        finally:
            if saved is None:
                os.environ.pop(keys.KEY_DIR_ENV, None)
            else:
                os.environ[keys.KEY_DIR_ENV] = saved
    unsigned_s, signed_s, limit_s = (Spread.of(runs[k]) for k in ("unsigned", "signed", "limit"))
    return {
        **unsigned_s.figures("journal_appends_per_s"),
        "journal_appends_per_s_median": unsigned_s.median,  # the older key: the same median
        **signed_s.figures("journal_appends_signed_per_s"),
        "journal_appends_signed_per_s_median": signed_s.median,
        **limit_s.figures("limit_fsync_commits_per_s"),
        "appends_vs_limit": vs_limit(signed_s.median, limit_s.median, rate=True),
        "appends_unsigned_vs_limit": vs_limit(unsigned_s.median, limit_s.median, rate=True),
    }


def _appender(store: object) -> Callable[[int], float]:
    """A function appending n single wager entries to `store`'s journal, returning appends per second."""
    from engine.bets import Wager, inside_bet
    from engine.journal_types import write
    from engine.round import RoundOpened, WagerPlaced
    from engine.store.db import Store

    assert isinstance(store, Store)
    j = store.journal
    j.append_many([write(RoundOpened("b-1", "0" * 64), table="B1", round_id="b-1", user="dana")])
    wager = write(
        WagerPlaced(Wager("w1", "p3", inside_bet([17, 20]), Decimal("25.00"))),
        table="B1",
        round_id="b-1",
        user="dana",
    )

    def run(n: int) -> float:
        started = time.perf_counter()
        for _ in range(n):
            j.append_many([wager])
        return n / (time.perf_counter() - started)

    return run


def bench_import() -> dict[str, float]:
    import secrets

    from engine.store import open_store
    from engine.store.history import import_csv
    from engine.store.verify import verify

    start = datetime(2026, 1, 1, tzinfo=UTC)
    lines = ["timestamp,number"] + [
        f"{(start + timedelta(seconds=90 * i)).isoformat()},{secrets.randbelow(37)}"
        for i in range(IMPORT_ROUNDS)
    ]
    with tempfile.TemporaryDirectory() as tmp, open_store(str(Path(tmp) / "bench.sqlite")) as store:
        path = Path(tmp) / "results.csv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        started = time.perf_counter()
        import_csv(store, path, "B2")
        elapsed = time.perf_counter() - started
        started = time.perf_counter()
        report = verify(store, "B2")
        checked = time.perf_counter() - started
        assert report.ok and report.events == IMPORT_ROUNDS
    return {
        "import_rounds_per_s": IMPORT_ROUNDS / elapsed,
        "audit_verify_events_per_s": IMPORT_ROUNDS / checked,
    }


def fill_big_table(store: object, table: str, rounds: int = BIG_TABLE_ROUNDS) -> None:
    """Write `rounds` settled rounds straight into the projections, as the journal would leave them."""
    import numpy as np
    import sqlalchemy as sa

    from engine.store import schema
    from engine.store.db import Store

    assert isinstance(store, Store)
    rng = np.random.default_rng(1)
    numbers = rng.integers(0, 37, rounds)
    directions = rng.integers(0, 2, rounds)
    lucky_hit = rng.random(rounds) < 3.55 / 37
    bonus_hit = rng.random(rounds) < 1 / 37
    per_day = 2740
    start = datetime(2025, 1, 1, tzinfo=UTC)
    counts: dict[tuple[str, str, int], int] = {}
    totals: dict[str, list[int]] = {}
    names = [c.name for c in schema.rounds.columns]
    rows: list[tuple[object, ...]] = []
    for i in range(rounds):
        moment = start + timedelta(seconds=i * 86400 // per_day)
        stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
        day, direction, number = stamp[:10], ("cw", "ccw")[directions[i]], int(numbers[i])
        counts[(day, direction, number)] = counts.get((day, direction, number), 0) + 1
        t = totals.setdefault(day, [0] * 5)
        t[0] += 1
        t[1] += bool(lucky_hit[i])
        t[2] += bool(bonus_hit[i])
        t[3] += 100_000
        t[4] += 95_000
        row = {
            "table_id": table, "round_id": f"{table}-{i}", "seq": i * 5 + 1, "status": "settled",
            "source": "table", "opened_at": stamp, "closed_at": stamp, "result_at": stamp,
            "settled_at": stamp, "result": number, "lucky": '[[17,"199"]]', "lucky_count": 3,
            "bonus_number": 0, "lucky_hit": bool(lucky_hit[i]), "bonus_hit": bool(bonus_hit[i]),
            "wagered": 100_000, "paid": 45_000, "returned": 95_000, "handle": '{"red":100000}',
            "manual": False, "irregularities": 0,
            "dealer": "dana", "direction": direction, "game_number": i % 1000, "note": None,
            "rules_sha256": None,
        }  # fmt: skip
        rows.append(tuple(row[n] for n in names))
    insert_sql = f"INSERT INTO rounds ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    with store.begin() as conn:
        conn.exec_driver_sql(insert_sql, rows)  # type: ignore[arg-type]
        conn.execute(
            sa.insert(schema.number_counts),
            [
                {"table_id": table, "day": d, "direction": r, "number": n, "spins": c}
                for (d, r, n), c in counts.items()
            ],
        )
        conn.execute(
            sa.insert(schema.daily_totals),
            [
                {
                    "table_id": table, "day": d, "spins": t[0], "drawn_spins": t[0], "lucky_drawn": 3 * t[0],
                    "lucky_hits": t[1], "bonus_hits": t[2], "settled": t[0], "voided": 0, "irregularities": 0,
                    "wagered": t[3], "paid": t[4] * 45 // 95, "returned": t[4],
                }
                for d, t in totals.items()
            ],
        )  # fmt: skip


def bench_stats() -> dict[str, float]:
    from fractions import Fraction

    from engine.store import open_store
    from engine.store.stats import _null_maxima, table_stats

    with tempfile.TemporaryDirectory() as tmp, open_store(str(Path(tmp) / "big.sqlite")) as store:
        fill_big_table(store, "B3")
        import scipy.stats  # noqa: F401  (its import, ~1 s once per process, is not the query's cost)

        _null_maxima.cache_clear()
        edge = Fraction(1, 37)

        def timed(**kw: object) -> float:
            started = time.perf_counter()
            result = table_stats(store, "B3", house_edge=edge, expected_lucky=Fraction(71, 20), **kw)  # type: ignore[arg-type]
            elapsed = (time.perf_counter() - started) * 1000
            assert result["spins"] == (kw.get("last") or BIG_TABLE_ROUNDS)
            return elapsed

        cold = timed()
        warm = statistics.median(timed() for _ in range(5))
        timed(last=10_000)
        last = statistics.median(timed(last=10_000) for _ in range(5))
    return {
        "stats_ms_at_1M_rounds": warm,
        "stats_cold_ms_at_1M_rounds": cold,
        "stats_last10k_ms_at_1M_rounds": last,
    }


def bench_chain() -> dict[str, float]:
    from bench.chain_figures import bench_chain as run

    return run()


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {
    "journal": bench_appends,
    "chain": bench_chain,  # bench/chain_figures.py: verify speed, incremental verify, table start
    "history_import": bench_import,
    "store_stats": bench_stats,
}
