"""The store's scale figures for `drr bench --scale` (bench.scale): rebuild speed, history pages.

`rebuild_entries_per_s`: journal entries per second through `projections.rebuild` (what `drr db
rebuild` runs per table after its verify) on a real signed journal of `ctx.rebuild_entries` entries
(bench.synthetic), best of 2, on SQLite; `…_pg` the same journal copied into the scratch
PostgreSQL when one is given. `db_rebuild_command_entries_per_s`: the whole `drr db rebuild` command
(verify first, then the rebuild), once.

`history_page_ms_at_1M_rounds`: the worst, over every sort (time, table, result, wagered, paid, each
both ways) crossed with every filter of the pit boss's history screen (none, table, today, last 24 h,
current shift, a custom week, dealer, result, lucky hit yes/no, bonus hit yes/no, min paid with many,
few and no matches, irregular only, round id, and the table crossed with each of the others), of the
time `engine.floor.history_page.fetch_page` takes for a 200-row page: the first page, and the page after
it (keyset cursor), each the best of 3. 1,000,000 rounds on 10 tables over a year are written straight
into `rounds` as the journal leaves them (varied dealers, results, hits, amounts; ~1% irregular). Each
combination's time is in the JSON as `history_page_ms.<sort>.<asc|desc>.<filter>`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from bench.scale import ScaleContext, register

HISTORY_TABLES = 10
HISTORY_START = datetime(2025, 12, 1, tzinfo=UTC)
PAGE = 200
DEALERS = ("dana", "eli", "fay", "gus", "hal", "ivy")


def fill_history(
    store: Any, rounds: int, *, tables: int = HISTORY_TABLES, start: datetime = HISTORY_START
) -> None:
    """`rounds` settled rounds over a year on `tables` tables, straight into `rounds` (random but
    seeded), as the table service's journal would leave them; aggregates are not needed here."""
    import numpy as np

    from engine.store import schema

    rng = np.random.default_rng(15)
    numbers = rng.integers(0, 37, rounds)
    tabs = rng.integers(0, tables, rounds)
    dealer = rng.integers(0, len(DEALERS), rounds)
    wagered = rng.integers(1, 400, rounds) * 25 * 10_000
    won = rng.random(rounds)
    lucky_hit = rng.random(rounds) < 3.5 / 37
    bonus_hit = rng.random(rounds) < 1 / 37
    irregular = rng.random(rounds) < 0.01
    span = 365 * 86400
    names = [c.name for c in schema.rounds.columns]
    insert = f"INSERT INTO rounds ({', '.join(names)}) VALUES ({', '.join(['?'] * len(names))})"
    if not store.is_sqlite:
        insert = insert.replace("?", "%s")
    rows: list[tuple[Any, ...]] = []
    for i in range(rounds):
        stamp = (start + timedelta(seconds=i * span // rounds)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
        w = int(wagered[i])
        paid = int(w * (35 if lucky_hit[i] else 1) * won[i]) // 10_000 * 10_000 if won[i] < 0.45 else 0
        status = "void" if irregular[i] and i % 3 == 0 else "settled"
        row = {
            "table_id": f"T{tabs[i]:02d}", "round_id": f"T{tabs[i]:02d}-{i:07d}", "seq": i * 15 + 1,
            "status": status, "source": "table", "opened_at": stamp, "closed_at": stamp, "result_at": stamp,
            "settled_at": stamp, "result": int(numbers[i]), "lucky": '[[17,"199"]]', "lucky_count": 1,
            "bonus_number": 8, "lucky_hit": bool(lucky_hit[i]), "bonus_hit": bool(bonus_hit[i]),
            "wagered": 0 if status == "void" else w, "paid": 0 if status == "void" else paid,
            "returned": 0 if status == "void" else paid + (w if paid else 0), "handle": None,
            "manual": bool(irregular[i] and i % 3 == 1), "irregularities": int(irregular[i] and i % 3 == 2),
            "dealer": DEALERS[dealer[i]], "direction": ("cw", "ccw")[i % 2], "game_number": i % 1000,
            "note": None, "rules_sha256": None,
        }  # fmt: skip
        rows.append(tuple(row[n] for n in names))
        if len(rows) == 50_000 or i == rounds - 1:
            with store.begin() as conn:
                conn.connection.driver_connection.cursor().executemany(insert, rows)
            rows = []
    with store.begin() as conn:
        conn.exec_driver_sql("ANALYZE")


def history_filters(now: datetime, tables: int = HISTORY_TABLES) -> dict[str, dict[str, Any]]:
    """Every filter the pit boss's screen offers (gui/windows/pitboss.py HistoryFilters), as
    HistoryQuery fields; `now` is the end of the filled history (today is its last day)."""
    from engine.floor.windows import shift_bounds

    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    shift = shift_bounds(now)
    single: dict[str, dict[str, Any]] = {
        "none": {},
        "today": {"since": today},
        "last24h": {"since": now - timedelta(days=1)},
        "shift": {"since": shift[0], "until": shift[1]},
        "custom_week": {"since": now - timedelta(days=120), "until": now - timedelta(days=113)},
        "dealer": {"dealer": "eli"},
        "result": {"result": 17},
        "lucky_yes": {"lucky_hit": True},
        "lucky_no": {"lucky_hit": False},
        "bonus_yes": {"bonus_hit": True},
        "bonus_no": {"bonus_hit": False},
        "min_paid_many": {"min_paid": Decimal(1)},
        "min_paid_few": {"min_paid": Decimal(300_000)},
        "min_paid_none": {"min_paid": Decimal(10_000_000)},
        "irregular": {"irregular": True},
        "round_id": {"round_id": "T03-0500000"},
    }
    table = {"table": "T03"}
    combos = {name: dict(f) for name, f in single.items()}
    combos.update({"table": table})
    for name, f in single.items():
        if name != "none":
            combos[f"table+{name}"] = {**table, **f}
    return combos


def measure_history(
    store: Any, now: datetime, progress: Callable[[float, str], None], *, repeats: int = 3
) -> dict[str, float]:
    """Each page's best time of `repeats` reads (first page, then the page after its cursor)."""
    from engine.floor.history_page import SORTS, HistoryQuery, fetch_page

    figures: dict[str, float] = {}
    combos = history_filters(now)
    total = len(combos) * len(SORTS) * 2
    done = 0
    for sort in SORTS:
        for descending in (True, False):
            for name, fields in combos.items():
                query = HistoryQuery(sort=sort, descending=descending, **fields)
                best_first = best_next = float("inf")
                for _ in range(repeats):
                    started = time.perf_counter()
                    _rows, cursor = fetch_page(store, query, None, PAGE)
                    best_first = min(best_first, time.perf_counter() - started)
                    if cursor is not None:
                        started = time.perf_counter()
                        fetch_page(store, query, cursor, PAGE)
                        best_next = min(best_next, time.perf_counter() - started)
                worst = max(best_first, best_next if best_next != float("inf") else 0.0)
                figures[f"history_page_ms.{sort}.{'desc' if descending else 'asc'}.{name}"] = worst * 1000
                done += 1
                progress(0.3 + 0.7 * done / total, f"history {sort} {name}")
    return figures


def bench_history(ctx: ScaleContext) -> dict[str, float]:
    from engine.store import open_store

    figures: dict[str, float] = {}
    now = HISTORY_START + timedelta(days=365)
    with open_store(str(ctx.workdir / "history.sqlite"), durable=False) as store:
        ctx.progress(0.0, f"writing {ctx.history_rounds:,} rounds")
        fill_history(store, ctx.history_rounds)
        # Tiny sizes check the run end to end, their figures mean nothing: one read of each page does.
        each = measure_history(store, now, ctx.progress, repeats=1 if ctx.tiny else 3)
    worst = max(each, key=lambda k: each[k])
    figures["history_page_ms_at_1M_rounds"] = each[worst]
    figures.update(each)
    return figures


def bench_rebuild(ctx: ScaleContext) -> dict[str, float]:
    from engine.store import open_store
    from engine.store.projections import rebuild

    journal = ctx.long_journal(ctx.rebuild_entries)
    mine = ctx.copy_journal(journal, "rebuild")
    figures: dict[str, float] = {}
    with open_store(mine.url, table=mine.table) as store:
        best = float("inf")
        for attempt in range(2):
            ctx.progress(0.6 + 0.1 * attempt, "drr db rebuild's projections")
            started = time.perf_counter()
            with store.begin() as conn:
                count = rebuild(conn, mine.table)
            best = min(best, time.perf_counter() - started)
        figures["rebuild_entries_per_s"] = count / best
    ctx.progress(0.75, "the whole drr db rebuild command")
    figures["db_rebuild_command_entries_per_s"] = _rebuild_command(mine.url, mine.table, mine.entries)
    if ctx.pg_url:
        ctx.progress(0.85, "the rebuild on PostgreSQL")
        figures["rebuild_entries_per_s_pg"] = _rebuild_on_pg(ctx, mine.url, mine.table)
    return figures


def _rebuild_on_pg(ctx: ScaleContext, url: str, table: str) -> float:
    """The same journal's rows copied (COPY) into a scratch PostgreSQL schema, then rebuilt there."""
    import sqlalchemy as sa

    from engine.store import open_store, schema
    from engine.store.projections import rebuild

    columns = [c.name for c in schema.journal.columns]
    with open_store(url, table=table) as source, ctx.pg_schema("drr_scale_rebuild") as pg_url:  # noqa: SIM117
        with open_store(pg_url, table=table, durable=False) as store:
            with source.read() as src, store.begin() as conn:
                cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
                rows = src.execute(sa.select(*(schema.journal.c[n] for n in columns)).order_by("seq"))
                with cursor.copy(f"COPY journal ({', '.join(columns)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(tuple(row))
            with store.begin() as conn:
                conn.exec_driver_sql("ANALYZE journal")
            started = time.perf_counter()
            with store.begin() as conn:
                count = rebuild(conn, table)
            return count / (time.perf_counter() - started)


def _rebuild_command(url: str, table: str, entries: int) -> float:
    import argparse
    import contextlib
    import io

    from engine.cli.db_cmd import run_rebuild

    args = argparse.Namespace(db=url, only_table=table)
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # its one line per table is not the bench's output
        run_rebuild(args)
    return entries / (time.perf_counter() - started)


register(
    "store_rebuild",
    bench_rebuild,
    weight=150,
    goals={"rebuild_entries_per_s": (">=", 50_000)},
)
register(
    "store_history",
    bench_history,
    weight=240,
    goals={"history_page_ms_at_1M_rounds": ("<=", 100)},
)
