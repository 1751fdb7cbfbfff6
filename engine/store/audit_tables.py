"""`drr audit verify` of a floor's many tables side by side: each table's chain and derived tables in
a forked worker, the verdict the one table-after-table order gives.

A floor's PostgreSQL holds every table's journal, and its whole audit is a sum over the tables (five
years of 100 tables: most of a day in one process, docs/scale.md). Each table's check reads only
that table's chain and rows, so `audit_side_by_side` hands the tables to worker processes (one per
core) and puts their findings together in the tables' order: the first table whose chain fails, as
`verify` of every table would name it (with the earlier tables' counts); else the store file's
damage; else the first table whose derived tables disagree. Workers are forked (as
engine.store.chain_parallel's, and only where it may: `chain_parallel.available`), each with its own
connection.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import repeat
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.store.db import Store
    from engine.store.verify import Audit, VerifyReport

WORKERS: int | None = None  # worker processes (None: one per core; 0 or 1: table after table here)
_STORES: dict[str, Store] = {}  # a worker's own store, opened at its first table


def workers_for(store: Store, tables: list[str]) -> int:
    """How many workers the audit of `tables` gets: none for one table, a SQLite store (one table
    and its floor chain), or where forking is not safe."""
    from engine.store import chain_parallel

    if len(tables) < 2 or store.is_sqlite or not chain_parallel.available():
        return 0
    wanted = WORKERS if WORKERS is not None else os.cpu_count() or 1
    return min(wanted, len(tables)) if wanted > 1 else 0


def _forget_parent_connections(store: Store) -> None:
    """In a new worker: the parent's pooled connections are the parent's (SQLAlchemy's fork recipe)."""
    store.engine.dispose(close=False)


def _check(store: Store, table: str) -> tuple[VerifyReport, str | None]:
    """One table's chain and, if it holds, its derived tables."""
    from engine.store.verify import derived_problem, verify

    report = verify(store, table)
    return report, (derived_problem(store, [table]) if report.ok else None)


def _audit_one(url: str, table: str) -> tuple[VerifyReport, str | None]:
    """In a worker: `_check` through the worker's own store."""
    from engine.store import open_store

    store = _STORES.get(url)
    if store is None:
        store = _STORES[url] = open_store(url, migrate=False, allow_older=True)
    return _check(store, table)


def audit_side_by_side(store: Store, tables: list[str], workers: int) -> Audit:
    """`verify.audit` of every table in `tables` (sorted) on `workers` processes."""
    context = multiprocessing.get_context("fork")
    try:
        found = _in_workers(store, tables, workers, context)
    except BrokenProcessPool:  # a worker died (killed, out of memory): every table here instead
        found = [_check(store, table) for table in tables]
    return _together(store, found)


def _in_workers(
    store: Store, tables: list[str], workers: int, context: Any
) -> list[tuple[VerifyReport, str | None]]:
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_forget_parent_connections, initargs=(store,)
    ) as pool:
        return list(pool.map(_audit_one, repeat(store.url), tables))


def _together(store: Store, found: list[tuple[VerifyReport, str | None]]) -> Audit:
    """The tables' findings in their order, as `verify.audit` of them one after another reports."""
    from engine.store.verify import Audit, VerifyReport, file_damage, users_problem

    whole = VerifyReport(ok=True)
    for report, _derived in found:
        if not report.ok:
            whole.ok = False
            whole.problem, whole.bad_table, whole.bad_seq = report.problem, report.bad_table, report.bad_seq
            whole.detail = report.detail
            return Audit(whole)
        whole.events += report.events
        whole.rounds += report.rounds
        whole.tables.update(report.tables)
        whole.keys.update(report.keys)
        whole.unpinned.extend(report.unpinned)
    audit = Audit(whole, damage=file_damage(store))
    if audit.damage is None:
        audit.derived = next((d for _r, d in found if d is not None), None)
        if audit.derived is None:
            audit.derived = users_problem(store)
    return audit
