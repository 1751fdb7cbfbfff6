"""The derived tables against the verified journal (`drr audit verify`'s last step, engine.store.verify):
each table's journal folded again and held, round by round and aggregate by aggregate, against the
stored rows (`derived_problem`)."""

from __future__ import annotations

import sqlite3
from typing import Any

import sqlalchemy as sa

from engine.store import schema
from engine.store.db import Store
from engine.store.projections import MemoryRows, fold_journal

# The projections `drr db rebuild` recomputes from the journal (engine.store.projections.rebuild).
_DERIVED = ("rounds", "number_counts", "daily_totals", "daily_handle")


def derived_problem(store: Store, tables: list[str]) -> str | None:
    """What differs between the derived tables and the verified journal (None when they agree).

    Each table's journal is folded again by the handlers every append runs (`projections.fold_journal`)
    and, instead of being written, each finished round is held against its stored row as the fold
    flushes it (`_HeldRows`), the day and number aggregates at the end: a `paid` raised, a round
    inserted or deleted with plain SQL is named by table, round (or key) and column. Inside a
    transaction that is rolled back (the fold stores again a Rules Submission it finds missing)."""
    try:
        with store.engine.connect() as conn:
            trans = conn.begin()
            try:
                for table in tables:
                    held = _HeldRows(conn, table)
                    fold_journal(conn, table, held)
                    problem = held.problem()
                    if problem is not None:
                        return f"table {table}: {problem} (changed outside the journal)"
            finally:
                trans.rollback()
    except (sa.exc.SQLAlchemyError, sqlite3.Error):  # sqlite3's own: a SQLite BEGIN goes to the driver
        return None  # a read-only copy or an older schema: the projections are not checked here
    return None


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
    and stored rounds the fold never made are looked for by count; the aggregates (a row a day,
    number and bet) are compared whole. Memory stays bounded as in a rebuild."""

    CHUNK = 500  # round ids a stored-row lookup names

    def __init__(self, conn: Any, table: str) -> None:
        super().__init__(conn, table)
        self.suspects: dict[str, dict[str, Any]] = {}
        self.final: dict[str, list[dict[str, Any]]] = {}

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

    def problem(self) -> str | None:
        """After the fold: the first difference, in the order `_compare` names them."""
        r = schema.rounds
        mine = r.c.table_id == self.table
        expected = {_key(r, row): row for row in self.suspects.values()}
        stored: dict[tuple[Any, ...], dict[str, Any]] = {}
        ids = [row["round_id"] for row in self.suspects.values()]
        for i in range(0, len(ids), self.CHUNK):
            query = sa.select(r).where(mine, r.c.round_id.in_(ids[i : i + self.CHUNK]))
            stored.update({_key(r, row._mapping): dict(row._mapping) for row in self.conn.execute(query)})
        count = self.conn.execute(sa.select(sa.func.count()).select_from(r).where(mine)).scalar_one()
        if count != len(self.written):  # a stored round the journal never made: its id, then its row
            extra = [rid for rid in self.conn.execute(sa.select(r.c.round_id).where(mine)).scalars()
                     if rid not in self.written]  # fmt: skip
            for i in range(0, len(extra), self.CHUNK):
                query = sa.select(r).where(mine, r.c.round_id.in_(extra[i : i + self.CHUNK]))
                stored.update({_key(r, row._mapping): dict(row._mapping) for row in self.conn.execute(query)})
        problem = _compare("rounds", stored, expected)
        if problem is not None:
            return problem
        for name in _DERIVED[1:]:
            t = schema.metadata.tables[name]
            rows = self.conn.execute(sa.select(t).where(t.c.table_id == self.table)).mappings()
            problem = _compare(
                name,
                {_key(t, row): dict(row) for row in rows},
                {_key(t, row): row for row in self.final.get(name, [])},
            )
            if problem is not None:
                return problem
        return None


def _compare(
    name: str, stored: dict[tuple[Any, ...], dict[str, Any]], expected: dict[tuple[Any, ...], dict[str, Any]]
) -> str | None:
    for key in sorted(set(stored) | set(expected), key=str):
        label = "/".join(str(k) for k in key[1:]) or str(key[0])
        if key not in expected:
            return f"{name} row {label} is in no journal entry"
        if key not in stored:
            return f"{name} row {label} of the journal is missing"
        for column, value in expected[key].items():
            if stored[key].get(column) != value:
                return (
                    f"{name} row {label}: {column} is {stored[key].get(column)!r}, the journal says {value!r}"
                )
    return None
