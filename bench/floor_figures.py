"""A short live floor beside PostgreSQL's own round trip (`python -m bench --only floor`, issue 28).

`floor_commit_to_screen_ms_p99`: the scale bench's live floor (bench.scale_floor.bench_live: every
table on its own journal and forwarder, the surveillance station in its own process woken by
LISTEN/NOTIFY) at FLOOR_TABLES tables for LIVE_SECONDS, the 99th percentile of a commit at a table
to its tile repainted; the median of REPEATS runs, `_min` and `_max` beside it, with
`floor_commit_to_floor_ms_p99` (of which: forwarded) and `floor_floor_to_screen_ms_p99` (the
station's share), and each hop of the way (`floor_hop_<hop>_ms_p99`, `_median`, `_slowest`: the
hop's mean over the slowest 1% of commits; bench.scale_floor.HOPS names them), the station's CPU per
commit by thread (`floor_station_<thread>_cpu_ms_per_commit`) and its charts' paints, resizes and new
figures (`floor_station_chart_*`), and `floor_commits_not_shown` (the most of any run). Its limit, measured
between the runs on the same server: `limit_pg_notify_ms_p99`, INSERT + `pg_notify` + COMMIT on one
connection seen by LISTEN on another (bench.limits), plus one 60 Hz frame for the paint;
`floor_commit_to_screen_vs_limit` is their ratio.
Runs where a PostgreSQL is reachable: $DRR_BENCH_PG_URL, else this machine's at 127.0.0.1:5432;
with none, the group says so on stderr and gives no figure. The 100-table figure is the scale
bench's (`make bench-scale`).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.limits import FRAME_MS, Spread, pg_notify_round_trip_ms, vs_limit

FLOOR_TABLES = 20
FLOOR_ROUNDS = 20_000  # rounds of history on the floor
LIVE_SECONDS = 15.0
REPEATS = 3
NOTIFY_TRIPS = 200
LOCAL_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def reachable_pg() -> str | None:
    """The PostgreSQL to measure on: $DRR_BENCH_PG_URL, else this machine's if it answers."""
    named = os.environ.get("DRR_BENCH_PG_URL")
    if named:
        return named
    import psycopg

    try:
        psycopg.connect(LOCAL_PG.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=2).close()
    except psycopg.Error:
        return None
    return LOCAL_PG


def _p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[98]


def bench_floor() -> dict[str, float]:
    from bench.scale import ScaleContext
    from bench.scale_floor import bench_live

    url = reachable_pg()
    if url is None:
        print(
            "  floor: no PostgreSQL reachable ($DRR_BENCH_PG_URL or 127.0.0.1:5432): not measured",
            file=sys.stderr,
        )
        return {}
    runs: list[dict[str, float]] = []
    limits: list[float] = []
    with tempfile.TemporaryDirectory(prefix="drr-bench-floor-") as tmp:
        for run in range(REPEATS):
            limits.append(_p99(pg_notify_round_trip_ms(url, NOTIFY_TRIPS)))
            ctx = ScaleContext(
                Path(tmp) / f"run-{run}",
                floor_tables=FLOOR_TABLES,
                floor_rounds=FLOOR_ROUNDS,
                pg_url=url,
                live_seconds=LIVE_SECONDS,
            )
            ctx.workdir.mkdir()
            runs.append(bench_live(ctx))
    figures: dict[str, float] = {}
    for name in (
        "floor_commit_to_screen_ms_p99",
        "floor_commit_to_floor_ms_p99",
        "floor_floor_to_screen_ms_p99",
    ):
        figures.update(Spread.of(r[name] for r in runs).figures(name))
    # Commits never on screen by a run's end (each an infinite latency): the most of any run.
    figures["floor_commits_not_shown"] = max(r.get("floor_commits_not_shown", 0.0) for r in runs)
    # Where the time goes, hop by hop (bench.scale_floor.hop_table), and the station's CPU by thread
    # and its charts' paints: the median of the runs' figures.
    for name in sorted({k for r in runs for k in r if k.startswith(("floor_hop_", "floor_station_"))}):
        if all(name in r for r in runs):
            figures[name] = statistics.median(r[name] for r in runs)
    limit = Spread.of(limits)
    figures.update(limit.figures("limit_pg_notify_ms_p99"))
    figures["floor_commit_to_screen_vs_limit"] = vs_limit(
        figures["floor_commit_to_screen_ms_p99"], limit.median + FRAME_MS, rate=False
    )
    return figures


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"floor": bench_floor}
