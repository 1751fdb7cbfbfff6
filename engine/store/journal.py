"""The write-ahead, hash-chained journal: append (durable before return), read, checkpoint.

One chain per table id. An append runs in one database transaction that reads and advances the
chain's head row (`chain_heads`, locked: SQLite `BEGIN IMMEDIATE`, PostgreSQL `SELECT … FOR UPDATE`),
inserts the entry, updates the projections (`projections.apply`) and, every `CHECKPOINT_EVERY`
entries, writes a checkpoint — so a killed process leaves the whole entry with its projections, or
nothing. On SQLite the commit is fsynced (WAL, synchronous=FULL) before `append` returns.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.store import floor_sign, keys, schema
from engine.store.canonical import (
    GENESIS_HASH,
    LEGACY,
    RFC8785,
    entry_hash_of_text,
    format_time,
    jcs_differs,
    now_text,
    parse_time,
    payload_text,
    switches_to_jcs,
)
from engine.store.database import Database, check_table_id, exec_fast, notify_head
from engine.store.heads import refuse_missing_heads
from engine.store.keys import TableKey
from engine.store.records import Entry, NewEvent, row_to_entry

CHECKPOINT_EVERY = 1000


def _time_text(time: datetime | str | None) -> str:
    if time is None:
        return now_text()
    if isinstance(time, datetime):
        return format_time(time)
    try:
        return format_time(parse_time(time))  # one spelling of every instant, so text order is time order
    except ValueError:
        raise DrrError(f"journal time {time!r} is not an ISO 8601 time") from None


_READ_HEAD = sa.select(schema.chain_heads.c.seq, schema.chain_heads.c.hash).where(
    schema.chain_heads.c.table_id == sa.bindparam("t")
)
_READ_HEAD_LOCKED = _READ_HEAD.with_for_update()


def read_head(conn: Connection, table: str, *, lock: bool) -> tuple[int, str] | None:
    """(seq, hash) of the chain's head, None for an empty chain. With `lock` the head row is held until
    the transaction ends (SQLite: the whole database already is, by BEGIN IMMEDIATE). On PostgreSQL an
    empty chain gets a (0, genesis) row first, so two first writers of a table queue on it too."""
    sqlite = conn.dialect.name == "sqlite"
    if lock and not sqlite:
        # The row is locked as it is read; only a chain without one yet (its first writer) inserts it
        # first: one round trip, not two, for every append and forward after a table's first (issue 28).
        row = exec_fast(conn, "read_head_locked", _READ_HEAD_LOCKED, {"t": table}).fetchone()
        if row is None:
            # PostgreSQL's dialect (about 50 ms to import) only where it is used: a SQLite table never
            # loads it
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            conn.execute(
                pg_insert(schema.chain_heads)
                .values(table_id=table, seq=0, hash=GENESIS_HASH)
                .on_conflict_do_nothing(index_elements=["table_id"])
            )
            # Read again in a new statement: a row another first writer committed meanwhile is seen
            # (and waited for) here, as the INSERT waited for it.
            row = exec_fast(conn, "read_head_locked", _READ_HEAD_LOCKED, {"t": table}).fetchone()
    else:
        row = exec_fast(conn, "read_head", _READ_HEAD, {"t": table}).fetchone()
    return (int(row[0]), row[1]) if row and int(row[0]) > 0 else None


_ADVANCE_HEAD = (
    sa.update(schema.chain_heads)
    .where(
        schema.chain_heads.c.table_id == sa.bindparam("t"),
        schema.chain_heads.c.seq == sa.bindparam("old_seq"),
    )
    .values(seq=sa.bindparam("new_seq"), hash=sa.bindparam("new_hash"))
)


# The head advanced and signed in one statement (a signed table's every append: issue 28).
_ADVANCE_SIGNED_HEAD = _ADVANCE_HEAD.values(sig=sa.bindparam("sig"))


def write_head(
    conn: Connection, table: str, old: tuple[int, str] | None, seq: int, hash_: str, *, sig: str | None = None
) -> None:
    """Advance the chain's head row from `old` to (seq, hash_); with `sig`, the head's signature too
    (else the row's signature is left as it was, for `sign_head`)."""
    if old is None and conn.dialect.name == "sqlite":
        conn.execute(sa.insert(schema.chain_heads).values(table_id=table, seq=seq, hash=hash_, sig=sig))
        return
    values = {"t": table, "old_seq": old[0] if old else 0, "new_seq": seq, "new_hash": hash_}
    if sig is None:
        done = exec_fast(conn, "advance_head", _ADVANCE_HEAD, values).rowcount
    else:
        done = exec_fast(conn, "advance_signed_head", _ADVANCE_SIGNED_HEAD, {**values, "sig": sig}).rowcount
    if done != 1:  # the head moved under us: only possible without the row lock, i.e. a bug
        raise RuntimeError(f"journal head of {table} moved during an append")


# The journal's columns in `Entry`'s field order: `Entry(*row)` makes an entry from a row of them, about
# four times cheaper than `row_to_entry`'s attribute reads (a forwarder reads millions).
ENTRY_NAMES = (
    "table_id",
    "seq",
    "time",
    "user_name",
    "round_id",
    "type",
    "payload",
    "prev_hash",
    "hash",
    "mac",
)
ENTRY_COLUMNS = tuple(schema.journal.c[name] for name in ENTRY_NAMES)
_SEQ_AT = ENTRY_NAMES.index("seq")
_ENTRIES_FROM = (
    sa.select(*ENTRY_COLUMNS)
    .where(schema.journal.c.table_id == sa.bindparam("table"), schema.journal.c.seq >= sa.bindparam("seq"))
    .order_by(schema.journal.c.seq)
    .limit(sa.bindparam("batch", type_=sa.Integer))
    .offset(sa.bindparam("skip", type_=sa.Integer))  # SQLite's LIMIT ? comes with OFFSET ?: named here
)


_INSERT_ENTRY = sa.insert(schema.journal).values(
    {c: sa.bindparam(c.name) for c in schema.journal.columns}  # type: ignore[misc]
)


# The projections kept in each entry's transaction: engine.store.projections registers its `apply` and
# `apply_many` here when imported, as the journal sits below the projections; the first append loads
# it by name if nothing has yet (the package no longer imports it: issue 28). An append without them
# would leave the projections behind: refused.
_project_one: Callable[[Connection, Entry], None] | None = None
_project_many: Callable[[Connection, Sequence[Entry]], None] | None = None


def register_projections(
    one: Callable[[Connection, Entry], None], many: Callable[[Connection, Sequence[Entry]], None]
) -> None:
    """Called by engine.store.projections: what every append runs in its transaction."""
    global _project_one, _project_many
    _project_one, _project_many = one, many


def _projections() -> tuple[
    Callable[[Connection, Entry], None], Callable[[Connection, Sequence[Entry]], None]
]:
    if _project_one is None or _project_many is None:
        importlib.import_module("engine.store.projections")  # by name: a layer above this one
    if _project_one is None or _project_many is None:
        raise RuntimeError("engine.store.projections did not register the projections")
    return _project_one, _project_many


Signer = Callable[[int, str], str]  # (seq, hash) -> Ed25519 signature hex (engine.store.keys.TableKey.sign)


def insert_entry(conn: Connection, entry: Entry, *, project: bool = True, sign: Signer | None = None) -> None:
    """Store one fully formed entry (its head row already locked) with its projections and checkpoint."""
    exec_fast(conn, "insert_entry", _INSERT_ENTRY, _entry_row(entry))
    if project:
        _projections()[0](conn, entry)
    if entry.seq % CHECKPOINT_EVERY == 0:
        write_checkpoint(conn, entry.table, entry.seq, entry.hash, "interval", sign=sign)


def _entry_row(entry: Entry) -> dict[str, Any]:
    return {
        "table_id": entry.table,
        "seq": entry.seq,
        "time": entry.time,
        "user_name": entry.user,
        "round_id": entry.round_id,
        "type": entry.type,
        "payload": entry.payload_text,
        "prev_hash": entry.prev_hash,
        "hash": entry.hash,
        "mac": entry.mac,
        "signer": entry.signer,
        "sig": entry.sig,
    }


def insert_entries(conn: Connection, entries: Sequence[Entry], *, sign: Signer | None = None) -> None:
    """Store a run of fully formed entries (heads locked) in bulk: one executemany for the journal,
    bulk projections (`projections.apply_many`), checkpoints where they fall (signed with `sign`)."""
    if len(entries) == 1:
        insert_entry(conn, entries[0], sign=sign)
        return
    apply_many = _projections()[1]
    if conn.dialect.name == "postgresql" and len(entries) >= COPY_FROM:
        _copy_entries(conn, entries)
    else:
        conn.execute(sa.insert(schema.journal), [_entry_row(e) for e in entries])
    apply_many(conn, entries)
    for entry in entries:
        if entry.seq % CHECKPOINT_EVERY == 0:
            write_checkpoint(conn, entry.table, entry.seq, entry.hash, "interval", sign=sign)


# A run at least this long goes into PostgreSQL by COPY (a floor catching up on a table's journal): one
# stream instead of a statement per entry.
COPY_FROM = 64
# every column, as the one-by-one insert writes them (a floor chain's signatures included)
_JOURNAL_COLUMNS = (*ENTRY_NAMES, "signer", "sig")


def _copy_entries(conn: Connection, entries: Sequence[Entry]) -> None:
    """COPY the entries into the journal, on the transaction's own connection (psycopg 3)."""
    raw: Any = conn.connection.driver_connection
    columns = ", ".join(_JOURNAL_COLUMNS)
    with raw.cursor() as cur, cur.copy(f"COPY {schema.journal.name} ({columns}) FROM STDIN") as copy:
        for e in entries:
            copy.write_row(
                (
                    e.table,
                    e.seq,
                    e.time,
                    e.user,
                    e.round_id,
                    e.type,
                    e.payload_text,
                    e.prev_hash,
                    e.hash,
                    e.mac,
                    e.signer,
                    e.sig,
                )
            )


def write_checkpoint(
    conn: Connection, table: str, seq: int, hash_: str, reason: str, *, sign: Signer | None = None
) -> None:
    cp = schema.checkpoints
    exists = conn.execute(sa.select(cp.c.seq).where(cp.c.table_id == table, cp.c.seq == seq)).first()
    if exists is None:
        conn.execute(
            sa.insert(cp).values(
                table_id=table,
                seq=seq,
                hash=hash_,
                time=now_text(),
                reason=reason,
                sig=sign(seq, hash_) if sign is not None else None,
            )
        )


def sign_head(conn: Connection, table: str, seq: int, hash_: str, sign: Signer) -> None:
    """Put the table key's signature over the head (seq, hash) on the head row (same transaction)."""
    exec_fast(conn, "sign_head", _SIGN_HEAD, {"t": table, "s": seq, "sig": sign(seq, hash_)})


_SIGN_HEAD = (
    sa.update(schema.chain_heads)
    .where(schema.chain_heads.c.table_id == sa.bindparam("t"), schema.chain_heads.c.seq == sa.bindparam("s"))
    .values(sig=sa.bindparam("sig"))
)


def chain_switched(conn: Connection, table: str) -> bool:
    """Whether `table`'s chain holds its switch to RFC 8785 text (a `table.started` naming it)."""
    j = schema.journal
    rows = conn.execute(
        sa.select(j.c.payload)
        .where(j.c.table_id == table, j.c.type == EntryType.TABLE_STARTED.value)
        .where(j.c.payload.like('%"canonical":"rfc8785"%'))
        .limit(8)
    )
    return any(switches_to_jcs(EntryType.TABLE_STARTED.value, json.loads(text)) for (text,) in rows)


def round_number(entry: Entry) -> int:
    """The number of the round a `round.opened` entry opens (its id's `-NNNNNN`), else 0."""
    if entry.type != EntryType.ROUND_OPENED.value or not entry.round_id:
        return 0
    tail = entry.round_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


class Journal:
    """Append to and read from the journal of a store (see the module docstring for the guarantees)."""

    def __init__(self, store: Database) -> None:
        self.store = store
        # The chains found switched to RFC 8785 text (canonical.switches_to_jcs): a switch is never undone.
        self._jcs: set[str] = set()

    def _rule(self, conn: Connection, table: str, type_: str, payload: Mapping[str, Any]) -> str:
        """The byte rule of the next entry of `table` (engine.store.canonical): RFC 8785 from the
        chain's switch on. Only a payload the two rules write differently needs to know, and the
        chain is read (once a process, once switched) only for such a payload."""
        if table in self._jcs or switches_to_jcs(type_, payload):
            return RFC8785
        if not jcs_differs(payload):
            return LEGACY  # the same bytes under both rules
        if chain_switched(conn, table):
            self._jcs.add(table)
            return RFC8785
        return LEGACY

    def signer(self, table: str) -> TableKey | None:
        """The table's key for this store (engine.store.keys), None on an unsigned chain."""
        return keys.load(self.store.where, table)

    def append(
        self,
        table: str,
        type: str,
        payload: Mapping[str, Any] | None = None,
        *,
        round_id: str | None,
        user: str | None,
        time: datetime | str | None = None,
    ) -> Entry:
        """Append one event; it is durable (committed and fsynced) when this returns."""
        return self.append_many([NewEvent(table, type, payload or {}, round_id, user, time)])[0]

    def append_many(
        self, events: Iterable[NewEvent], *, sign_with: Mapping[str, TableKey] | None = None
    ) -> list[Entry]:
        """Append events in order, all in one transaction: every one of them is stored, or none.
        `sign_with`: a table's key for this append instead of its key file's (a key rotation's entry,
        MAC'd and signed by the new key while the key file still holds the old, engine.store.key_rotation)."""
        with self.store.begin() as conn:
            written, signers = self._append(conn, events, sign_with=sign_with)
        self.witness(written, signers)
        return written

    def witness(self, written: Sequence[Entry], signers: Mapping[str, TableKey | None] | None = None) -> None:
        """After the commit: the key's witness remembers each signed table's new head (and the last
        interval checkpoint), so a journal later cut behind it fails verification. `signers`: the
        tables' keys as the append found them (else they are looked up)."""
        if not written:
            return
        last: dict[str, Entry] = {}
        for e in written:
            last[e.table] = e
        # the floor chain of a PostgreSQL floor database, signed by its writers (engine.store.floor_sign)
        if not self.store.is_sqlite and floor_sign.FLOOR in last:
            floor_sign.witness(self.store, written)
            del last[floor_sign.FLOOR]
        for table, e in last.items():
            signer = signers[table] if signers is not None and table in signers else self.signer(table)
            if signer is not None:
                # the last interval checkpoint the batch crossed (not the head: a batch may end after it)
                cps = [x.seq for x in written if x.table == table and x.seq % CHECKPOINT_EVERY == 0]
                keys.note_high_water(
                    self.store.where,
                    table,
                    e.seq,
                    e.hash,
                    checkpoint_seq=max(cps) if cps else None,
                    round_no=max((round_number(x) for x in written if x.table == table), default=0),
                )

    def append_in(self, conn: Connection, events: Iterable[NewEvent]) -> list[Entry]:
        """Append inside the caller's transaction (for callers that update their own rows with it);
        after the commit, the caller passes the entries to `witness`."""
        return self._append(conn, events)[0]

    def append_in_keyed(
        self, conn: Connection, events: Iterable[NewEvent]
    ) -> tuple[list[Entry], dict[str, TableKey | None]]:
        """`append_in`, with each table's key as the append found it: pass both to `witness` after
        the commit, which then need not look the key file up again (the table service's every append)."""
        return self._append(conn, events)

    def _append(
        self,
        conn: Connection,
        events: Iterable[NewEvent],
        *,
        sign_with: Mapping[str, TableKey] | None = None,
    ) -> tuple[list[Entry], dict[str, TableKey | None]]:
        """`append_in`, with each table's key as found for the append (for the witness after it).

        The floor chain of a PostgreSQL floor database is signed entry by entry by its writers
        (engine.store.floor_sign: this host's writer key, enrolled by the floor's root key), not by
        one key's MACs and signed head."""
        heads: dict[str, tuple[tuple[int, str] | None, int, str]] = {}
        signers: dict[str, TableKey | None] = {}
        written: list[Entry] = []
        floor = None

        def lock(table: str) -> None:
            """The chain's head read and locked, once per transaction's batch."""
            check_table_id(table)
            old = read_head(conn, table, lock=True)
            if old is None:  # a new chain, or a head row removed: the next entry would reuse seq 1
                refuse_missing_heads(conn, [table])
            heads[table] = (old, *(old or (0, GENESIS_HASH)))

        if conn.dialect.name != "sqlite":
            events = list(events)
            if any(floor_sign.applies(self.store, e.table) for e in events):
                # the heads locked in the batch's order, as below (a forwarder locks a table, then the
                # floor), the floor's before its keying is read
                for table in dict.fromkeys(e.table for e in events):
                    lock(table)
                    if floor_sign.applies(self.store, table):
                        break
                floor = floor_sign.prepare(conn, self.store, events)
                events = floor.events
        for event in events:
            if event.table not in signers:
                if event.table not in heads:
                    lock(event.table)
                by_writers = floor is not None and event.table == floor.chain
                given = sign_with.get(event.table) if sign_with else None
                signers[event.table] = None if by_writers else (given or self.signer(event.table))
            old, seq, prev = heads[event.table]
            seq += 1
            # The stored text is exactly what a reader re-encodes (int keys become strings and re-sort
            # as strings) under the chain's byte rule, and the hash is taken over that text.
            payload = dict(event.payload)
            text = payload_text(payload, self._rule(conn, event.table, event.type, payload))
            when = _time_text(event.time)
            digest = entry_hash_of_text(
                table=event.table,
                seq=seq,
                time=when,
                user=event.user,
                round_id=event.round_id,
                type=event.type,
                payload_text=text,
                prev_hash=prev,
            )
            key = signers[event.table]
            mac = key.mac(digest) if key is not None else None
            signer, sig = (
                floor.sign(event.type, seq, digest)
                if floor is not None and event.table == floor.chain
                else (None, None)
            )
            entry = Entry(
                event.table, seq, when, event.user, event.round_id, event.type, text, prev, digest, mac,
                signer, sig,
            )  # fmt: skip
            heads[event.table] = (old, seq, digest)
            written.append(entry)
        if len(signers) == 1 or not any(signers.values()):
            key = next(iter(signers.values()), None)
            insert_entries(conn, written, sign=key.sign if key else None)
        else:  # several tables in one transaction (a floor import): each checkpoint by its own table
            for t, key in signers.items():
                mine = [e for e in written if e.table == t]
                if mine:
                    insert_entries(conn, mine, sign=key.sign if key else None)
        for table, (old, seq, digest) in heads.items():
            if old is None or old[0] != seq:
                key = signers[table]
                # a signed head in the same statement that advances it: one UPDATE, not two
                sig = key.sign(seq, digest) if key is not None else None
                write_head(conn, table, old, seq, digest, sig=sig)
                if conn.dialect.name == "postgresql":
                    # Stations LISTENing wake at commit (as after a forward), not at their next poll.
                    notify_head(conn, table, seq)
        return written, signers

    def head(self, table: str) -> tuple[int, str] | None:
        """(seq, hash) of the chain's last entry, or None for an empty chain."""
        with self.store.read() as conn:
            return read_head(conn, table, lock=False)

    def checkpoint(self, table: str, reason: str = "shutdown") -> tuple[int, str] | None:
        """Record count + head hash now (clean shutdown); returns the head checkpointed."""
        key = self.signer(table)
        with self.store.begin() as conn:
            head = read_head(conn, table, lock=True)
            if head is not None:
                write_checkpoint(conn, table, head[0], head[1], reason, sign=key.sign if key else None)
        if head is not None and key is not None:
            keys.note_high_water(self.store.where, table, *head, checkpoint=True)
        return head

    def tables(self) -> list[str]:
        with self.store.read() as conn:
            return list(conn.execute(sa.select(schema.chain_heads.c.table_id).order_by("table_id")).scalars())

    def entries(self, table: str, from_seq: int = 1, *, batch: int = 2000) -> Iterator[Entry]:
        """The table's entries in chain order from `from_seq`, read in batches (constant memory).

        Compiled once (exec_fast): the table service asks this before every command for what other
        writers appended, and is usually told nothing, so building the statement was most of the cost."""
        seq = from_seq
        while True:
            with self.store.read() as conn:
                rows = exec_fast(
                    conn,
                    "journal.entries",
                    _ENTRIES_FROM,
                    {"table": table, "seq": seq, "batch": batch, "skip": 0},
                ).fetchall()
            for row in rows:
                yield Entry(*row)
            if len(rows) < batch:
                return
            seq = int(rows[-1][_SEQ_AT]) + 1

    def round_entries(self, round_id: str, table: str | None = None) -> list[Entry]:
        """Every entry of one round, in chain order."""
        j = schema.journal
        query = sa.select(j).where(j.c.round_id == round_id)
        if table is not None:
            query = query.where(j.c.table_id == table)
        with self.store.read() as conn:
            return [row_to_entry(r) for r in conn.execute(query.order_by(j.c.table_id, j.c.seq))]
