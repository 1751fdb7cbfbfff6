"""Long synthetic table journals for the scale benchmarks: real, hash-chained, signed, built in bulk.

A table journal of millions of entries cannot be played round by round in a benchmark's time (the
table service writes ~1,000 rounds a minute). So the first `TEMPLATE_ROUNDS` rounds are played
through the real table service (engine.floor.demo: a TableService with its wheel, croupier, bonus
games, a result entered by hand), and the rest of the journal repeats those rounds in order under
new round ids, times moved on 75 s a round, wheel sequence numbers and bonus clocks moved with them.
The repeated entries are chained, hashed (engine.store.canonical.entry_hash, as `Journal.append_in`
does), checkpointed every CHECKPOINT_EVERY entries and signed with the table's own key exactly like
appended ones, written in large executemany batches; the projections are then built by
`projections.rebuild`. `drr audit verify` accepts the result. For benchmarks and tests only: the
rounds are copies, their draws not fresh randomness.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from engine.bonus_game import BoxSeal, box_key
from engine.floor.demo import START, play_rounds
from engine.store import keys, open_store, schema
from engine.store.canonical import LEGACY, RFC8785, entry_hash_of_text, format_time, parse_time, payload_text
from engine.store.db import Store
from engine.store.journal import (
    CHECKPOINT_EVERY,
    chain_switched,
    read_head,
    sign_head,
    write_checkpoint,
    write_head,
)
from engine.store.journal import ENTRY_NAMES as columns
from engine.store.projections import rebuild
from engine.store.records import Entry, NewEvent

TABLE = "S1"
TEMPLATE_ROUNDS = 50  # one manual result (the 26th), a bonus game every 10th round
ROUND_SECONDS = 75  # engine.floor.demo's pace
BATCH = 20_000  # entries per transaction
_SHIFT_TIME = ("deadline", "placed_at", "at")  # epoch seconds in bonus payloads
_SHIFT_SEQ = ("wheel_seq",)  # a result names the wheel entry it came from


@dataclass(frozen=True)
class LongJournal:
    """A synthetic table journal built for the run: a SQLite store holding one signed, hash-chained table.

    `url` opens it (`engine.store.open_store(url, table=table)`); its key is in `key_dir`, which is the
    run's `DRR_KEY_DIR` (set for the whole run). `entries` is the chain's length, `rounds` how many
    rounds it holds. Its projections are built. Treat it as read-only, or copy it first
    (`ctx.copy_journal`): other groups use the same one.
    """

    url: str
    path: Path
    table: str
    entries: int
    rounds: int
    key_dir: Path


@dataclass(frozen=True)
class _Piece:
    user: str | None
    has_round: bool
    type: str
    text: str  # payload text with the template round id as "\x00"
    at: float  # seconds after the template round's start
    shifts: tuple[str, ...]  # keys to move with time or seq


@dataclass(frozen=True)
class _Template:
    start_seq: int  # seq of the round's first entry in the template
    pieces: tuple[_Piece, ...]
    round_id: str  # the played round's id (its sealed bonus boxes name it)


def _templates(store: Store, table: str) -> list[_Template]:
    """The played rounds of `table` cut into one run of entries each (wheel start to next_round)."""
    found: list[_Template] = []
    current: list[Entry] = []
    rid: str | None = None
    for entry in store.journal.entries(table):
        if entry.type in ("table.started", "table.rules_loaded") and not current:
            continue  # the table's own start is written once, by the service
        current.append(entry)
        rid = rid or entry.round_id
        if entry.type == "table.next_round":
            found.append(_cut(current, rid))
            current, rid = [], None
            if len(found) == TEMPLATE_ROUNDS:
                break  # the played rounds come first: the copies after them are not read (5M entries)
    return found


def _cut(entries: list[Entry], rid: str | None) -> _Template:
    assert rid is not None, "a round's entries name it"
    start = parse_time(entries[0].time).timestamp()
    pieces = []
    for e in entries:
        body = e.payload
        shifts = tuple(k for k in (*_SHIFT_TIME, *_SHIFT_SEQ) if isinstance(body.get(k), int | float))
        pieces.append(
            _Piece(
                e.user,
                e.round_id is not None,
                e.type,
                e.payload_text.replace(rid, "\x00"),
                parse_time(e.time).timestamp() - start,
                shifts,
            )
        )
    return _Template(entries[0].seq, tuple(pieces), rid)


def _copies(
    templates: list[_Template],
    table: str,
    first_round: int,
    first_seq: int,
    start: float,
    seal_key: bytes | None = None,
) -> Iterator[tuple[str | None, str | None, str, str, dict[str, Any]]]:
    """(user, round_id, type, time, payload) of round `first_round` on, forever. A bonus round's boxes
    sealed to the table's key (engine.bonus_game.BoxSeal) name their round id: they are sealed again
    under the copy's (the commitment does not name it and stays)."""
    n, seq = first_round, first_seq
    while True:
        t = templates[(n - 1) % len(templates)]
        rid = f"{table[:50]}-{n:06d}"
        began = start + ROUND_SECONDS * (n - 1)
        moved = began - (start + ROUND_SECONDS * ((n - 1) % len(templates)))
        for piece in t.pieces:
            body = json.loads(piece.text.replace("\x00", rid))
            for key in piece.shifts:
                body[key] = body[key] + (seq - t.start_seq if key in _SHIFT_SEQ else moved)
            if seal_key is not None and piece.type == "bonus.boxes_placed" and body.get("sealed"):
                player, r = body["player"], body["round"]
                boxes, nonce = BoxSeal(seal_key, f"{table}|{t.round_id}|{player}").unseal(r, body["sealed"])
                body["sealed"] = BoxSeal(seal_key, f"{table}|{rid}|{player}").seal(r, boxes, nonce)
            when = format_time(datetime.fromtimestamp(began + piece.at, UTC))
            yield piece.user, rid if piece.has_round else None, piece.type, when, body
        seq += len(t.pieces)
        n += 1


def _write_copies(store: Store, table: str, entries: int, progress: Callable[[float, str], None]) -> int:
    """Append about `entries` entries (whole rounds) of copied rounds to `table`; returns how many."""

    templates = _templates(store, table)
    if not templates:
        raise RuntimeError(f"table {table} has no played rounds to repeat")
    key = store.journal.signer(table)
    sign = key.sign if key is not None else None
    with store.read() as conn:
        head = read_head(conn, table, lock=False)
        rounds = _rounds(conn, table)
        rule = RFC8785 if chain_switched(conn, table) else LEGACY
    assert head is not None
    seq, prev = head
    first_seq = seq + 1

    mac_key = key.mac_key if key is not None else None  # each entry's MAC, as Journal.append_in writes it
    seal = box_key(mac_key) if mac_key is not None else None
    source = _copies(templates, table, rounds + 1, first_seq, START.timestamp(), seal)

    insert = f"INSERT INTO journal ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    if not store.is_sqlite:
        insert = insert.replace("?", "%s")
    written, prev_type = 0, ""
    while written < entries or prev_type != "table.next_round":
        rows: list[tuple[Any, ...]] = []
        checkpoints: list[tuple[int, str]] = []
        old = (seq, prev)
        while len(rows) < BATCH and (written < entries or prev_type != "table.next_round"):
            user, rid, type_, when, body = next(source)
            seq += 1
            text = payload_text(body, rule)  # the chain's byte rule, as Journal.append_in writes
            digest = entry_hash_of_text(
                table=table,
                seq=seq,
                time=when,
                user=user,
                round_id=rid,
                type=type_,
                payload_text=text,
                prev_hash=prev,
            )
            mac = keys.entry_mac(mac_key, digest) if mac_key is not None else None
            rows.append((table, seq, when, user, rid, type_, text, prev, digest, mac))
            if seq % CHECKPOINT_EVERY == 0:
                checkpoints.append((seq, digest))
            prev, prev_type = digest, type_
            written += 1
        with store.begin() as conn:
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            cursor.executemany(insert, rows)
            for cp_seq, cp_hash in checkpoints:
                write_checkpoint(conn, table, cp_seq, cp_hash, "interval", sign=sign)
            write_head(conn, table, old, seq, prev)
            if sign is not None:
                sign_head(conn, table, seq, prev, sign)
        if key is not None:
            keys.note_high_water(
                store.where, table, seq, prev, checkpoint_seq=checkpoints[-1][0] if checkpoints else None
            )
        progress(written / max(entries, 1), f"journal {written:,} entries")
    return written


def _rounds(conn: Any, table: str) -> int:

    r = schema.rounds
    return int(conn.execute(sa.select(sa.func.count()).where(r.c.table_id == table)).scalar_one())


def append_rounds(store: Store, table: str, entries: int) -> int:
    """Append whole copied rounds (at least `entries` entries) to a journal built here, with their
    projections, through `Journal.append_many` (one transaction); returns how many entries."""

    templates = _templates(store, table)
    head = store.journal.head(table)
    assert head is not None
    with store.read() as conn:
        rounds = _rounds(conn, table)

    key = store.journal.signer(table)
    seal = box_key(key.mac_key) if key is not None else None
    source = _copies(templates, table, rounds + 1, head[0] + 1, START.timestamp(), seal)
    events: list[NewEvent] = []
    while len(events) < entries or events[-1].type != "table.next_round":
        user, rid, type_, when, body = next(source)
        events.append(NewEvent(table, type_, body, rid, user, when))
    store.journal.append_many(events)
    return len(events)


def build_long_journal(
    path: Path,
    entries: int,
    *,
    key_dir: Path,
    progress: Callable[[float, str], None] | None = None,
    table: str = TABLE,
) -> LongJournal:
    """A SQLite store at `path` holding one signed table journal of about `entries` entries (see above)."""

    note = progress or (lambda done, what: None)
    if path.exists():
        path.unlink()
    with open_store(str(path), table=table, durable=False) as store:
        note(0.0, "playing the template rounds")
        play_rounds(store, table, TEMPLATE_ROUNDS, bonus_every=10)
        head = store.journal.head(table)
        assert head is not None
        if entries > head[0]:
            _write_copies(store, table, entries - head[0], note)
        note(0.95, "building the projections")
        with store.begin() as conn:
            rebuild(conn, table)
        head = store.journal.head(table)
        assert head is not None
        with store.read() as conn:
            rounds = _rounds(conn, table)
        store.journal.checkpoint(table)
    return LongJournal(f"sqlite:///{path}", path, table, head[0], rounds, key_dir)


def copy_long_journal(journal: LongJournal, path: Path) -> LongJournal:
    """A copy of the store file and of its table key (under the new store's name) at `path`."""

    shutil.copyfile(journal.path, path)
    for suffix in ("-wal", "-shm"):  # a store still open elsewhere keeps its newest pages there
        side = journal.path.with_name(journal.path.name + suffix)
        if side.exists():
            shutil.copyfile(side, path.with_name(path.name + suffix))
    key = keys.load(str(journal.path), journal.table)
    if key is not None:
        keys.copy_to(key, str(path))
    return LongJournal(
        f"sqlite:///{path}", path, journal.table, journal.entries, journal.rounds, journal.key_dir
    )
