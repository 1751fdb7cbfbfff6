"""The journal's entries of given types, read typed: the newest one for a table ("what did the table last
start with / last load": the gate's software check, the floor's started program, the rules in force) and
every one in a period (the report's reconciliations, the settings changed, the floor actions taken)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.journal_types import Payload, Unknown, read, spellings, typed
from engine.store import schema
from engine.store.records import Entry, row_to_entry

if TYPE_CHECKING:
    from engine.store.db import Store


def latest_entry(store: Store, table: str, entry_type: EntryType) -> Entry | None:
    """The table's newest entry of `entry_type` (under any of its spellings), None when there is none."""
    j = schema.journal
    with store.read() as conn:
        row = conn.execute(
            sa.select(j)
            .where(j.c.table_id == table, j.c.type.in_(spellings(entry_type)))
            .order_by(j.c.seq.desc())
            .limit(1)
        ).first()
    return None if row is None else row_to_entry(row)


def entries_of(
    conn: Any,
    tables: str | Sequence[str],
    *types: EntryType,
    since: str | None = None,
    until: str | None = None,
    after: int = 0,
    skip_malformed: bool = False,
) -> Iterator[tuple[Entry, Payload | Unknown]]:
    """Each entry of `types` (under any of their spellings) on the chains of `tables`, with its typed
    payload (engine.journal_types.read: a malformed one raises DrrError naming it, or is passed over
    with `skip_malformed` where the chain's own check reports it), in chain order; `since`/`until`
    bound the entries' stored times (canonical text: since <= time < until), `after` their seq."""
    j = schema.journal
    names = [tables] if isinstance(tables, str) else list(tables)
    where: list[sa.ColumnElement[bool]] = [j.c.table_id.in_(names), j.c.type.in_(spellings(*types))]
    if after:
        where.append(j.c.seq > after)
    if since is not None:
        where.append(j.c.time >= since)
    if until is not None:
        where.append(j.c.time < until)
    for row in conn.execute(sa.select(j).where(*where).order_by(j.c.table_id, j.c.seq)):
        entry = row_to_entry(row)
        payload = typed(entry) if skip_malformed else read(entry)
        if payload is not None:
            yield entry, payload
