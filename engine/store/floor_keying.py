"""The floor chain's keying done by hand: `drr db upgrade` keys it, `drr db enroll` admits a writer.

Both append a root-signed entry through the store's journal (`chain.keyed`, `chain.writer_enrolled`),
so they sit above it; the signing of every append (engine.store.floor_sign) sits below the journal.
"""

from __future__ import annotations

from engine.errors import DrrError
from engine.floor_events import ChainKeyed, WriterEnrolled
from engine.journal_types import write
from engine.store import keys
from engine.store.db import Store
from engine.store.floor_sign import chain_root, keying, root_key
from engine.store.journal import read_head
from engine.store.keys import TableKey
from engine.store.users_journal import FLOOR


def ensure_root(store: Store) -> tuple[str, TableKey | None, bool]:
    """`drr db upgrade --db URL`: the floor chain keyed (its root key made here and named by
    `chain.keyed`) if it is not yet; (the root key in force, its key file if it is here, made now)."""
    with store.begin() as conn:
        read_head(conn, FLOOR, lock=True)
        named = chain_root(conn)
        root = root_key(store.where)
        if named is not None:
            return named, root if root is not None and root.public == named else None, False
        root, made = keys.ensure(store.where, FLOOR)
        written = store.journal.append_in(conn, [write(ChainKeyed(root.public), table=FLOOR)])
    store.journal.witness(written)
    return root.public, root, made


def enroll(store: Store, host: str, public: str, *, by: str) -> bool:
    """`drr db enroll`: admit the writer key `public` of `host` (the root key signs the entry);
    False if it is already enrolled."""
    try:
        if len(bytes.fromhex(public)) != 32:
            raise ValueError
    except ValueError:
        raise DrrError(f"--key {public!r} is not a writer key (64 hex digits: drr db writer-key)") from None
    with store.begin() as conn:
        read_head(conn, FLOOR, lock=True)
        if public in keying(conn)[1]:
            return False
        written = store.journal.append_in(
            conn, [write(WriterEnrolled(public, host, by), table=FLOOR, user=by)]
        )
    store.journal.witness(written)
    return True
