"""A table's start held against the floor's copy of its chain: a rollback of store and witness together.

Someone with the table PC's files who copies back an older store together with its key and witness
leaves nothing on the PC that knows better: the chain verifies against the witness it came with. The
floor database does know better: it holds the table's heads as the forwarder sent them, each signed
by the table's key (the head row and `signed_heads`, engine.store.signed_heads), and a rollback
cannot take a signature back. So at every start, where the floor database is configured
(`DRR_FLOOR_URL`, the forwarder's own setting: /etc/drr/forwarder.env in the Debian package) and
reachable, the table's head is held against the newest head the floor holds signed by this table's
key (the key in force or a retired one): a signed floor head beyond the local journal, or at an entry
the local journal has with another hash, refuses the start in one line. A floor head no signature of
the table's key covers is not believed either way (anyone with write access to the floor database
could have made it: it neither stops nor clears the table). An unreachable floor is said in one line
and the table starts: the check could not be made (docs/journal-evidence.md, the residual risk).
"""

from __future__ import annotations

import os
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from engine.errors import DrrError
from engine.store import keys, schema, signed_heads
from engine.store.database import redact
from engine.store.db import Store, open_store, resolve_url

FLOOR_URL_ENV = "DRR_FLOOR_URL"


def floor_url() -> str | None:
    """The floor database this table forwards to, as the forwarder is told (None: no floor)."""
    return os.environ.get(FLOOR_URL_ENV) or None


def _newest_signed(store: Store, table: str, key: keys.TableKey) -> tuple[int, str, str] | None:
    """(seq, hash, fingerprint of the signing key) of the newest head the floor holds for `table`
    whose signature is by this table's key; None if none is."""
    h = schema.chain_heads
    with store.read() as conn:
        kept = signed_heads.received(conn, table)
        row = conn.execute(sa.select(h.c.seq, h.c.hash, h.c.sig).where(h.c.table_id == table)).first()
    if row is not None and row.sig:
        kept[int(row.seq)] = (str(row.hash), str(row.sig))
    publics = [key.public, *(p for p, _ in key.retired)]
    for seq in sorted(kept, reverse=True):
        hash_, sig = kept[seq]
        for public in publics:
            if keys.check_signature(public, table, seq, hash_, sig):
                return seq, hash_, keys.fingerprint(public)
    return None


def check_against_floor(store: Store, table: str, key: keys.TableKey, url: str | None = None) -> str | None:
    """Hold the table's chain against the floor's signed heads of it (see the module docstring).
    DrrError (one line) when the floor holds a signed head the local chain does not; a one-line note
    when the check could not be made (the floor unreachable or unreadable); None when it held or no
    floor database is configured."""
    url = url or floor_url()
    if url is None:
        return None
    full = resolve_url(url)
    shown = redact(full)
    parsed = make_url(full)
    local = (
        parsed.get_backend_name() == "sqlite"
        and store.path is not None
        and Path(parsed.database or "").expanduser().absolute() == store.path
    )
    if local or shown == store.where:
        return None  # the table writes the floor database itself: its own chain is the floor's copy
    try:
        with open_store(url, migrate=False, allow_older=True) as floor:
            found = _newest_signed(floor, table, key)
    except DrrError as exc:
        return (
            f"table {table}: the floor database {shown} could not be reached, so this start was not "
            f"checked against the floor's copy of the chain (a rollback of store and witness goes "
            f"unseen until the forwarder reaches it): {exc.message}"
        )
    if found is None:
        return None
    seq, hash_, fp = found
    j = schema.journal
    with store.read() as conn:
        mine = conn.execute(sa.select(j.c.hash).where(j.c.table_id == table, j.c.seq == seq)).scalar()
        last = conn.execute(sa.select(sa.func.max(j.c.seq)).where(j.c.table_id == table)).scalar() or 0
    if mine == hash_:
        return None
    what = (
        f"the journal here ends at entry {last}"
        if mine is None
        else f"the journal here has another entry {seq} (its hash differs)"
    )
    raise DrrError(
        f"table {table}: the floor database holds entry {seq} of this table's chain, signed by the "
        f"table's key {fp}, but {what}: the store and its witness were rolled back (an older copy put "
        f"back) or rewritten; not started. The floor's copy decides: keep this store, quarantine it "
        f"(drr db quarantine --db {store.where} --table {table}) and take the lost rounds' ids from "
        "the floor"
    )
