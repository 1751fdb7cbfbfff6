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
from engine.store.latest import latest_entry
from engine.store.records import row_to_entry
from engine.table_events import TILT_RNG, TILT_SOFTWARE, RngFault, TableStarted, TiltCleared, Tilted


@dataclass(frozen=True)
class StartedProgram:
    table: str
    seq: int
    time: str
    station: str
    software: str | None  # None: started by a program that did not journal its digest yet
    large_payout: str | None = None  # the threshold it started with (None: not journaled then)
    betting_seconds: str | None = None  # its round clock ("off", seconds; None: not journaled then)
    auto_confirm_seconds: str | None = None

    def text(self) -> str:
        """One line for a window: the digest (or why there is none) and when the table started."""
        when = self.time[:19].replace("T", " ")
        digest = self.software or "not recorded (started by an older program)"
        return f"software digest {digest}, table started {when} UTC ({self.station})"


def last_started(store: Store, table: str) -> StartedProgram | None:
    """The table's latest `table.started` entry, or None when it never started (e.g. imported rounds)."""
    entry = latest_entry(store, table, EntryType.TABLE_STARTED)
    payload = None if entry is None else read(entry)
    if entry is None or not isinstance(payload, TableStarted):
        return None
    return StartedProgram(
        table,
        entry.seq,
        entry.time,
        payload.station,
        payload.software,
        payload.large_payout,
        payload.betting_seconds,
        payload.auto_confirm_seconds,
    )


# The entries that tilt a table or end a tilt (engine.table.gate), read here as the table's fold does.
_TILT_TYPES = (
    EntryType.TABLE_STARTED,
    EntryType.RNG_FAULT,
    EntryType.TABLE_TILTED,
    EntryType.TABLE_TILT_CLEARED,
)


def tilts(store: Store, table: str) -> dict[str, str]:
    """Why `table` is tilted now, by cause, in words ({} when it may play): an RNG fault until a pit
    boss clears it, a program other than the approved one until a start with the approved one."""
    j = schema.journal
    names = [name for t in _TILT_TYPES for name in spellings(t)]
    with store.read() as conn:
        rows = conn.execute(
            sa.select(j).where(j.c.table_id == table, j.c.type.in_(names)).order_by(j.c.seq)
        ).all()
    out: dict[str, str] = {}
    for row in rows:
        p = read(row_to_entry(row))
        if isinstance(p, TableStarted):
            out.pop(TILT_SOFTWARE, None)
        elif isinstance(p, RngFault):
            out[TILT_RNG] = f"RNG fault: {p.test} failed"
        elif isinstance(p, Tilted):
            out[p.cause] = ("software not approved: " if p.cause == TILT_SOFTWARE else "") + p.reason
        elif isinstance(p, TiltCleared):
            out.pop(p.cause, None)
    return out


def started_text(store: Store, table: str) -> str:
    """The line the pit boss and surveillance windows show for `table` (its tilt first, in words)."""
    tilted = tilts(store, table)
    said = f"TILTED, play stopped — {'; '.join(tilted.values())}. " if tilted else ""
    started = last_started(store, table)
    if started is None:
        return said + "no table.started in the journal (imported rounds only): software digest unknown"
    return said + started.text()
