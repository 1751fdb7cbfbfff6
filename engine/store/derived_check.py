"""The derived tables against the verified journal (`drr audit verify`'s last step, engine.store.verify):
each table's journal folded again and held, round by round and aggregate by aggregate, against the
stored rows (`derived_problem`). A long journal's fold is split by round across cores
(`projections.round_part`: a forked worker per part but the first, which this process folds), as the
chain walk is (engine.store.chain_parallel); the parts' findings give the one-process verdict."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from engine.store import chain_parallel, schema
from engine.store.db import Store, open_store
from engine.store.projections import MemoryRows, fold_journal, round_part

# The projections `drr db rebuild` recomputes from the journal (engine.store.projections.rebuild).
_DERIVED = ("rounds", "number_counts", "daily_totals", "daily_handle")
PARALLEL_MIN = 50_000  # entries: below this, forking a worker costs more than it saves
WORKERS: int | None = None  # parts of a long fold (None: one per core; 0 or 1: the whole fold here)

Rows = dict[tuple[Any, ...], dict[str, Any]]


@dataclass
class _Part:
    """What one part of a table's fold found: its first differing round (the sort key `_compare`
    orders by, and the words), and its share of the aggregates (rows by key, to be added up)."""

    rounds: tuple[str, str] | None = None
    aggregates: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def derived_problem(store: Store, tables: list[str]) -> str | None:
    """What differs between the derived tables and the verified journal (None when they agree).

    Each table's journal is folded again by the handlers every append runs (`projections.fold_journal`)
    and, instead of being written, each finished round is held against its stored row as the fold
    flushes it (`_HeldRows`), the day and number aggregates at the end: a `paid` raised, a round
    inserted or deleted with plain SQL is named by table, round (or key) and column. Inside a
    transaction that is rolled back (the fold stores again a Rules Submission it finds missing)."""
    try:
        for table in tables:
            problem = _table_problem(store, table)
            if problem is not None:
                return f"table {table}: {problem} (changed outside the journal)"
    except (sa.exc.SQLAlchemyError, sqlite3.Error):  # sqlite3's own: a SQLite BEGIN goes to the driver
        return None  # a read-only copy or an older schema: the projections are not checked here
    return None


def parts_for(store: Store, table: str) -> int:
    """How many parts the fold of `table` is split into: one for a short journal, an in-memory store
    or where a worker cannot be forked (chain_parallel.available), else one per core."""
    if not chain_parallel.available() or (store.is_sqlite and store.path is None):
        return 1
    wanted = WORKERS if WORKERS is not None else os.cpu_count() or 1
    if wanted < 2:
        return 1
    h = schema.chain_heads
    with store.read() as conn:
        length = conn.execute(sa.select(h.c.seq).where(h.c.table_id == table)).scalar()
    return wanted if int(length or 0) >= PARALLEL_MIN else 1


def _table_problem(store: Store, table: str) -> str | None:
    parts = parts_for(store, table)
    if parts < 2:
        return _verdict(store, table, [_fold_part(store, table, 0, 1)])
    context = multiprocessing.get_context("fork")
    try:
        # The workers are forked before this process opens its own connection for its part.
        with ProcessPoolExecutor(
            parts - 1, mp_context=context, initializer=_forget_parent_connections, initargs=(store,)
        ) as pool:
            others: list[Future[_Part]] = [
                pool.submit(_part_in_worker, store.url, table, k, parts) for k in range(1, parts)
            ]
            found = [_fold_part(store, table, 0, parts)] + [f.result() for f in others]
    except BrokenProcessPool:  # a worker died (killed, out of memory): the whole fold here instead
        found = [_fold_part(store, table, 0, 1)]
    return _verdict(store, table, found)


_STORE: Store | None = None  # in a worker: the parent's store, forked (its pooled connections dropped)


def _forget_parent_connections(store: Store) -> None:
    """In a new worker: the parent's pooled connections are the parent's (SQLAlchemy's fork recipe);
    the store is the parent's otherwise (forked, never pickled)."""
    global _STORE
    store.engine.dispose(close=False)
    _STORE = store


def _part_in_worker(url: str, table: str, k: int, parts: int) -> _Part:
    store = _STORE if _STORE is not None and _STORE.url == url else open_store(url, migrate=False)
    return _fold_part(store, table, k, parts)


def _fold_part(store: Store, table: str, k: int, parts: int) -> _Part:
    """Part k of `parts` of the table's fold held against the stored rounds, in a transaction rolled
    back."""
    if k > 0:  # it writes nothing (projections.fold_journal): a read transaction, beside part 0's
        with store.read() as conn:
            held = _HeldRows(conn, table, (k, parts))
            fold_journal(conn, table, held, (k, parts))
            return _Part(held.rounds_problem(), held.final)
    with store.engine.connect() as conn:
        trans = conn.begin()
        try:
            held = _HeldRows(conn, table, (k, parts))
            fold_journal(conn, table, held, (k, parts))
            return _Part(held.rounds_problem(), held.final)
        finally:
            trans.rollback()


def _verdict(store: Store, table: str, found: list[_Part]) -> str | None:
    """The first difference of the parts' folds, in the order one fold's `_compare` names them: the
    first differing round of any part, then the aggregates (the parts' shares added up) against the
    stored rows."""
    rounds = [p.rounds for p in found if p.rounds is not None]
    if rounds:
        return min(rounds)[1]
    with store.read() as conn:
        return _aggregates_problem(conn, table, found)


def _aggregates_problem(conn: Any, table: str, found: list[_Part]) -> str | None:
    for name in _DERIVED[1:]:
        t = schema.metadata.tables[name]
        expected = _added(t, [p.aggregates.get(name, []) for p in found])
        rows = conn.execute(sa.select(t).where(t.c.table_id == table)).mappings()
        problem = _compare(name, {_key(t, row): dict(row) for row in rows}, expected)
        if problem is not None:
            return problem
    return None


class Cancelled(Exception):
    """A check on a read snapshot given up (`snapshot_problem`'s `cancelled` said so: a stop)."""


def snapshot_problem(store: Store, table: str, cancelled: Callable[[], bool] | None = None) -> str | None:
    """`derived_problem` for one table, on one read snapshot and writing nothing: the check a running
    table makes of a journal too long to fold before it deals (engine.table.derived_watch).

    The journal and the stored rows are read in the same read transaction (SQLite's WAL snapshot; a
    PostgreSQL REPEATABLE READ, READ ONLY transaction), so the table's own appends meanwhile are
    neither blocked nor seen half: the verdict is the snapshot's. The fold stores no Rules Submission
    (its text is only held against its sha256) and is not split across processes (each would read
    its own snapshot). `cancelled` is asked at every round the fold touches: true, the fold stops
    (`Cancelled`) within a few milliseconds. Database errors propagate (the caller says it could not
    check, never that the rows disagree)."""
    options: dict[str, Any] = {"drr_read": True}
    if not store.is_sqlite:
        options.update(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    with store.engine.connect() as raw:
        conn = raw.execution_options(**options)
        with conn.begin():
            held = _HeldRows(conn, table, cancelled=cancelled)
            held.stores_rules = False
            fold_journal(conn, table, held)
            found = [_Part(held.rounds_problem(), held.final)]
            problem = found[0].rounds[1] if found[0].rounds is not None else None
            if problem is None:
                problem = _aggregates_problem(conn, table, found)
    return None if problem is None else f"table {table}: {problem} (changed outside the journal)"


def _added(table: sa.Table, shares: list[list[dict[str, Any]]]) -> Rows:
    """The aggregate rows of the parts added up by key (each part made a row for the keys its own
    rounds bumped; the other columns are counts and sums)."""
    keys = {c.name for c in table.primary_key.columns}
    out: Rows = {}
    for share in shares:
        for row in share:
            k = _key(table, row)
            have = out.get(k)
            if have is None:
                out[k] = dict(row)
                continue
            for name, value in row.items():
                if name not in keys:
                    have[name] = (have[name] or 0) + (value or 0)
    return out


def _full(table: sa.Table, row: dict[str, Any]) -> dict[str, Any]:
    """`row` with every column, the missing ones at the value an insert would store."""
    out = dict(row)
    for c in table.columns:
        if c.name not in out:
            default = c.default.arg if c.default is not None and c.default.is_scalar else None  # type: ignore[attr-defined]
            out[c.name] = default
    return out


def _key(table: sa.Table, row: Any) -> tuple[Any, ...]:
    return tuple(row[c.name] for c in table.primary_key.columns)


class _HeldRows(MemoryRows):
    """A rebuild's fold held against the stored projections instead of written (`derived_problem`).

    Finished rounds are compared with their stored rows as the fold flushes them; one that differs
    is kept in memory (`suspects`), since a later entry (a void, a correction) may still change it
    and a later flush compare it again. One that matched is the stored row, so a later entry that
    takes it back reads it from the store. At the end the suspects left are the rounds that differ,
    and stored rounds the fold never made are looked for by id; the aggregates (a row a day,
    number and bet) are compared whole. Memory stays bounded as in a rebuild."""

    CHUNK = 500  # round ids a stored-row lookup names

    def __init__(
        self,
        conn: Any,
        table: str,
        part: tuple[int, int] = (0, 1),
        *,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(conn, table)
        self.part = part  # (k, n): this fold holds part k of n of the table's rounds (round_part)
        self.suspects: dict[str, dict[str, Any]] = {}
        self.final: dict[str, list[dict[str, Any]]] = {}
        self.cancelled = cancelled  # asked at every round the fold reads (snapshot_problem)

    def round(self, entry: Any) -> dict[str, Any]:
        if self.cancelled is not None and self.cancelled():
            raise Cancelled(f"the check of table {self.table}'s derived tables was stopped")
        return super().round(entry)

    def _take_back(self, rid: str) -> dict[str, Any]:
        row = self.suspects.pop(rid, None)
        if row is None:  # it matched its stored row when flushed: that row is the fold's
            r = schema.rounds
            found = self.conn.execute(sa.select(r).where(r.c.table_id == self.table, r.c.round_id == rid))
            row = dict(found.one()._mapping)
        self.written.discard(rid)
        self.rounds[rid] = row
        return row

    def _insert(self, table: sa.Table, rows: list[dict[str, Any]]) -> None:
        if table is not schema.rounds:
            self.final[table.name] = [_full(table, row) for row in rows]
            return
        r = schema.rounds
        for i in range(0, len(rows), self.CHUNK):
            chunk = [_full(r, row) for row in rows[i : i + self.CHUNK]]
            query = sa.select(r).where(
                r.c.table_id == self.table, r.c.round_id.in_([x["round_id"] for x in chunk])
            )
            stored = {row.round_id: row._mapping for row in self.conn.execute(query)}
            for row in chunk:
                have = stored.get(row["round_id"])
                if have is None or any(have.get(c) != v for c, v in row.items()):
                    self.suspects[row["round_id"]] = row

    def rounds_problem(self) -> tuple[str, str] | None:
        """After the fold: the first round (of this part) that differs, as (its sort key, the words),
        in the order `_compare` names them."""
        r = schema.rounds
        mine = r.c.table_id == self.table
        expected = {_key(r, row): row for row in self.suspects.values()}
        stored: dict[tuple[Any, ...], dict[str, Any]] = {}
        ids = [row["round_id"] for row in self.suspects.values()]
        for i in range(0, len(ids), self.CHUNK):
            query = sa.select(r).where(mine, r.c.round_id.in_(ids[i : i + self.CHUNK]))
            stored.update({_key(r, row._mapping): dict(row._mapping) for row in self.conn.execute(query)})
        # A stored round the journal never made, found by its id (this part's ids: every id is read,
        # a few bytes a round; a count would miss one added where another was deleted).
        k, parts = self.part
        extra = [rid for rid in self.conn.execute(sa.select(r.c.round_id).where(mine)).scalars()
                 if rid not in self.written and round_part(rid, parts) == k]  # fmt: skip
        for i in range(0, len(extra), self.CHUNK):
            query = sa.select(r).where(mine, r.c.round_id.in_(extra[i : i + self.CHUNK]))
            stored.update({_key(r, row._mapping): dict(row._mapping) for row in self.conn.execute(query)})
        return _first("rounds", stored, expected)


def _compare(name: str, stored: Rows, expected: Rows) -> str | None:
    first = _first(name, stored, expected)
    return None if first is None else first[1]


def _first(name: str, stored: Rows, expected: Rows) -> tuple[str, str] | None:
    """The first row (by its key's text) that differs: (that text, what differs)."""
    for key in sorted(set(stored) | set(expected), key=str):
        label = "/".join(str(k) for k in key[1:]) or str(key[0])
        if key not in expected:
            return str(key), f"{name} row {label} is in no journal entry"
        if key not in stored:
            return str(key), f"{name} row {label} of the journal is missing"
        for column, value in expected[key].items():
            if stored[key].get(column) != value:
                return str(key), (
                    f"{name} row {label}: {column} is {stored[key].get(column)!r}, the journal says {value!r}"
                )
    return None
