"""What program a table runs: its latest `table.started` entry (station, time, software digest).

The pit boss and surveillance show it beside the table's other facts, so a lab's or regulator's
question "which software played these rounds?" is answered from the journal (docs/certification.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.journal_types import read, spellings
from engine.store import Store, schema
from engine.store.records import row_to_entry
from engine.table_events import TableStarted


@dataclass(frozen=True)
class StartedProgram:
    table: str
    seq: int
    time: str
    station: str
    software: str | None  # None: started by a program that did not journal its digest yet
    large_payout: str | None = None  # the threshold it started with (None: not journaled then)

    def text(self) -> str:
        """One line for a window: the digest (or why there is none) and when the table started."""
        when = self.time[:19].replace("T", " ")
        digest = self.software or "not recorded (started by an older program)"
        return f"software digest {digest}, table started {when} UTC ({self.station})"


def last_started(store: Store, table: str) -> StartedProgram | None:
    """The table's latest `table.started` entry, or None when it never started (e.g. imported rounds)."""
    j = schema.journal
    with store.read() as conn:
        row = conn.execute(
            sa.select(j)
            .where(j.c.table_id == table, j.c.type.in_(spellings(EntryType.TABLE_STARTED)))
            .order_by(j.c.seq.desc())
            .limit(1)
        ).first()
    if row is None:
        return None
    entry = row_to_entry(row)
    payload = read(entry)
    if not isinstance(payload, TableStarted):
        return None
    return StartedProgram(
        table, entry.seq, entry.time, payload.station, payload.software, payload.large_payout
    )


def started_text(store: Store, table: str) -> str:
    """The line the pit boss and surveillance windows show for `table`."""
    started = last_started(store, table)
    if started is None:
        return "no table.started in the journal (imported rounds only): software digest unknown"
    return started.text()
