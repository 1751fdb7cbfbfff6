"""The reference checks of one journal entry: its payload and hash (`entry_problem`), the key it names.

What every reader of a chain holds an entry against: `drr audit verify` (engine.store.verify), its
parts scanned side by side (engine.store.chain_parallel), the table's restart (engine.table.recovery)
and the floor's inbox. Below all of them, so each can take them.
"""

from __future__ import annotations

import json

from engine.entry_types import EntryType
from engine.store import keys
from engine.store.canonical import entry_hash_of_text, is_canonical
from engine.store.chain_scan import KEY_TYPES
from engine.store.records import Entry


def entry_problem(entry: Entry, prev_hash: str | None = None, rule: str | None = None) -> str | None:
    """What is wrong with one entry read back (None when it is as written): its payload is canonical
    JSON under its chain's byte rule (`rule`, engine.store.canonical; None, for a reader that does not
    follow the chain from its first entry: either rule), its hash recomputes over that text, and
    (given `prev_hash`) it follows the entry before it. The same checks as `verify`, for a reader that
    folds only part of a chain (the table's restart)."""
    if prev_hash is not None and entry.prev_hash != prev_hash:
        return "does not follow the entry before it (reordered or replaced)"
    try:
        body = json.loads(entry.payload_text)
    except ValueError:
        return "payload is not JSON (edited)"
    if not is_canonical(entry.payload_text, body, rule):
        return "payload is not in canonical form (edited)"
    digest = entry_hash_of_text(
        table=entry.table,
        seq=entry.seq,
        time=entry.time,
        user=entry.user,
        round_id=entry.round_id,
        type=entry.type,
        payload_text=entry.payload_text,
        prev_hash=entry.prev_hash,
    )
    return None if digest == entry.hash else "contents do not match its hash (edited)"


def key_change(entry: Entry, key: str | None) -> tuple[str | None, str | None]:
    """(the key this entry puts in force or None, what is wrong with it or None)."""
    if entry.type not in KEY_TYPES:
        return None, None
    body = json.loads(entry.payload_text)
    if entry.type == EntryType.TABLE_KEY_ROTATED.value:
        old, new = str(body.get("old_key")), str(body.get("new_key"))
        if key is not None and old != key:
            return None, "a key rotation from a key that is not the one in force (forged)"
        if not keys.check_raw(old, keys.rotation_message(entry.table, old, new), body.get("signature")):
            return None, "a key rotation not signed by the old key (forged)"
        return new, None
    named = body.get("key")
    if named is None:
        return None, None
    if key is not None and named != key:
        return None, "names a signing key other than the one in force, without a journaled rotation (forged)"
    return str(named), None
