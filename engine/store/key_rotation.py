"""A table key's rotation, written ahead so that a kill at any point leaves a table that starts.

1. `keys.begin_rotation`: the key file keeps the old key and, beside it, the new one (`pending_key`);
2. the `table.key_rotated` entry is appended, signed by the old key, the entry MAC'd and the head
   signed by the new one (`Journal.append_many(sign_with=...)`), in one transaction;
3. `keys.finish_rotation`: the new key takes over the file (the old one's MAC key kept, its signing
   key not), and the witness is MAC'd by it.

A kill between 1 and 2 leaves a key file with a pending key the journal never heard of: `settle`
drops it (the old key still signs the chain's head). A kill between 2 and 3 leaves the journal handed
over to a key the file still holds as pending: `settle` promotes it. `settle` runs before every start
and every verification (engine.store.evidence, engine.store.verify), so neither ever reads the chain
against the wrong key. The rotation itself is engine.store.evidence.rotate_key.
"""

from __future__ import annotations

from dataclasses import replace

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.journal_types import typed
from engine.store import keys
from engine.store.db import Store
from engine.store.latest import latest_entry
from engine.table_events import KeyRotated


def journaled_new_key(store: Store, table: str) -> str | None:
    """The `new_key` of the table's last `table.key_rotated` entry, None if it has none (or it cannot
    be read: the chain's check reports it)."""
    entry = latest_entry(store, table, EntryType.TABLE_KEY_ROTATED)
    rotated = None if entry is None else typed(entry)
    return (rotated.new_key or None) if isinstance(rotated, KeyRotated) else None


def settle(store: Store, table: str) -> keys.TableKey | None:
    """The table's key with a rotation a kill interrupted finished or dropped (see the module
    docstring); the key as it stands (None: no key file)."""
    key = keys.load(store.where, table)
    if key is None or key.pending is None:
        return key
    committed = journaled_new_key(store, table) == keys.pending_key(key).public
    try:
        return keys.finish_rotation(key) if committed else keys.abandon_rotation(key)
    except DrrError:  # a key folder that cannot be written (a copy verified read-only): in memory only
        return keys.pending_key(key) if committed else replace(key, pending=None)
