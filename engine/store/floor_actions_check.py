"""On a floor store: every `table.floor_action_taken` of a table's chain names a floor entry the floor
chain still holds (engine.store.verify's last chain step).

A pit boss's action reaches a table from the floor chain's `floor.action` entry, and the table journals
which entry it took (or refused) with that entry's seq and hash (engine.floor.inbox). Someone who can
write the floor database and removes that entry afterwards (with the rows after it: a cut of the floor
chain's tail, which the chain itself shows only where a writer's witness is) leaves the table's record
pointing at nothing: `missing` names the table's entry, the floor entry and what happened to it.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.floor_events import ChainForwarded
from engine.store import schema
from engine.store.latest import entries_of
from engine.store.users_journal import FLOOR
from engine.table_events import FloorActionTaken

_CHUNK = 500


def missing(conn: Any, tables: list[str]) -> tuple[str, int, str] | None:
    """(table, seq of its `table.floor_action_taken`, problem) for the first one whose floor entry
    is gone or differs; None if every one holds (or no table took a floor action)."""
    j = schema.journal
    # Only the chains this store holds as the floor's copies (a `chain.forwarded` mark on its floor
    # chain): a table's own store has a floor chain of its own, not the floor's.
    copies = {
        p.table
        for _, p in entries_of(conn, FLOOR, EntryType.CHAIN_FORWARDED, skip_malformed=True)
        if isinstance(p, ChainForwarded)
    }
    names = [t for t in tables if t != FLOOR and t in copies]
    if not names:
        return None
    # (a malformed payload is the chain's own check: engine.store.entry_check)
    taken = entries_of(conn, names, EntryType.TABLE_FLOOR_ACTION_TAKEN, skip_malformed=True)
    wanted = [
        (e.table, e.seq, p.floor_seq, p.floor_hash, p.action, p.outcome)
        for e, p in taken
        if isinstance(p, FloorActionTaken)
    ]
    if not wanted:
        return None
    seqs = sorted({w[2] for w in wanted})
    held: dict[int, tuple[str, str]] = {}
    for at in range(0, len(seqs), _CHUNK):
        part = seqs[at : at + _CHUNK]
        for seq, hash_, type_ in conn.execute(
            sa.select(j.c.seq, j.c.hash, j.c.type).where(j.c.table_id == FLOOR, j.c.seq.in_(part))
        ):
            held[int(seq)] = (str(hash_), str(type_))
    for table, seq, floor_seq, floor_hash, action, outcome in wanted:
        found = held.get(floor_seq)
        if found is not None and found[0] == floor_hash:
            continue
        what = (
            "is gone (removed: the floor chain was cut or rolled back behind it)"
            if found is None
            else (f"now holds another entry ({found[1]}, rewritten)")
        )
        return (
            table,
            seq,
            f"the table's table.floor_action_taken names floor entry {floor_seq} (a {action}, {outcome} by "
            f"the table, hash {floor_hash[:16]}…), and the floor chain's entry {floor_seq} {what}: the "
            "floor's record of what the table was told to do was changed after the table acted on it",
        )
    return None
