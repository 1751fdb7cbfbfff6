"""Where the projections' handlers write: straight to SQL per entry, or folded over a batch in memory.

engine.store.projections defines what each entry type does to `rounds`, `number_counts`,
`daily_totals` and `daily_handle`, once, against the small `Writer` interface below. `DirectWriter`
runs each read and write as SQL at once (one entry appended by a table). `BatchWriter` serves a run
of entries (a forwarded batch, an import): it reads the rounds the run touches in one query, keeps
them in memory while the handlers fold the run, adds up the aggregate deltas, and writes everything
at `flush()` with a few bulk statements (INSERT of the new rounds, UPDATE of the changed ones,
upserts adding the deltas). The two leave the same rows (tests/store/test_projection_writers.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.store import schema
from engine.store.records import Entry
from engine.store.rules_store import record_rules

_WAGER_TYPES = (EntryType.ROUND_WAGER_PLACED.value, EntryType.ROUND_WAGER_REMOVED.value)
_CHUNK = 500  # round ids per IN (...) list


class Writer(Protocol):
    def round(self, entry: Entry) -> Any: ...
    def insert_round(self, values: dict[str, Any]) -> None: ...
    def set_round(self, entry: Entry, **values: Any) -> None: ...
    def bump(self, table: sa.Table, keys: dict[str, Any], deltas: dict[str, int]) -> None: ...
    def wagers(self, entry: Entry) -> list[tuple[str, str]]: ...
    def rules(self, entry: Entry) -> None: ...


def _unknown(entry: Entry) -> DrrError:
    return DrrError(f"{entry.type} for unknown round {entry.round_id!r} on table {entry.table}")


class DirectWriter:
    """Every read and write at once, in the caller's transaction."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def round(self, entry: Entry) -> Any:
        r = schema.rounds
        row = self.conn.execute(
            sa.select(r).where(r.c.table_id == entry.table, r.c.round_id == entry.round_id)
        ).first()
        if row is None:
            raise _unknown(entry)
        return row

    def insert_round(self, values: dict[str, Any]) -> None:
        self.conn.execute(sa.insert(schema.rounds).values(values))

    def set_round(self, entry: Entry, **values: Any) -> None:
        r = schema.rounds
        self.conn.execute(
            sa.update(r).where(r.c.table_id == entry.table, r.c.round_id == entry.round_id).values(**values)
        )

    def bump(self, table: sa.Table, keys: dict[str, Any], deltas: dict[str, int]) -> None:
        """Add `deltas` to the aggregate row `keys`, creating it at zero first if needed."""
        deltas = {k: v for k, v in deltas.items() if v}
        if not deltas:
            return
        where = [table.c[k] == v for k, v in keys.items()]
        done = self.conn.execute(
            sa.update(table).where(*where).values({table.c[k]: table.c[k] + v for k, v in deltas.items()})
        ).rowcount
        if not done:
            row = {c.name: 0 for c in table.columns if c.name not in keys}
            row.update(keys)
            row.update(deltas)
            self.conn.execute(sa.insert(table).values(row))

    def wagers(self, entry: Entry) -> list[tuple[str, str]]:
        """(type, payload text) of the round's wager entries in chain order (an index read)."""
        j = schema.journal
        rows = self.conn.execute(
            sa.select(j.c.type, j.c.payload)
            .where(j.c.table_id == entry.table, j.c.round_id == entry.round_id, j.c.type.in_(_WAGER_TYPES))
            .order_by(j.c.seq)
        ).all()
        return [(str(t), str(p)) for t, p in rows]

    def rules(self, entry: Entry) -> None:
        record_rules(self.conn, entry)


class _Row:
    """A round held in memory, read by attribute like a database row (a snapshot: later writes
    do not show through, as with a row read from the database)."""

    __slots__ = ("_values",)

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = values

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None


# The values a new `rounds` row takes for the columns its insert leaves out (the schema's defaults).
_ROUND_DEFAULTS: dict[str, Any] = {
    c.name: (c.default.arg if c.default is not None and not callable(c.default.arg) else None)  # type: ignore[attr-defined]
    for c in schema.rounds.columns
}


_KEYS: dict[str, tuple[str, ...]] = {}  # an aggregate table's primary key columns, by table name


class BatchWriter:
    """A run of entries folded in memory, written in bulk by `flush()` (see the module docstring).

    The run's entries must already be in the journal (as `insert_entries` does: journal first), since a
    settlement reads its round's wagers from there."""

    def __init__(self, conn: Connection, entries: Sequence[Entry]) -> None:
        self.conn = conn
        self.rounds: dict[tuple[str, str], dict[str, Any]] = {}
        self.new: set[tuple[str, str]] = set()
        self.dirty: set[tuple[str, str]] = set()
        self.deltas: dict[str, dict[tuple[Any, ...], dict[str, int]]] = {}
        self._wagers: dict[tuple[str, str], list[tuple[str, str]]] | None = None
        self.entries = entries
        self._load_rounds({(e.table, e.round_id) for e in entries if e.round_id is not None})

    def _by_table(self, keys: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for table, round_id in sorted(keys):
            out.setdefault(table, []).append(round_id)
        return out

    def _load_rounds(self, keys: set[tuple[str, str]]) -> None:
        r = schema.rounds
        for table, ids in self._by_table(keys).items():
            for i in range(0, len(ids), _CHUNK):
                rows = self.conn.execute(
                    sa.select(r).where(r.c.table_id == table, r.c.round_id.in_(ids[i : i + _CHUNK]))
                ).all()
                for row in rows:
                    self.rounds[(table, row.round_id)] = dict(row._mapping)

    def round(self, entry: Entry) -> Any:
        values = self.rounds.get((entry.table, str(entry.round_id)))
        if values is None:
            raise _unknown(entry)
        return _Row(dict(values))

    def insert_round(self, values: dict[str, Any]) -> None:
        key = (str(values["table_id"]), str(values["round_id"]))
        if key in self.rounds:
            raise DrrError(f"round {key[1]} of table {key[0]} is opened twice in the journal")
        row = dict(_ROUND_DEFAULTS)
        row.update(values)
        self.rounds[key] = row
        self.new.add(key)

    def set_round(self, entry: Entry, **values: Any) -> None:
        key = (entry.table, str(entry.round_id))
        row = self.rounds.get(key)
        if row is None:
            return  # as an UPDATE of no row (the handlers read the round first)
        row.update(values)
        if key not in self.new:
            self.dirty.add(key)

    def bump(self, table: sa.Table, keys: dict[str, Any], deltas: dict[str, int]) -> None:
        names = _KEYS.get(table.name)
        if names is None:
            names = _KEYS[table.name] = tuple(c.name for c in table.primary_key.columns)
        held: dict[str, int] | None = None
        for k, v in deltas.items():
            if v:
                if held is None:
                    held = self.deltas.setdefault(table.name, {}).setdefault(
                        tuple(keys[n] for n in names), {}
                    )
                held[k] = held.get(k, 0) + v

    def wagers(self, entry: Entry) -> list[tuple[str, str]]:
        if self._wagers is None:
            self._wagers = self._load_wagers()
        key = (entry.table, str(entry.round_id))
        if key not in self._wagers:  # a settlement the first read did not foresee
            return DirectWriter(self.conn).wagers(entry)
        return self._wagers[key]

    def _load_wagers(self) -> dict[tuple[str, str], list[tuple[str, str]]]:
        """The wager entries of every round the run settles, in one read per table."""
        settled = {
            (e.table, e.round_id)
            for e in self.entries
            if e.round_id is not None and e.type == EntryType.ROUND_SETTLED.value
        }
        found: dict[tuple[str, str], list[tuple[str, str]]] = {k: [] for k in settled}  # type: ignore[misc]
        j = schema.journal
        for table, ids in self._by_table(settled).items():  # type: ignore[arg-type]
            for i in range(0, len(ids), _CHUNK):
                rows = self.conn.execute(
                    sa.select(j.c.round_id, j.c.type, j.c.payload)
                    .where(j.c.table_id == table, j.c.round_id.in_(ids[i : i + _CHUNK]))
                    .where(j.c.type.in_(_WAGER_TYPES))
                    .order_by(j.c.seq)
                ).all()
                for round_id, type_name, payload in rows:
                    found[(table, round_id)].append((str(type_name), str(payload)))
        return found

    def rules(self, entry: Entry) -> None:
        record_rules(self.conn, entry)

    def flush(self) -> None:
        """Write what the run changed: new rounds, changed rounds, the aggregates' deltas."""
        r = schema.rounds
        if self.new:
            self.conn.execute(sa.insert(r), [self.rounds[k] for k in sorted(self.new)])
        if self.dirty:
            columns = [c.name for c in r.columns if not c.primary_key]
            update = (
                sa.update(r)
                .where(r.c.table_id == sa.bindparam("k_table"), r.c.round_id == sa.bindparam("k_round"))
                .values({c: sa.bindparam(f"v_{c}") for c in columns})
            )
            self.conn.execute(
                update,
                [
                    {"k_table": t, "k_round": rid, **{f"v_{c}": self.rounds[(t, rid)][c] for c in columns}}
                    for t, rid in sorted(self.dirty)
                ],
            )
        for name, rows in self.deltas.items():
            self._upsert(schema.metadata.tables[name], rows)
        self.new.clear()
        self.dirty.clear()
        self.deltas.clear()

    def _upsert(self, table: sa.Table, rows: dict[tuple[Any, ...], dict[str, int]]) -> None:
        keys = [c.name for c in table.primary_key.columns]
        values = [c.name for c in table.columns if not c.primary_key]
        if self.conn.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
        stmt = insert(table)
        stmt = stmt.on_conflict_do_update(
            index_elements=keys, set_={v: table.c[v] + stmt.excluded[v] for v in values}
        )
        self.conn.execute(
            stmt,
            [
                {**dict(zip(keys, key, strict=True)), **{v: d.get(v, 0) for v in values}}
                for key, d in rows.items()
            ],
        )
