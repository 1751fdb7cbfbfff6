"""Scale figures of the floor (drr bench --scale): forwarding into PostgreSQL, and a floor of 100 live tables.

`floor_forward_entries_per_s` (group floor_forward): one table catching up into the floor's PostgreSQL
through `engine.store.forward.Forwarder` (the code `drr db forward` runs): the run's long signed
journal (`ctx.long_journal()`), up to `FORWARD_ENTRIES` of its entries forwarded batch by batch into an
empty floor schema (journal by COPY, projections folded per batch), entries per second; and
`audit_verify_entries_per_s_pg`: `verify` of that copy on the floor's PostgreSQL (the floor's audit
of a table it received: no key file there, so the hash chain, the signed checkpoints under the key
the journal names and the signed heads; no MACs), entries per second; and
`audit_verify_command_entries_per_s_pg`: the whole `drr audit verify` of it (the derived tables
checked against the journal's fold too).

`floor_audit_entries_per_s_one_by_one` / `_side_by_side` (group floor_audit): the floor's whole
`drr audit verify` of `AUDIT_TABLES` signed journals forwarded into an empty floor schema, table after
table and on a forked worker per core (engine.store.audit_tables); `floor_audit_workers` says how
many workers it had (0: forking was not possible in this process).

Group floor_live, against PostgreSQL, in two processes:
- the floor: `ctx.floor_rounds` settled rounds of history over `ctx.floor_tables` tables written
  straight into the floor's projections (BENCHMARK FIXTURE, as bench/station_figures.py: millions of
  journal entries would take hours), then every table played live through its own `TableService` on
  its own SQLite journal (the demo floor's wagers and wheel), each commit forwarded by the table's
  `Forwarder` at once (the forwarders on `FORWARD_THREADS` threads, as each table PC runs its own),
  the floor together dealing `FLOOR_ROUNDS_PER_S` rounds a second (a hundred busy tables);
- the surveillance station (`python -m bench.scale_floor station …`, offscreen), the real
  `SurveillanceWindow` with every table on the wall, woken by LISTEN/NOTIFY.
`floor_wall_refresh_ms_at_100_tables`: the whole wall recomputed and repainted (best of three).
`floor_commit_to_screen_ms_p99`: for every commit at a table, the time until the station has redrawn
that table's tile with it (the tile repainted), 99th percentile.
`floor_cpu_per_table_pct`: the station's CPU time over the live period, in % of one core, per table.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.scale import ScaleContext, register

CHECKOUT = Path(__file__).resolve().parent.parent  # the checkout that holds bench/

FORWARD_ENTRIES = 1_000_000
FLOOR_ROUNDS_PER_S = 2.0  # 100 tables at 72 rounds an hour: a busy casino floor
FORWARD_THREADS = 8  # the tables' forwarders, each table always on the same one (in order)
LIVE_SECONDS = 60.0


@contextlib.contextmanager
def scratch_schema(pg_url: str, prefix: str) -> Iterator[str]:
    """A URL to `pg_url` whose search_path is a new schema (dropped afterwards)."""
    import sqlalchemy as sa

    from engine.store.db import resolve_url

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(resolve_url(pg_url))
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{name}"'))
    url = sa.engine.make_url(resolve_url(pg_url)).update_query_dict({"options": f"-csearch_path={name}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()


def _pg(ctx: ScaleContext) -> str:
    from bench.scale import ScaleSkip

    if ctx.pg_url is None:
        raise ScaleSkip("the floor figures need PostgreSQL (--pg URL or DRR_BENCH_PG_URL)")
    return ctx.pg_url


# -- floor_forward_entries_per_s ---------------------------------------------------------------------


def bench_forward(ctx: ScaleContext) -> dict[str, float]:
    from engine.store import open_store
    from engine.store.forward import Forwarder
    from engine.store.verify import audit, verify

    pg = _pg(ctx)
    journal = ctx.long_journal()
    wanted = min(journal.entries, FORWARD_ENTRIES)
    with (
        open_store(journal.url, table=journal.table) as local,
        scratch_schema(pg, "drr_bench_fwd") as url,
        open_store(url) as central,
    ):
        forwarder = Forwarder(local, central, [journal.table])
        sent = 0
        started = time.perf_counter()
        while sent < wanted:
            n = forwarder.forward_batch(journal.table)
            if not n:
                break
            sent += n
            ctx.progress(0.8 * sent / wanted, f"forwarded {sent:,} entries")
        elapsed = time.perf_counter() - started
        # The floor's own audit of what it received: `drr audit verify` of the table's copy on the
        # floor (no key file there: the hash chain, the signed checkpoints under the key the table's
        # journal names, and the signed heads the forwarder handed over).
        ctx.progress(0.85, "verifying the floor's copy")
        began = time.perf_counter()
        report = verify(central, journal.table, remember=False)
        verify_s = time.perf_counter() - began
        if not report.ok:
            raise RuntimeError(f"the floor's copy does not verify: {report.problem}")
        ctx.progress(0.9, "the whole drr audit verify of the floor's copy")
        began = time.perf_counter()
        whole = audit(central, journal.table)
        whole_s = time.perf_counter() - began
        if not whole.report.ok or whole.damage is not None or whole.derived is not None:
            raise RuntimeError(f"drr audit verify fails the floor's copy: {whole}")
    return {
        "floor_forward_entries_per_s": sent / elapsed,
        "audit_verify_entries_per_s_pg": report.events / verify_s,
        "audit_verify_command_entries_per_s_pg": whole.report.events / whole_s,
    }


# -- floor_audit_entries_per_s ------------------------------------------------------------------------

AUDIT_TABLES = 4
AUDIT_ENTRIES = 250_000  # each table's journal


def bench_floor_audit(ctx: ScaleContext) -> dict[str, float]:
    """The floor's whole `drr audit verify` (every table: chains, derived tables, users) of
    `AUDIT_TABLES` forwarded signed journals, table after table and side by side
    (engine.store.audit_tables), entries per second of each."""
    from bench.synthetic import build_long_journal
    from engine.store import audit_tables, open_store
    from engine.store.forward import Forwarder
    from engine.store.verify import audit

    pg = _pg(ctx)
    size = 3_000 if ctx.tiny else AUDIT_ENTRIES
    # Tiny sizes: two tables are still audited side by side (each journal's 50 template rounds are
    # played through the table service, most of the tiny run's time).
    tables = 2 if ctx.tiny else AUDIT_TABLES
    out: dict[str, float] = {}
    with scratch_schema(pg, "drr_bench_audit") as url:
        with open_store(url) as central:
            for i in range(tables):
                table = f"A{i + 1}"
                ctx.progress(0.6 * i / tables, f"table {table}: {size:,} entries forwarded")
                path = ctx.workdir / f"audit-{table}.sqlite"
                journal = build_long_journal(path, size, key_dir=ctx.key_dir, table=table)
                with open_store(journal.url, table=table) as local:
                    forwarder = Forwarder(local, central, [table])
                    while forwarder.forward_batch(table):
                        pass
                path.unlink(missing_ok=True)
        before = audit_tables.WORKERS
        try:
            with open_store(url, migrate=False) as store:
                for label, workers in (("one_by_one", 0), ("side_by_side", None)):
                    what = label.replace("_", " ")
                    ctx.progress(0.7 if workers == 0 else 0.85, f"the floor's audit, {what}")
                    audit_tables.WORKERS = workers
                    began = time.perf_counter()
                    found = audit(store)
                    took = time.perf_counter() - began
                    if not found.report.ok or found.damage is not None or found.derived is not None:
                        raise RuntimeError(f"the floor does not verify: {found}")
                    out[f"floor_audit_entries_per_s_{label}"] = found.report.events / took
                used = audit_tables.workers_for(store, sorted(found.report.tables))
                out["floor_audit_workers"] = float(used)  # 0: forking was not possible here
        finally:
            audit_tables.WORKERS = before
    return out


# -- the live floor ----------------------------------------------------------------------------------


def fill_floor_history(url: str, tables: list[str], rounds: int) -> None:
    """BENCHMARK FIXTURE: `rounds` settled rounds spread over `tables`, written straight into the floor's
    projections (rounds by COPY, the day aggregates summed), the days before the live play starts."""
    import numpy as np
    import sqlalchemy as sa

    from engine.floor.demo import START
    from engine.store import open_store, schema

    per_table = max(1, rounds // len(tables))
    names = [c.name for c in schema.rounds.columns]
    rng = np.random.default_rng(7)
    counts: dict[tuple[str, str, str, int], int] = {}
    totals: dict[tuple[str, str], int] = {}
    with open_store(url) as store, store.begin() as conn:
        raw: Any = conn.connection.driver_connection
        with raw.cursor() as cur, cur.copy(f"COPY rounds ({', '.join(names)}) FROM STDIN") as copy:
            for table in tables:
                numbers = rng.integers(0, 37, per_table)
                first = START - timedelta(seconds=per_table * 72)  # 50 rounds an hour, up to the live start
                for i in range(per_table):
                    stamp = (first + timedelta(seconds=72 * i)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
                    number, direction = int(numbers[i]), ("cw", "ccw")[i % 2]
                    counts[(table, stamp[:10], direction, number)] = (
                        counts.get((table, stamp[:10], direction, number), 0) + 1
                    )
                    totals[(table, stamp[:10])] = totals.get((table, stamp[:10]), 0) + 1
                    row = {
                        "table_id": table, "round_id": f"{table}-h{i}", "seq": 0, "status": "settled",
                        "source": "table", "opened_at": stamp, "closed_at": stamp, "result_at": stamp,
                        "settled_at": stamp, "result": number, "lucky": '[[17,"199"]]', "lucky_count": 1,
                        "bonus_number": 0, "lucky_hit": number == 17, "bonus_hit": number == 0,
                        "wagered": 100_000, "paid": 45_000, "returned": 95_000, "handle": '{"red":100000}',
                        "manual": False, "irregularities": 0, "dealer": "dana", "direction": direction,
                        "game_number": i % 1000, "note": None, "rules_sha256": None,
                    }  # fmt: skip
                    copy.write_row(tuple(row[n] for n in names))
        conn.execute(
            sa.insert(schema.number_counts),
            [
                {"table_id": t, "day": d, "direction": r, "number": n, "spins": c}
                for (t, d, r, n), c in counts.items()
            ],
        )
        conn.execute(
            sa.insert(schema.daily_totals),
            [
                {
                    "table_id": t, "day": d, "spins": c, "drawn_spins": c, "lucky_drawn": c, "lucky_hits": 0,
                    "bonus_hits": 0, "settled": c, "voided": 0, "irregularities": 0, "wagered": 100_000 * c,
                    "paid": 45_000 * c, "returned": 95_000 * c,
                }
                for (t, d), c in totals.items()
            ],
        )  # fmt: skip
        conn.exec_driver_sql("ANALYZE rounds")


class _Floor:
    """The tables' side: a TableService per table on its own SQLite journal, each commit forwarded."""

    def __init__(self, workdir: Path, central_url: str, tables: list[str]) -> None:
        from engine.store import open_store
        from engine.store.forward import Forwarder

        self.tables = tables
        self.central = open_store(central_url)
        self.locals = {
            t: open_store(str(workdir / f"table-{t}.sqlite"), table=t, durable=False) for t in tables
        }
        self.forwarders = {t: Forwarder(self.locals[t], self.central, [t]) for t in tables}
        self.commits: list[tuple[str, int, float]] = []
        self.forwarded: list[tuple[str, int, float]] = []  # (table, floor head, when), after each forward
        self.failed: list[str] = []
        self.queues: list[queue.Queue[str | None]] = [queue.Queue() for _ in range(FORWARD_THREADS)]
        self.threads = [
            threading.Thread(target=self._forward, args=(q,), name=f"bench-forward-{i}", daemon=True)
            for i, q in enumerate(self.queues)
        ]
        for thread in self.threads:
            thread.start()

    def queue_of(self, table: str) -> queue.Queue[str | None]:
        return self.queues[self.tables.index(table) % FORWARD_THREADS]

    def on_batch(self, table: str) -> Any:
        def note(entries: list[Any]) -> None:
            if entries:
                self.commits.append((table, entries[-1].seq, time.time()))
                self.queue_of(table).put(table)

        return note

    def _forward(self, todo: queue.Queue[str | None]) -> None:
        while (table := todo.get()) is not None:
            pending = {table}
            with contextlib.suppress(queue.Empty):
                while (more := todo.get_nowait()) is not None:
                    pending.add(more)
            for t in sorted(pending):
                try:
                    self.forwarders[t].forward_once()
                    self.forwarded.append((t, self.forwarders[t].status.central_heads.get(t, 0), time.time()))
                except Exception as exc:  # a benchmark reports, never hides, a failure
                    self.failed.append(f"{t}: {exc}")

    async def play(self, rounds: int, pause: float, *, record: bool, seed: str) -> None:
        import random

        from engine.floor.demo import START, play_rounds_async

        async def one(table: str) -> None:
            if pause:
                await asyncio.sleep(random.random() * pause)
            await play_rounds_async(
                self.locals[table],
                table,
                rounds,
                seed=seed,
                start=START,
                pause=pause,
                on_batch=self.on_batch(table) if record else (lambda e, t=table: self.queue_of(t).put(t)),  # type: ignore[misc]
            )

        await asyncio.gather(*(one(t) for t in self.tables))

    def drain(self) -> None:
        while not all(q.empty() for q in self.queues):
            time.sleep(0.05)
        time.sleep(0.3)

    def close(self) -> None:
        for q in self.queues:
            q.put(None)
        for thread in self.threads:
            thread.join(30)
        for store in self.locals.values():
            store.close()
        self.central.close()


def bench_live(ctx: ScaleContext) -> dict[str, float]:
    pg = _pg(ctx)
    tables = [f"F{i:03d}" for i in range(1, ctx.floor_tables + 1)]
    seconds = ctx.live_seconds or (3.0 if ctx.tiny else LIVE_SECONDS)
    pause = len(tables) / FLOOR_ROUNDS_PER_S
    rounds = max(2, math.ceil(seconds / pause) + 1)
    work = ctx.workdir / f"floor-{uuid.uuid4().hex[:6]}"
    work.mkdir(parents=True)
    with scratch_schema(pg, "drr_bench_floor") as url:
        from engine.store import open_store

        open_store(url).close()  # the schema's tables
        ctx.progress(0.02, f"{ctx.floor_rounds:,} rounds of history on the floor")
        fill_floor_history(url, tables, ctx.floor_rounds)
        floor = _Floor(work, url, tables)
        try:
            ctx.progress(0.15, f"{len(tables)} tables open")
            asyncio.run(floor.play(1, 0.0, record=False, seed="open"))  # every table on the floor
            floor.drain()
            out = work / "station.json"
            # bench/ is a checkout's package, not installed: the station's interpreter is told where it is.
            path = os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")]))
            station = subprocess.Popen(
                [sys.executable, "-m", "bench.scale_floor", "station", url, str(work), str(len(tables))],
                env={
                    **os.environ,
                    "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                    "PYTHONPATH": path,
                },
            )
            try:
                deadline = time.monotonic() + 600
                while not (work / "ready").exists():
                    if station.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("the surveillance station did not start")
                    time.sleep(0.2)
                ctx.progress(0.3, f"{len(tables)} tables playing for {seconds:.0f} s")
                (work / "go").touch()
                asyncio.run(floor.play(rounds, pause, record=True, seed="live"))
                floor.drain()
                time.sleep(2.0)  # the last commits reach the screen
                (work / "stop").touch()
                station.wait(120)
            finally:
                if station.poll() is None:
                    station.kill()
            result = json.loads(out.read_text("utf-8"))
        finally:
            floor.close()
        if floor.failed:
            raise RuntimeError(f"forwarding failed: {floor.failed[0]}")
    painted: dict[str, list[tuple[int, float]]] = {}
    for table, seq, at in result["paints"]:
        painted.setdefault(table, []).append((seq, at))
    on_floor: dict[str, list[tuple[int, float]]] = {}
    for table, seq, at in floor.forwarded:
        on_floor.setdefault(table, []).append((seq, at))

    def p99(after: dict[str, list[tuple[int, float]]]) -> float:
        """99th percentile over the commits of the time until `after` shows them."""
        latencies = []
        for table, seq, at in floor.commits:
            shown = [p for s, p in after.get(table, []) if s >= seq and p >= at]
            latencies.append((min(shown) - at) * 1000 if shown else float("inf"))
        latencies.sort()
        return latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else float("nan")

    def first(after: dict[str, list[tuple[int, float]]], table: str, seq: int, at: float) -> float:
        return min((p for s, p in after.get(table, []) if s >= seq and p >= at), default=float("inf"))

    # Of which: the station's share, from the entry being on the floor to its tile repainted.
    share: list[float] = []
    for t, seq, at in floor.commits:
        shown, forwarded = first(painted, t, seq, at), first(on_floor, t, seq, at)
        share.append(float("inf") if math.isinf(shown) else (shown - min(forwarded, shown)) * 1000)
    share.sort()
    return {
        "floor_wall_refresh_ms_at_100_tables": result["wall_ms"],
        "floor_floor_to_screen_ms_p99": (
            share[min(len(share) - 1, int(0.99 * len(share)))] if share else float("nan")
        ),
        "floor_commit_to_screen_ms_p99": p99(painted),
        "floor_commit_to_floor_ms_p99": p99(on_floor),  # of which: forwarded (the tables' side)
        "floor_cpu_per_table_pct": 100 * result["cpu_s"] / result["wall_s"] / len(tables),
        "floor_live_commits": float(len(floor.commits)),
        # The station's CPU by thread over the live run, per commit (the Qt thread's is what delays a tile).
        **{
            f"floor_station_{name}_cpu_ms_per_commit": 1000 * cpu / max(1, len(floor.commits))
            for name, cpu in result.get("thread_cpu_s", {}).items()
        },
        # The tiles' charts over the live run: painted, resized, and given new figures.
        **{f"floor_station_chart_{k}": float(v) for k, v in result.get("charts", {}).items()},
        # How many tiles the station's window showed, and the views of tiles out of its view.
        "floor_tiles_on_view": float(result.get("tiles_on_view", len(tables))),
        "floor_hidden_tile_views": float(result.get("hidden_views", 0)),
        # Commits never on screen by the run's end (each an infinite latency in the p99s).
        "floor_commits_not_shown": float(
            sum(not any(s >= seq and p >= at for s, p in painted.get(t, [])) for t, seq, at in floor.commits)
        ),
        **hop_table(floor.commits, floor.forwarded, result["hops"], [tuple(p) for p in result["paints"]]),
    }


def _stamp_hops() -> dict[str, Any]:
    """Instrumentation of the station's side of a commit, hop by hop (wall-clock stamps, issue 28):
    `notified` (table, seq, when) as LISTEN delivers it on the listener's thread; `handed` (tables,
    when) as the watch hands the gathered names on; `reads` (tables, started, ended) of the screen's
    gather query on its reader thread; `shown` (tables, when) as the result reaches the Qt thread."""
    import engine.store.forward as forward
    from gui.floor.watch import StoreWatch
    from gui.windows.surveillance import SurveillanceWindow

    hops: dict[str, Any] = {"notified": [], "handed": [], "reads": [], "shown": [], "threads": {}}
    listen, report = forward.listen, StoreWatch._report
    read_screen, show_screen = SurveillanceWindow._read_screen, SurveillanceWindow._show_screen
    read_alerts = SurveillanceWindow._read_alerts
    hops["threads"]["qt"] = threading.get_native_id()  # each thread's CPU is read at the end (thread_cpu_s)

    def stamped_alerts(window: Any, job: Any) -> Any:
        hops["threads"]["alerts"] = threading.get_native_id()
        return read_alerts(window, job)

    def stamped_listen(url: str, callback: Any, **kw: Any) -> Any:
        def note(table: str, seq: int) -> None:
            hops["threads"]["listener"] = threading.get_native_id()
            hops["notified"].append((table, seq, time.time()))
            callback(table, seq)

        return listen(url, note, **kw)

    def stamped_report(watch: Any, moved: dict[str, int]) -> None:
        hops["handed"].append((sorted(moved), time.time()))
        report(watch, moved)

    def stamped_read(window: Any, job: Any) -> Any:
        hops["threads"]["screen"] = threading.get_native_id()
        started = time.time()
        out = read_screen(window, job)
        hops["reads"].append((list(job.wall), started, time.time()))
        return out

    def stamped_show(window: Any, result: Any) -> None:
        hops["shown"].append((list(result.tiles), time.time()))
        show_screen(window, result)

    forward.listen = stamped_listen  # type: ignore[assignment]
    StoreWatch._report = stamped_report  # type: ignore[method-assign,assignment]
    SurveillanceWindow._read_screen = stamped_read  # type: ignore[method-assign,assignment]
    SurveillanceWindow._show_screen = stamped_show  # type: ignore[method-assign,assignment]
    SurveillanceWindow._read_alerts = stamped_alerts  # type: ignore[method-assign,assignment]
    return hops


def thread_cpu_s() -> dict[int, float]:
    """This process's CPU time (user + system) by native thread id, from /proc (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            out[int(task.name)] = (int(fields[11]) + int(fields[12])) / tick
    return out


MAX_WINDOW_H = 4000  # px: the live station's window at most (offscreen)

# The hops of a floor commit to its tile on the screen, in order (`hop_table`).
HOPS = (
    (
        "forward",
        "a table's commit to its entries committed on the floor (forwarder: INSERT + pg_notify + COMMIT)",
    ),
    ("listen", "the floor's COMMIT to LISTEN's notification at the station"),
    ("gather", "the notification to the watch handing the moved tables on (the Qt thread's wake)"),
    ("queue", "handed on to the screen's gather query starting (a read in flight first)"),
    ("query", "the station's gather query of the moved tiles (reader thread)"),
    ("to_qt", "the query's result to the Qt thread taking it"),
    ("paint", "the model update and the tile repainted"),
)


def hop_table(
    commits: list[tuple[str, int, float]],
    forwarded: list[tuple[str, int, float]],
    hops: dict[str, list[Any]],
    paints: list[tuple[str, int, float]],
) -> dict[str, float]:
    """Each commit followed hop by hop (the first stamp of each hop at or after the one before it):
    `floor_hop_<hop>_ms_p99` and `_median` over the commits, and `floor_hop_<hop>_ms_slowest` the
    hop's mean over the slowest 1% of commits (where a slow commit's time went)."""
    import bisect

    def by_table(rows: list[tuple[str, int, float]]) -> dict[str, list[tuple[float, int]]]:
        out: dict[str, list[tuple[float, int]]] = {}
        for table, seq, at in rows:
            out.setdefault(table, []).append((at, seq))
        for row in out.values():
            row.sort()
        return out

    def by_member(rows: list[Any], at: int) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for row in rows:
            for table in row[0]:
                out.setdefault(table, []).append(row[at])
        for row in out.values():
            row.sort()
        return out

    on_floor, notified, painted = by_table(forwarded), by_table(hops["notified"]), by_table(paints)
    handed, shown = by_member(hops["handed"], 1), by_member(hops["shown"], 1)
    reads: dict[str, list[tuple[float, float]]] = {}
    for tables, started, ended in hops["reads"]:
        for table in tables:
            reads.setdefault(table, []).append((started, ended))
    for row in reads.values():
        row.sort()

    def after_seq(rows: list[tuple[float, int]], at: float, seq: int) -> float | None:
        start = bisect.bisect_left(rows, (at, -1))
        return next((t for t, s in rows[start:] if s >= seq), None)

    def after(rows: list[float], at: float) -> float | None:
        i = bisect.bisect_left(rows, at)
        return rows[i] if i < len(rows) else None

    spans: list[tuple[float, list[float]]] = []
    for table, seq, at in commits:
        f = after_seq(on_floor.get(table, []), at, seq)
        n = after_seq(notified.get(table, []), at, seq)
        if f is None or n is None:
            continue
        h = after(handed.get(table, []), n)
        r = next(((a, b) for a, b in reads.get(table, []) if h is not None and a >= h), None)
        s = after(shown.get(table, []), r[1]) if r is not None else None
        p = after_seq(painted.get(table, []), at, seq)
        if h is None or r is None or s is None or p is None:
            continue
        stamps = [at, f, max(n, f), h, r[0], r[1], s, p]
        spans.append((p - at, [max(0.0, (b - a) * 1000) for a, b in itertools.pairwise(stamps)]))
    if not spans:
        return {}
    spans.sort()
    slowest = spans[-max(1, len(spans) // 100) :]
    figures: dict[str, float] = {"floor_hop_commits_followed": float(len(spans))}
    for i, (name, _what) in enumerate(HOPS):
        values = sorted(hop[i] for _, hop in spans)
        figures[f"floor_hop_{name}_ms_p99"] = values[min(len(values) - 1, int(0.99 * len(values)))]
        figures[f"floor_hop_{name}_ms_median"] = values[len(values) // 2]
        figures[f"floor_hop_{name}_ms_slowest"] = sum(hop[i] for _, hop in slowest) / len(slowest)
    return figures


def _watch_stalls(out: Path) -> Any:
    """With $DRR_BENCH_STALLS: what the Qt thread was doing whenever its event loop stalled for
    more than STALL_MS (a heartbeat timer on it, its stack sampled from another thread), written to
    `out` as the most frequent stacks, when the station stops. A diagnosis aid, not a figure."""
    import collections
    import traceback

    from PySide6.QtCore import QTimer

    stall_ms = 100
    qt_thread = threading.get_ident()
    beat = {"at": time.monotonic()}
    heart = QTimer()
    heart.setInterval(10)
    heart.timeout.connect(lambda: beat.__setitem__("at", time.monotonic()))
    heart.start()
    seen: collections.Counter[str] = collections.Counter()

    def sample() -> None:
        while True:
            time.sleep(0.02)
            if (time.monotonic() - beat["at"]) * 1000 > stall_ms:
                frame = sys._current_frames().get(qt_thread)
                if frame is not None:
                    stack = traceback.extract_stack(frame)[-12:]
                    seen["".join(f"  {f.filename}:{f.lineno} {f.name}\n" for f in stack)] += 1
            if seen and (time.monotonic() - beat.get("written", 0.0)) > 2:
                beat["written"] = time.monotonic()
                out.write_text(
                    "".join(f"{n} samples of 20 ms:\n{st}\n" for st, n in seen.most_common(15)), "utf-8"
                )

    threading.Thread(target=sample, daemon=True).start()
    return heart


def station_main(url: str, work: Path, tables: int) -> None:
    """The surveillance station of the live floor (its own process: its CPU is measured alone)."""
    from PySide6.QtCore import QEvent, QObject, Qt, QTimer
    from PySide6.QtWidgets import QWidget

    from bench.station_figures import _app
    from engine.store import open_store
    from gui.windows import surveillance
    from gui.windows.surveillance import SurveillanceWindow

    app = _app()
    paints: list[tuple[str, int, float]] = []
    show_view = surveillance.WallTile.show_view

    # Instrumentation: a tile's new view is stamped when Qt next paints the tile (any of its widgets),
    # as the station paints it, at most once a frame. (It used to force `tile.repaint()` after every
    # view: each tile painted at once, every time, on the station's only Qt thread, which the
    # station's own updates never do; issue 28's hop table found the Qt thread saturated by it.)
    shown: dict[str, int] = {}
    tile_of: dict[int, str] = {}

    # A tile whose new view changes nothing it draws, or that is scrolled out of the wall's view,
    # gets no paint from Qt: waiting for one counted its commits as never on screen ("infinite",
    # issue 28). Such a view is on screen when shown (a scrolled-to tile paints what it holds), unless
    # a paint of an earlier view is still to come, which then shows this one too. The hidden views
    # are counted (`floor_hidden_tile_views`): the window is made tall enough for every tile.
    hidden = {"views": 0}

    def face(tile: Any) -> list[tuple[QWidget, Any]]:
        return [
            (tile.chart.viewport(), tile.chart._drawn),  # the view's viewport is what paints
            (tile.spins, tile.spins.text()),
            # what the words label paints: its fixed lines (the whole text, when cut, is the tooltip)
            (tile.words, (tile.words.shown_text(), tile.words.styleSheet())),
        ]

    def whole(widget: QWidget) -> bool:
        return widget.visibleRegion().boundingRect() == widget.rect()

    def on_view(widget: QWidget) -> bool:
        """Wholly in view: a partly shown widget gets no paint for a change out of sight."""
        return whole(widget)

    def timed_show(tile: Any, view: Any, *rest: Any) -> None:
        before = face(tile)
        show_view(tile, view, *rest)
        changed = [w for (w, was), (_, now) in zip(before, face(tile), strict=True) if was != now]
        charts["redraws"] += tile.chart.viewport() in changed
        if tile.table in shown or any(on_view(w) for w in changed):
            shown[tile.table] = view.seq  # stamped at the paint
            return
        hidden["views"] += bool(changed)
        paints.append((tile.table, view.seq, time.time()))

    # What the Qt thread draws: each tile chart's paints and resizes, against the views that changed
    # its figures (`FrequencyChart.update_data` redraws nothing for the same figures).
    charts = {"paints": 0, "resizes": 0, "redraws": 0, "words_resizes": 0}
    viewports: set[int] = set()
    words: set[int] = set()

    class PaintStamp(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if id(obj) in viewports:
                charts["paints"] += event.type() == QEvent.Type.Paint
                charts["resizes"] += event.type() == QEvent.Type.Resize
            elif id(obj) in words:  # a tile's words reflowing resize its chart
                charts["words_resizes"] += event.type() == QEvent.Type.Resize
            if event.type() == QEvent.Type.Paint:
                table = tile_of.get(id(obj))
                if table is not None and table in shown:
                    paints.append((table, shown.pop(table), time.time()))
            return False

    stamp = PaintStamp()

    def watch_tiles() -> None:
        for tile in window.wall_tiles.values():
            viewports.add(id(tile.chart.viewport()))
            words.add(id(tile.words))
            for widget in (tile, *tile.findChildren(QWidget)):
                if id(widget) not in tile_of:
                    tile_of[id(widget)] = tile.table
                    widget.installEventFilter(stamp)

    surveillance.WallTile.show_view = timed_show  # type: ignore[method-assign,assignment]
    hops = _stamp_hops()
    store = open_store(url, migrate=False)
    window = SurveillanceWindow(store)
    window.resize(1900, 1200)
    window.show()
    for i in range(window.tables.count()):
        window.tables.item(i).setCheckState(Qt.CheckState.Checked)
    window.tabs.setCurrentWidget(window.wall)
    app.processEvents()
    assert len(window.wall_tiles) == tables, (len(window.wall_tiles), tables)
    # The window made tall enough for every tile to be wholly in view (at most MAX_WINDOW_H: the
    # scale bench's 100 tiles scroll, and their views out of view are counted as such).
    while window.height() < MAX_WINDOW_H and not all(
        whole(t.chart.viewport()) and whole(t.words) for t in window.wall_tiles.values()
    ):
        window.resize(window.width(), window.height() + 200)
        app.processEvents()
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        window.refresh_wall()
        window.wall.repaint()
        best = min(best, (time.perf_counter() - started) * 1000)
    watch_tiles()
    paints.clear()
    shown.clear()
    hidden["views"] = 0
    charts.update(paints=0, resizes=0, redraws=0, words_resizes=0)
    state: dict[str, float] = {}

    def check() -> None:
        if "cpu0" not in state and (work / "go").exists():
            state["cpu0"], state["t0"] = time.process_time(), time.time()
            state["threads0"] = thread_cpu_s()  # type: ignore[assignment]
            if os.environ.get("DRR_BENCH_PROFILE"):  # the Qt thread's profile (a diagnosis aid)
                import cProfile

                state["profile"] = cProfile.Profile()  # type: ignore[assignment]
                state["profile"].enable()  # type: ignore[attr-defined]
        if "cpu0" in state and (work / "stop").exists():
            result = {
                "wall_ms": best,
                "cpu_s": time.process_time() - state["cpu0"],
                "wall_s": time.time() - state["t0"],
                "paints": paints,
                "hops": hops,
                "hidden_views": hidden["views"],
                "charts": charts,
                "tiles_on_view": sum(on_view(t.chart.viewport()) for t in window.wall_tiles.values()),
                "window": [window.width(), window.height()],
                "thread_cpu_s": {
                    name: thread_cpu_s().get(tid, 0.0) - state["threads0"].get(tid, 0.0)  # type: ignore[attr-defined]
                    for name, tid in hops["threads"].items()
                },
            }
            (work / "station.json").write_text(json.dumps(result), "utf-8")
            if "profile" in state:
                state["profile"].disable()  # type: ignore[attr-defined]
                state["profile"].dump_stats(str(work / "station.prof"))  # type: ignore[attr-defined]
            window.close()
            app.quit()

    files = QTimer()
    files.setInterval(100)
    files.timeout.connect(check)
    files.start()
    stalls = _watch_stalls(work / "stalls.txt") if os.environ.get("DRR_BENCH_STALLS") else None  # noqa: F841 (kept alive)
    (work / "ready").touch()
    app.exec()
    store.close()


register(
    "floor_forward",
    bench_forward,
    weight=60,
    goals={"floor_forward_entries_per_s": (">=", 20_000)},
    needs_pg=True,
)
register("floor_audit", bench_floor_audit, weight=40, needs_pg=True)
register(
    "floor_live",
    bench_live,
    weight=150,
    goals={
        "floor_wall_refresh_ms_at_100_tables": ("<=", 500),
        "floor_commit_to_screen_ms_p99": ("<=", 1_000),
        "floor_cpu_per_table_pct": ("<=", 0.5),
    },
    needs_pg=True,
)


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "station":
    station_main(sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]))
