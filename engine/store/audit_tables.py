"""`drr audit verify` of a floor's many tables side by side: each table's check in a forked worker,
the findings handed back in the tables' order.

A floor's PostgreSQL holds every table's journal, and its whole audit is a sum over the tables (five
years of 100 tables: most of a day in one process, docs/scale.md). Each table's check reads only
that table's chain and rows, so `side_by_side` hands the tables to worker processes (one per core),
each with its own connection, and returns what the check found of each, in the tables' order;
engine.store.verify's `audit` gives the check (a table's chain, then its derived tables) and puts the
findings together into the verdict the one table-after-table order gives. Workers are forked (as
engine.store.chain_parallel's, and only where it may: `chain_parallel.available`); a worker that dies
leaves the tables to this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import repeat
from typing import Any, TypeVar

from engine.store import chain_parallel
from engine.store.db import Store, open_store

T = TypeVar("T")

WORKERS: int | None = None  # worker processes (None: one per core; 0 or 1: table after table here)
_STORES: dict[str, Store] = {}  # a worker's own store, opened at its first table


def workers_for(store: Store, tables: list[str]) -> int:
    """How many workers the audit of `tables` gets: none for one table, a SQLite store (one table
    and its floor chain), or where forking is not safe."""
    if len(tables) < 2 or store.is_sqlite or not chain_parallel.available():
        return 0
    wanted = WORKERS if WORKERS is not None else os.cpu_count() or 1
    return min(wanted, len(tables)) if wanted > 1 else 0


def _forget_parent_connections(store: Store) -> None:
    """In a new worker: the parent's pooled connections are the parent's (SQLAlchemy's fork recipe)."""
    store.engine.dispose(close=False)


def _check_one(check: Callable[[Store, str], T], url: str, table: str) -> T:
    """In a worker: `check` of one table through the worker's own store."""
    store = _STORES.get(url)
    if store is None:
        store = _STORES[url] = open_store(url, migrate=False, allow_older=True)
    return check(store, table)


def side_by_side(store: Store, tables: list[str], workers: int, check: Callable[[Store, str], T]) -> list[T]:
    """`check(store, table)` of every table in `tables` on `workers` processes, in the tables' order
    (`check` is a module-level function: the workers are handed it by name)."""
    context = multiprocessing.get_context("fork")
    try:
        return _in_workers(store, tables, workers, context, check)
    except BrokenProcessPool:  # a worker died (killed, out of memory): every table here instead
        return [check(store, table) for table in tables]


def _in_workers(
    store: Store, tables: list[str], workers: int, context: Any, check: Callable[[Store, str], T]
) -> list[T]:
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_forget_parent_connections, initargs=(store,)
    ) as pool:
        return list(pool.map(_check_one, repeat(check), repeat(store.url), tables))
