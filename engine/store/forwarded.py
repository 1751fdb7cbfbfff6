"""Where a pit-boss action taken at this store is journaled: the table's chain, or the floor's own.

On the floor database a table's chain is the copy `drr db forward` makes of the table's own journal
(engine.store.forward marks it with a `chain.forwarded` entry on the floor chain); only the
forwarder writes it. An action written into the copy would make it differ from the table's journal
for ever (the next forward stops on the divergence). So an action on such a table is journaled on
the floor's own chain as a `floor.action` entry (the action's type and payload kept whole, the
table and round named); on the table's own store (its SQLite file, or a floor database the table
writes to directly) it goes to the table's chain, where the table service folds it.

Every pit-boss action is journaled through `journal_action`. The way back (engine.floor.inbox: a
`floor.action` brought to the table by its forwarder) decides the action again on the table's own
store through the same functions, inside `taken_from_floor(marker)`: the `table.floor_action_taken`
marker and the action's entry are then one batch (one transaction), so a crash never leaves an action
taken without its marker, or a marker without its action.

An action no table takes back stays on the floor's chain only (a `wheel.reconciled` made at the floor:
the table has nothing to decide); its readers (the alert scanner, the reports, the reconciliation
itself) read it there with the table's own entries, through `floor_actions` / `unwrap`, typed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import sqlalchemy as sa

from engine.entry_types import EntryType, entry_type
from engine.errors import DrrError
from engine.floor_events import FloorAction
from engine.journal_types import Payload, Unknown, parse, write
from engine.store import schema
from engine.store.canonical import canonical_json
from engine.store.db import Store
from engine.store.latest import entries_of
from engine.store.records import Entry, NewEvent
from engine.store.users_journal import FLOOR


def is_forwarded(store: Store, table: str) -> bool:
    """This store's chain of `table` is the forwarded copy (the forwarder's mark is on the floor chain)."""
    j = schema.journal
    mark = canonical_json({"table": table})
    with store.read() as conn:
        found = conn.execute(
            sa.select(j.c.seq)
            .where(j.c.table_id == FLOOR, j.c.type == EntryType.CHAIN_FORWARDED.value, j.c.payload == mark)
            .limit(1)
        ).first()
    return found is not None


def action_event(store: Store, event: NewEvent) -> NewEvent:
    """`event` (a pit-boss action on its table's chain) as it is journaled in this store."""
    if event.table == FLOOR or not is_forwarded(store, event.table):
        return event
    action = FloorAction(event.table, event.type, dict(event.payload))
    return write(action, table=FLOOR, round_id=event.round_id, user=event.user, time=event.time)


def unwrap(action: FloorAction, kinds: frozenset[EntryType], *, where: str) -> Payload | None:
    """The typed payload of the action a `floor.action` carries when it is of one of `kinds` (its
    stored name read as today's type, an old spelling too), else None; None too when that payload is
    malformed (the chain's own check reports it, the way a malformed entry is passed over)."""
    if entry_type(action.action) not in kinds:
        return None
    try:
        p = parse(action.action, action.payload, where=where)
    except DrrError:
        return None
    return None if isinstance(p, Unknown) else p


def floor_actions(
    conn: Any,
    *kinds: EntryType,
    table: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> Iterator[tuple[Entry, FloorAction, Payload]]:
    """Each `floor.action` on the floor's chain whose action is of `kinds` (of `table` when named), in
    chain order: the floor entry, its typed FloorAction and the action's own typed payload (through
    the registry, engine.journal_types). `since`/`until` bound the floor entries' stored times as
    engine.store.latest.entries_of does."""
    wanted = frozenset(kinds)
    found = entries_of(conn, FLOOR, EntryType.FLOOR_ACTION, since=since, until=until, skip_malformed=True)
    for entry, action in found:
        if not isinstance(action, FloorAction) or (table is not None and action.table != table):
            continue
        p = unwrap(action, wanted, where=f"floor entry {entry.seq}")
        if p is not None:
            yield entry, action, p


# The marker the floor inbox is taking an action under (None: an action taken here, by a person).
_TAKING: ContextVar[NewEvent | None] = ContextVar("drr_taking_floor_action", default=None)


@contextmanager
def taken_from_floor(marker: NewEvent) -> Iterator[None]:
    """Journal the actions decided inside this block with `marker` (a `table.floor_action_taken`
    entry on the same chain) in front of them, in the same batch."""
    token = _TAKING.set(marker)
    try:
        yield
    finally:
        _TAKING.reset(token)


def journal_action(store: Store, event: NewEvent) -> None:
    """Journal a pit-boss action: on its table's chain, or as `floor.action` on a forwarded copy
    (`action_event`); with the floor inbox's marker in front when it is taking the action back."""
    marker = _TAKING.get()
    if marker is not None and marker.table == event.table:
        store.journal.append_many([marker, event])
        return
    store.journal.append_many([action_event(store, event)])


def done_words(store: Store, table: str, done: str) -> str:
    """What a pit boss is told after an action (`done`, e.g. "round X voided by pat"): on a forwarded
    copy the action is only sent, and the table decides it again (engine.floor.inbox), so they are
    not told it happened when the table may still refuse it."""
    if not is_forwarded(store, table):
        return done
    return (
        f"{done} at the floor database: sent to table {table}, which decides it again when its "
        "forwarder next runs (`drr history show ROUND_ID` shows whether the table took or refused it)"
    )
