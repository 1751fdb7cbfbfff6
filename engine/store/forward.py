"""From the table to the floor: the outbox forwarder, PostgreSQL LISTEN/NOTIFY, and SQLite change polling.

Each table writes its own SQLite journal first; `Forwarder` copies a table's chain to the central store
in order, in batches. Each batch is one central transaction that locks the chain's head row, reads the
central position, appends the next local entries (same seq, same hashes, projections recomputed
centrally), copies the checkpoints they reach and, on PostgreSQL, NOTIFYs `CHANNEL` with
"schema:table:seq" (delivered at commit; `engine.store.db.notify_head`'s payload). On PostgreSQL all
that follows the entries (head, checkpoints, signature, kept signed head, NOTIFY) is one statement, and
the locked head read another: a live commit's batch waits on two round trips of its own, not seven
(issue 28). Re-sending is harmless: the position is read under the lock, so entries already there are
skipped; a batch cut off mid-way (lost connection) rolls back whole and is sent again. On every batch,
whatever the lengths, the central head must be an entry of the local chain (same seq, same hash) and the
next local entries must continue it: otherwise (a forged floor copy of the same length, a local journal
reset or cut shorter than the floor's) the forwarder journals a critical `alert.raised` (kind
chain_divergence) on the floor store and stops with ChainDivergence rather than mixing two histories. A
table journal rolled back or cut behind what the floor received (a restored copy, a cut tail, even one
ending on a genuinely signed head) fails here. The floor keeps the table's signed heads: a batch that
reaches the table's head copies its signature onto the floor's head row and keeps it in `signed_heads`
(engine.store.signed_heads), which `drr audit verify` on the floor store holds the floor's copy against.

`listen(url, callback)` runs a dedicated psycopg 3 connection (3.2+: `notifies(timeout=…)`) in a
thread that LISTENs and calls back `callback(table, seq)` for each notification of its own schema, on
that thread (a GUI hands it to its own thread), reconnecting when the server goes away.
`Watcher` is the SQLite counterpart for local viewers: `PRAGMA data_version` tells cheaply whether
anyone committed, then the chain heads say which tables moved.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from engine.errors import DrrError
from engine.floor_events import AlertRaised
from engine.journal_types import write
from engine.store import schema, signed_heads
from engine.store.canonical import GENESIS_HASH, format_time
from engine.store.db import CHANNEL, Store, exec_fast
from engine.store.journal import ENTRY_COLUMNS, insert_entries, read_head, write_head
from engine.store.records import Entry

log = logging.getLogger("drr.store.forward")


class ChainDivergence(DrrError):
    """The central chain of a table is not a prefix of the local one: forwarding stops."""


@dataclass
class ForwardStatus:
    forwarded: int = 0
    last_error: str | None = None
    central_heads: dict[str, int] = field(default_factory=dict)


# PostgreSQL: what a batch does after its entries, in one statement (Forwarder._sign_head). A batch that
# moved the head: the head row advanced with its signature (or none), the checkpoints its entries reach
# copied (a JSON list of the local rows; one already there is left as it is), the signed head kept by
# signed_heads.keep's rule, and the NOTIFY (delivered at commit) with the head reached, returning how
# many head rows moved (1, else the head moved under the lock: a bug).
_ADVANCED_PG = sa.text(
    f"""WITH advanced AS (
    UPDATE chain_heads SET seq = CAST(:seq AS BIGINT), hash = CAST(:hash AS VARCHAR),
        sig = CAST(:sig AS VARCHAR)
    WHERE table_id = CAST(:t AS VARCHAR) AND seq = CAST(:old_seq AS BIGINT)
    RETURNING 1
), copied AS (
    INSERT INTO checkpoints (table_id, seq, hash, time, reason, sig)
    SELECT table_id, seq, hash, time, reason, sig
    FROM json_populate_recordset(CAST(NULL AS checkpoints), CAST(:checkpoints AS JSON))
    ON CONFLICT (table_id, seq) DO NOTHING
    RETURNING 1
), {signed_heads.KEEP_CTE_PG}
SELECT (SELECT count(*) FROM advanced),
    pg_notify(CAST(:ch AS TEXT), current_schema() || ':' || CAST(:msg AS TEXT))"""
)
# A batch with nothing new (the head already there): the signature put on the head row if it differs,
# and the signed head kept.
_SIGNED_PG = sa.text(
    f"""WITH signed AS (
    UPDATE chain_heads SET sig = CAST(:sig AS VARCHAR)
    WHERE table_id = CAST(:t AS VARCHAR) AND seq = CAST(:seq AS BIGINT)
        AND sig IS DISTINCT FROM CAST(:sig AS VARCHAR)
    RETURNING 1
), {signed_heads.KEEP_CTE_PG}
SELECT (SELECT count(*) FROM signed)"""
)


class Forwarder:
    """Forward the chains `tables` of `local` to `central` (see the module docstring)."""

    def __init__(
        self,
        local: Store,
        central: Store | str,
        tables: Sequence[str],
        *,
        batch: int = 5000,
        channel: str = CHANNEL,
        keep_every_s: float = signed_heads.KEEP_EVERY_S,
        keep_every_entries: int = signed_heads.KEEP_EVERY_ENTRIES,
    ) -> None:
        if not tables:
            raise DrrError("the forwarder needs at least one table id")
        from engine.store.users_journal import FLOOR

        if FLOOR in tables:  # each store's users are its own: the floor chain is never copied over another
            raise DrrError(
                f"the {FLOOR!r} chain holds this store's own users and floor actions: it is not forwarded"
            )
        # A URL is opened on first use, so a table can start while the floor database is down.
        self.local, self.central, self.tables = local, central, list(tables)
        self.batch, self.channel = batch, channel
        self.keep_every_s, self.keep_every_entries = keep_every_s, keep_every_entries
        self.status = ForwardStatus()
        self._marked: set[str] = set()  # tables whose copy the floor chain marks (engine.store.forwarded)

    def central_store(self) -> Store:
        if isinstance(self.central, str):
            from engine.store.db import open_store

            self.central = open_store(self.central)
        return self.central

    def close(self) -> None:
        """Close the central store if this forwarder opened it."""
        if isinstance(self.central, Store):
            self.central.close()

    def forward_batch(self, table: str) -> int:
        """Send the next batch of `table`; returns how many entries were added centrally (0: caught up).
        A divergence is journaled as an `alert.raised` on the floor store before ChainDivergence."""
        try:
            return self._forward_batch(table)
        except ChainDivergence as exc:
            self._raise_alert(table, exc.message)
            raise

    def _raise_alert(self, table: str, message: str) -> None:
        from engine.store.users import FLOOR

        at = format_time(datetime.now(UTC))
        alert = AlertRaised(
            f"chain-divergence:{table}:{at}", table, "critical", "chain_divergence", message, at=at
        )
        try:
            with self.central_store().begin() as conn:
                self.central_store().journal.append_in(conn, [write(alert, table=FLOOR)])
        except DrrError as exc:  # the floor down as well: the error still stops the forwarder
            log.error("could not journal the divergence alert: %s", exc.message)

    def _mark_forwarded(self, conn: sa.Connection, table: str) -> None:
        """The floor chain says this chain is a copy (engine.store.forwarded): pit-boss actions at the
        floor database are journaled there, never in the copy. Written with the chain's first batch."""
        from engine.floor_events import ChainForwarded
        from engine.store.canonical import canonical_json
        from engine.store.users import FLOOR

        j = schema.journal
        marked = conn.execute(
            sa.select(j.c.seq)
            .where(j.c.table_id == FLOOR, j.c.type == ChainForwarded.type.value)
            .where(j.c.payload == canonical_json({"table": table}))
            .limit(1)
        ).first()
        if marked is None:  # the first batch (or a copy an older build forwarded without the mark)
            self.central_store().journal.append_in(conn, [write(ChainForwarded(table), table=FLOOR)])
        self._marked.add(table)

    def _forward_batch(self, table: str) -> int:
        with self.central_store().begin() as conn:
            head = read_head(conn, table, lock=True)
            seq, prev = head or (0, GENESIS_HASH)
            j = schema.journal
            with self.local.read() as lconn:
                if seq > 0:
                    # The heads are compared on every run, whatever the lengths: the floor's head must
                    # be an entry of the local chain (a forged floor copy of the same length, or a local
                    # journal reset or cut shorter than the floor's copy, stops here).
                    mine = lconn.execute(
                        sa.select(j.c.hash).where(j.c.table_id == table, j.c.seq == seq)
                    ).first()
                    if mine is None or mine.hash != prev:
                        local_head = lconn.execute(
                            sa.select(sa.func.max(j.c.seq)).where(j.c.table_id == table)
                        ).scalar()
                        why = (
                            f"the local journal ends at entry {local_head or 0}"
                            if mine is None
                            else "its hash differs from the local entry's"
                        )
                        raise ChainDivergence(
                            f"the central journal of table {table} does not continue the local one: "
                            f"the floor's head is entry {seq}{self._signed_by_table(conn, table, seq, prev)} "
                            f"but {why}; the two journals diverge, forwarding stopped. "
                            + (
                                "The floor's copy decides: it holds the table's signed head, which a "
                                "rollback of the table's store and witness cannot take back (the local "
                                "store was rolled back or rewritten: quarantine it, drr db quarantine)"
                                if self._signed_by_table(conn, table, seq, prev)
                                else "Check both with drr audit verify"
                            )
                        )
                # The local head with its signature, read in the same snapshot as the entries (no later).
                h = schema.chain_heads
                local_head = lconn.execute(
                    sa.select(h.c.seq, h.c.hash, h.c.sig).where(h.c.table_id == table)
                ).first()
                rows = lconn.execute(
                    sa.select(*ENTRY_COLUMNS)
                    .where(j.c.table_id == table, j.c.seq > seq)
                    .where(j.c.seq <= (int(local_head.seq) if local_head is not None else 0))
                    .order_by(j.c.seq)
                    .limit(self.batch)
                ).all()
                cps = schema.checkpoints
                checkpoints = (
                    lconn.execute(
                        sa.select(cps).where(
                            cps.c.table_id == table, cps.c.seq > seq, cps.c.seq <= int(rows[-1].seq)
                        )
                    ).all()
                    if rows
                    else []
                )
            if not rows:
                if head is not None:
                    self._sign_head(conn, table, seq, prev, local_head, checkpoints=[], advance_from=None)
                self.status.central_heads[table] = seq
                return 0
            entries = [Entry(*row) for row in rows]
            for entry in entries:
                if entry.seq != seq + 1 or entry.prev_hash != prev:
                    raise ChainDivergence(
                        f"the central journal of table {table} does not continue the local one at entry "
                        f"{seq + 1}: forwarding stopped (check both with drr audit verify)"
                    )
                seq, prev = entry.seq, entry.hash
            insert_entries(conn, entries)
            if table not in self._marked:
                self._mark_forwarded(conn, table)
            for cp in checkpoints if conn.dialect.name != "postgresql" else ():  # (PG: _sign_head's)
                exists = conn.execute(
                    sa.select(cps.c.seq).where(cps.c.table_id == table, cps.c.seq == cp.seq)
                ).first()
                if exists is None:
                    conn.execute(sa.insert(cps).values(**cp._mapping))
            old_seq = head[0] if head is not None else 0
            self._sign_head(conn, table, seq, prev, local_head, checkpoints, advance_from=(head, old_seq))
        self.status.forwarded += len(rows)
        self.status.central_heads[table] = seq
        return len(rows)

    def _signed_by_table(self, conn: sa.Connection, table: str, seq: int, hash_: str) -> str:
        """ ", signed by the table's key <fp>" when the floor's head is an entry the table's own key
        (as this PC holds it) signed: the floor's copy is then genuine, the local one rolled back."""
        from engine.store import keys

        key = keys.load(self.local.where, table)
        if key is None:
            return ""
        h = schema.chain_heads
        sig = conn.execute(sa.select(h.c.sig).where(h.c.table_id == table)).scalar()
        kept = signed_heads.received(conn, table).get(seq) if sig is None else (hash_, sig)
        publics = [key.public, *(p for p, _ in key.retired)]
        if kept is not None and kept[0] == hash_:
            for public in publics:
                if keys.check_signature(public, table, seq, hash_, kept[1]):
                    return f", signed by the table's key {keys.fingerprint(public)},"
        return ""

    def _sign_head(
        self,
        conn: sa.Connection,
        table: str,
        seq: int,
        hash_: str,
        local_head: Any,
        checkpoints: Sequence[Any],
        *,
        advance_from: tuple[tuple[int, str] | None, int] | None,
    ) -> None:
        """The floor's head row carries the table's signature over it: the local head's when the floor
        has reached it (kept in `signed_heads` too), a signed checkpoint's when the batch ended on one,
        else none (an unsigned head until the next batch reaches the table's head). `advance_from`:
        (the head read under the lock, its seq or 0) when this batch's entries move the head to
        (seq, hash_), which is then written too and, on PostgreSQL, NOTIFYed."""
        sig: str | None = None
        reached = (
            local_head is not None
            and (int(local_head.seq), local_head.hash) == (seq, hash_)
            and bool(local_head.sig)
        )
        if reached:
            sig = str(local_head.sig)
        else:
            sig = next((cp.sig for cp in checkpoints if int(cp.seq) == seq and cp.hash == hash_), None)
        if conn.dialect.name == "postgresql":
            # The head advanced and signed, the signed head kept and the NOTIFY in one statement: each
            # was a round trip of the forwarding transaction, six a live commit (issue 28).
            params = {
                "t": table,
                "seq": seq,
                "hash": hash_,
                **signed_heads.keep_params(
                    sig if reached else None,
                    every_s=self.keep_every_s,
                    every_entries=self.keep_every_entries,
                ),
                "sig": sig,
            }
            if advance_from is None:
                exec_fast(conn, "forward_signed", _SIGNED_PG, params)
                return
            params.update(
                old_seq=advance_from[1],
                ch=self.channel,
                msg=f"{table}:{seq}",
                checkpoints=json.dumps([dict(cp._mapping) for cp in checkpoints]),
            )
            row = exec_fast(conn, "forward_advanced", _ADVANCED_PG, params).fetchone()
            if row is None or int(row[0]) != 1:  # as write_head: only possible without the row lock
                raise RuntimeError(f"journal head of {table} moved during an append")
            return
        if advance_from is not None:
            write_head(conn, table, advance_from[0], seq, hash_)
        if reached and sig is not None:
            signed_heads.keep(
                conn, table, seq, hash_, sig, every_s=self.keep_every_s, every_entries=self.keep_every_entries
            )
        h = schema.chain_heads
        conn.execute(
            sa.update(h)
            .where(h.c.table_id == table, h.c.seq == seq, h.c.sig.is_distinct_from(sig))
            .values(sig=sig)
        )

    def forward_once(self) -> int:
        """Forward every table until caught up; returns the number of entries sent."""
        total = 0
        for table in self.tables:
            while True:
                sent = self.forward_batch(table)
                total += sent
                if sent < self.batch:  # a short batch reached the table's head: caught up
                    break
        self.status.last_error = None
        return total

    def run(
        self,
        stop: threading.Event,
        *,
        interval: float = 0.5,
        max_backoff: float = 30.0,
        after: Callable[[], int] | None = None,
    ) -> None:
        """Forward until `stop` is set; an unreachable central store is retried with back-off, never fatal.
        `after` runs after each forward (the floor actions taken back, engine.floor.inbox); when it
        journals anything, that is forwarded at once."""
        backoff = interval
        while not stop.is_set():
            try:
                down = self.status.last_error is not None
                sent = self.forward_once()
                if after is not None and after():
                    sent += self.forward_once()
                if down:
                    log.info("central store reachable again: caught up, %d entries forwarded", sent)
                backoff = interval
            except ChainDivergence as exc:
                self.status.last_error = exc.message
                log.error("forwarding stopped: %s", exc.message)
                return
            except DrrError as exc:
                self.status.last_error = exc.message
                log.warning("central store unreachable, will retry in %.1f s: %s", backoff, exc.message)
                backoff = min(max_backoff, backoff * 2)
            stop.wait(backoff)


def _conninfo(url: str) -> str:
    parsed = make_url(url)
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """A background thread with its own connection that LISTENs on `channel` and calls `callback`."""

    def __init__(
        self,
        url: str,
        callback: Callable[[str, int], None],
        *,
        channel: str = CHANNEL,
        on_connect: Callable[[], None] | None = None,
    ) -> None:
        self.conninfo = _conninfo(url)
        self.callback, self.channel, self.on_connect = callback, channel, on_connect
        self.stop_event = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"drr-listen-{channel}", daemon=True)

    def start(self) -> Listener:
        self.thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self.stop_event.set()
        self.thread.join(timeout)

    def _run(self) -> None:
        import psycopg
        from psycopg import sql

        backoff = 0.5
        while not self.stop_event.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5) as conn:
                    row = conn.execute("SELECT current_schema()").fetchone()
                    mine = str(row[0]) if row else ""
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
                    self.ready.set()
                    backoff = 0.5
                    if self.on_connect is not None:  # what was committed while not listening: look
                        self.on_connect()
                    while not self.stop_event.is_set():
                        for note in conn.notifies(timeout=0.5):
                            where, _, rest = note.payload.partition(":")
                            table, _, seq = rest.rpartition(":")
                            if where != mine or not table:  # another schema's floor in the same database
                                continue
                            try:
                                self.callback(table, int(seq))
                            except Exception:  # a viewer's bug must not kill the live feed
                                log.exception("listener callback failed")
            except psycopg.OperationalError as exc:
                log.warning("listen connection lost, reconnecting in %.1f s: %s", backoff, exc)
                self.stop_event.wait(backoff)
                backoff = min(30.0, backoff * 2)


def listen(
    url: str,
    callback: Callable[[str, int], None],
    *,
    channel: str = CHANNEL,
    on_connect: Callable[[], None] | None = None,
) -> Listener:
    """Start listening for journal notifications on the PostgreSQL at `url`; `stop()` the result.
    `on_connect` is called (on the listener's thread) after each connection, the first and every
    reconnection, so the caller can look for what was committed while nobody listened."""
    if make_url(url).get_backend_name() != "postgresql":
        raise DrrError(f"live notifications need PostgreSQL; poll {url} with Watcher instead")
    return Listener(url, callback, channel=channel, on_connect=on_connect).start()


class Watcher:
    """Poll a store for new journal entries (SQLite: `PRAGMA data_version` first, so idle polls are cheap)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.heads: dict[str, int] = {}
        self._raw = store.engine.raw_connection() if store.is_sqlite else None
        self._version: int | None = None
        self.poll()

    def poll(self) -> dict[str, int]:
        """Tables whose chain advanced since the last poll, with their new head seq."""
        if self._raw is not None:
            cur = self._raw.cursor()
            cur.execute("PRAGMA data_version")
            row = cur.fetchone()
            version = int(row[0]) if row else 0
            cur.close()
            if version == self._version:
                return {}
            self._version = version
        h = schema.chain_heads
        with self.store.read() as conn:
            heads = {t: int(s) for t, s in conn.execute(sa.select(h.c.table_id, h.c.seq))}
        moved = {t: s for t, s in heads.items() if self.heads.get(t) != s}
        self.heads = heads
        return moved

    def wait(self, timeout: float, interval: float = 0.1) -> dict[str, int]:
        """Poll until something moves or `timeout` passes."""
        deadline = time.monotonic() + timeout
        while True:
            moved = self.poll()
            if moved or time.monotonic() >= deadline:
                return moved
            time.sleep(interval)

    def close(self) -> None:
        if self._raw is not None:
            self._raw.close()
            self._raw = None
