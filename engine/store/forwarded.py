"""Where a pit-boss action taken at this store is journaled: the table's chain, or the floor's own.

On the floor database a table's chain is the copy `drr db forward` makes of the table's own journal
(engine.store.forward marks it with a `chain.forwarded` entry on the floor chain); only the
forwarder writes it. An action written into the copy would make it differ from the table's journal
for ever (the next forward stops on the divergence). So an action on such a table is journaled on
the floor's own chain as a `floor.action` entry (the action's type and payload kept whole, the
table and round named); on the table's own store (its SQLite file, or a floor database the table
writes to directly) it goes to the table's chain, where the table service folds it.
"""

from __future__ import annotations

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.store import schema
from engine.store.canonical import canonical_json
from engine.store.db import Store
from engine.store.records import NewEvent
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
    from engine.floor_events import FloorAction
    from engine.journal_types import write

    action = FloorAction(event.table, event.type, dict(event.payload))
    return write(action, table=FLOOR, round_id=event.round_id, user=event.user, time=event.time)
