"""The floor keeps every table's signed heads: what the forwarder received, and the audit that holds the
floor's copy against it.

When a forwarded batch reaches the table's head, the forwarder copies the head's signature (the table
key's Ed25519 signature over table, seq and hash, engine.store.keys) onto the floor's head row, and
keeps the signed head in `signed_heads` with the time it was received: every head at first, then one
at least every `KEEP_EVERY_S` seconds or `KEEP_EVERY_ENTRIES` entries (a table commits every few
seconds; five years of every head would be tens of millions of rows, and a later signed head covers
every entry before it). `drr audit verify` on the floor store checks each kept head against the
floor's copy of the chain: the entry is still there with that hash, and the signature is the key's
in force at that entry. A floor copy cut or rolled back behind a head the table once signed, or a
forged history row, fails and names the entry. See docs/journal-evidence.md.
"""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine.store import schema
from engine.store.canonical import format_time, now_text, parse_time

KEEP_EVERY_S = 300.0
KEEP_EVERY_ENTRIES = 1000


def keep(
    conn: Connection,
    table: str,
    seq: int,
    hash_: str,
    sig: str,
    *,
    every_s: float = KEEP_EVERY_S,
    every_entries: int = KEEP_EVERY_ENTRIES,
) -> bool:
    """Keep the signed head received (in the forwarding transaction) unless the last kept one is recent
    and close; True if a row was written."""
    t = schema.signed_heads
    last = conn.execute(
        sa.select(t.c.seq, t.c.received_at).where(t.c.table_id == table).order_by(t.c.seq.desc()).limit(1)
    ).first()
    now = now_text()
    if last is not None:
        if int(last.seq) >= seq:
            return False
        age = (parse_time(now) - parse_time(last.received_at)).total_seconds()
        if age < every_s and seq - int(last.seq) < every_entries:
            return False
    conn.execute(sa.insert(t).values(table_id=table, seq=seq, hash=hash_, sig=sig, received_at=now))
    return True


# `keep` as a data-modifying CTE for PostgreSQL, so the forwarder folds it into the statement that also
# advances and signs the head and NOTIFYs (engine.store.forward, issue 28): the same rule, decided by the
# server in the forwarding transaction, after the head row's lock (so another forwarder's kept row is
# seen). Its parameters are `keep_params`'s; received_at texts are format_time's (fixed width, UTC),
# whose byte order is their time order, so "received within every_s" is a text comparison in "C".
KEEP_CTE_PG = """kept AS (
    INSERT INTO signed_heads (table_id, seq, hash, sig, received_at)
    SELECT CAST(:t AS VARCHAR), CAST(:seq AS BIGINT), CAST(:hash AS VARCHAR), CAST(:sig AS VARCHAR),
        CAST(:received_at AS VARCHAR)
    WHERE CAST(:keep AS BOOLEAN) AND NOT EXISTS (
        SELECT 1 FROM (
            SELECT seq, received_at FROM signed_heads WHERE table_id = CAST(:t AS VARCHAR)
            ORDER BY seq DESC LIMIT 1
        ) AS last
        WHERE last.seq >= CAST(:seq AS BIGINT) OR (
            last.received_at COLLATE "C" > CAST(:recent AS VARCHAR) COLLATE "C"
            AND CAST(:seq AS BIGINT) - last.seq < CAST(:every_entries AS BIGINT)
        )
    )
    RETURNING 1
)"""


def keep_params(
    sig: str | None,
    *,
    every_s: float = KEEP_EVERY_S,
    every_entries: int = KEEP_EVERY_ENTRIES,
) -> dict[str, object]:
    """KEEP_CTE_PG's parameters besides :t, :seq and :hash: a head with no signature is not kept."""
    now = now_text()
    try:
        recent = format_time(parse_time(now) - timedelta(seconds=every_s))
    except OverflowError:  # every_s longer than the calendar: every kept head is recent
        recent = ""
    return {
        "sig": sig,
        "keep": sig is not None,
        "received_at": now,
        "recent": recent,
        "every_entries": every_entries,
    }


def received(conn: Connection, table: str) -> dict[int, tuple[str, str]]:
    """seq -> (hash, signature) of the signed heads the floor kept for `table`."""
    t = schema.signed_heads
    rows = conn.execute(sa.select(t.c.seq, t.c.hash, t.c.sig).where(t.c.table_id == table))
    return {int(seq): (str(h), str(sig)) for seq, h, sig in rows}


def problem(
    table: str,
    last: int,
    kept: dict[int, tuple[str, str]],
    hashes_at: dict[int, str],
    keys_at: dict[int, str | None],
) -> tuple[int, str] | None:
    """(entry, what is wrong) for the first kept signed head the chain (read up to `last`, with the
    hash and key in force at each kept seq) does not hold, else None."""
    from engine.store import keys

    for seq in sorted(kept):
        hash_, sig = kept[seq]
        if seq > last:
            return (
                last + 1,
                f"missing: the floor received the table's signed head at entry {seq}, the journal ends at "
                f"{last} (truncated or rolled back)",
            )
        if hashes_at.get(seq) != hash_:
            return seq, "differs from the head the table signed and the floor received (rewritten)"
        key = keys_at.get(seq)
        if key is None or not keys.check_signature(key, table, seq, hash_, sig):
            return seq, "the signed head the floor received here is not signed by the table's key (forged)"
    return None
