"""The newest journal entry of one type for a table: the one query behind "what did the table last
start with / last load" (the gate's software check, the floor's started program, the rules in force)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.journal_types import spellings
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
