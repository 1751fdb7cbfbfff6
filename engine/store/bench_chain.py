"""Single-table chain figures (issue 15): full verify speed, incremental verify, table start, at any size.

`build_journal(path, entries)` writes a signed, MAC'd chain of `entries` entries into a new SQLite
store, as years of play would leave it: the first start of a real `TableService` session (its
`table.started` and Rules Submission), then rounds copied from a real played round (a round opened,
wagers placed, closed, voided, next round: ~25 entries), each with its own round id and times, every
hash, MAC, interval checkpoint signature and the head signature made with the table's key, the
`rounds` projection row of each round, and the key's witness. The entries are written straight to
the database (a 5M-entry journal in about a minute), not through the table (hours).

The figures (each measured by a function taking the size, for `drr bench` at small sizes and the
scale bench at 5M):
- `audit_verify_entries_per_s`: `verify` of the whole chain (no verified mark used), from a fresh
  store connection.
- `audit_verify_incremental_ms`: `verify(incremental=True)` after 1,000 entries appended since the
  last verified position.
- `table_start_ms`: `open_store` + `TableService.start` to ready (journal verified from the mark set
  1,000 entries before the head, state folded, `table.started` durable), then `close`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

TABLE = "C1"
SINCE_MARK = 1000  # entries appended after the last verified position
_COLUMNS = ("table_id", "seq", "time", "user_name", "round_id", "type", "payload", "prev_hash", "hash", "mac")


@contextlib.contextmanager
def key_dir(where: Path) -> Iterator[None]:
    """Keys of the bench's stores in a scratch key directory, never the user's."""
    old = os.environ.get("DRR_KEY_DIR")
    os.environ["DRR_KEY_DIR"] = str(where)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("DRR_KEY_DIR", None)
        else:
            os.environ["DRR_KEY_DIR"] = old


def _template(tmp: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any], str]:
    """A real session on a scratch store: (first-start entries, one round's entries, its rounds row,
    the round id), read back from its journal."""
    from engine.auth import User
    from engine.bets import BetKind, inside_bet, outside_bet
    from engine.rng import SeededRng
    from engine.store import open_store
    from engine.table.service import TableService

    croupier, pitboss = User("carol", "croupier"), User("pete", "pitboss")
    path = tmp / "template.sqlite"

    async def session() -> None:
        with open_store(str(path), table=TABLE) as store:
            svc = TableService(store, TABLE, rng=SeededRng(3), allow_seeded_rng=True, claim=False)
            await svc.start()
            for _ in range(2):
                await svc.open_bets(croupier)
                for i in range(9):
                    await svc.place_wager(croupier, f"p{i}", inside_bet([i + 1]), Decimal(5))
                    await svc.place_wager(croupier, f"p{i}", outside_bet(BetKind.RED), Decimal(10))
                await svc.no_more_bets(croupier)
                await svc.void(pitboss, "bench round")
                await svc.next_round(croupier)
            await svc.close()

    asyncio.run(session())
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute("SELECT * FROM journal WHERE table_id = ? ORDER BY seq", (TABLE,))]
    rounds = [dict(r) for r in db.execute("SELECT * FROM rounds WHERE table_id = ? ORDER BY seq", (TABLE,))]
    db.close()
    first, second = rounds[0], rounds[1]
    prefix = [r for r in rows if r["seq"] < first["seq"]]
    body = [r for r in rows if second["seq"] <= r["seq"] and r["type"] != "table.checkpoint"]
    body = [r for r in body if r["round_id"] in (None, second["round_id"]) and r["type"] != "table.started"]
    return prefix, body, second, str(second["round_id"])


def _json(value: str | None) -> str:
    return "null" if value is None else json.dumps(value, ensure_ascii=False)


def build_journal(
    path: Path,
    entries: int,
    *,
    mark_before_head: int = SINCE_MARK,
    progress: Callable[[int], None] | None = None,
) -> int:
    """A signed, MAC'd chain of about `entries` entries in a new store at `path` (module docstring),
    the witness's verified mark `mark_before_head` entries before the head; returns the head seq.
    Call inside `key_dir(...)`."""
    from engine.store import keys, open_store
    from engine.store.canonical import GENESIS_HASH, entry_hash
    from engine.store.keys import VerifiedMark, entry_mac

    with tempfile.TemporaryDirectory() as scratch:
        prefix, body, row_template, round_id = _template(Path(scratch))
    with open_store(str(path), table=TABLE) as store:
        where = store.where
    key, _ = keys.ensure(where, TABLE)
    mac_key = key.mac_key
    template_key = json.loads(next(r for r in prefix if r["type"] == "table.started")["payload"])["key"]
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    insert = f"INSERT INTO journal ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
    round_cols = list(row_template)
    insert_round = f"INSERT INTO rounds ({', '.join(round_cols)}) VALUES ({', '.join('?' * len(round_cols))})"
    table_json = _json(TABLE)
    sha256, mac = hashlib.sha256, entry_mac
    seq, prev = 0, GENESIS_HASH
    start = datetime(2021, 1, 1, tzinfo=UTC)
    batch: list[tuple[Any, ...]] = []
    checkpoints: list[tuple[Any, ...]] = []
    round_rows: list[tuple[Any, ...]] = []
    rounds_made = 0

    def add(row: dict[str, Any], rid: str | None, payload: str, when: str) -> None:
        nonlocal seq, prev
        seq += 1
        h = sha256(
            (
                f'{{"payload":{payload},"prev_hash":"{prev}","round_id":{_json(rid)},"seq":{seq},'
                f'"table":{table_json},"time":"{when}","type":{_json(row["type"])},"user":{_json(row["user_name"])}}}'
            ).encode()
        ).hexdigest()
        if seq <= 3:  # the fast form is the canonical entry hash
            assert h == entry_hash(
                table=TABLE, seq=seq, time=when, user=row["user_name"], round_id=rid, type=row["type"],
                payload=json.loads(payload), prev_hash=prev,
            )  # fmt: skip
        batch.append(
            (TABLE, seq, when, row["user_name"], rid, row["type"], payload, prev, h, mac(mac_key, h))
        )
        if seq % 1000 == 0:
            checkpoints.append((TABLE, seq, h, when, "interval", key.sign(seq, h)))
        prev = h

    for row in prefix:
        when = (start + timedelta(microseconds=seq)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        add(row, row["round_id"], row["payload"].replace(template_key, key.public), when)
    target = max(entries, seq + len(body))
    while seq + len(body) <= target:
        rounds_made += 1
        rid = f"{TABLE}-{rounds_made:06d}"
        base = start + timedelta(seconds=60 * rounds_made)
        opened_seq = seq + 1
        for i, row in enumerate(body):
            when = (base + timedelta(milliseconds=50 * i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            r = rid if row["round_id"] is not None else None
            add(row, r, row["payload"].replace(round_id, rid), when)
        stamp = base.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        values = dict(row_template, round_id=rid, seq=opened_seq, opened_at=stamp, closed_at=stamp)
        values.update(game_number=rounds_made % 1000)
        round_rows.append(tuple(values[c] for c in round_cols))
        if len(batch) >= 50_000:
            db.executemany(insert, batch)
            db.executemany(insert_round, round_rows)
            batch.clear()
            round_rows.clear()
            if progress is not None:
                progress(seq)
    db.executemany(insert, batch)
    db.executemany(insert_round, round_rows)
    db.executemany(
        "INSERT INTO checkpoints (table_id, seq, hash, time, reason, sig) VALUES (?, ?, ?, ?, ?, ?)",
        checkpoints,
    )
    db.execute(
        "INSERT INTO chain_heads (table_id, seq, hash, sig) VALUES (?, ?, ?, ?)",
        (TABLE, seq, prev, key.sign(seq, prev)),
    )
    db.execute("COMMIT")
    at = seq - mark_before_head
    (mark_hash,) = db.execute(
        "SELECT hash FROM journal WHERE table_id = ? AND seq = ?", (TABLE, at)
    ).fetchone()
    (cps,) = db.execute(
        "SELECT count(*) FROM checkpoints WHERE table_id = ? AND seq <= ?", (TABLE, at)
    ).fetchone()
    (rounds,) = db.execute(
        "SELECT count(DISTINCT round_id) FROM journal WHERE table_id = ? AND seq <= ?", (TABLE, at)
    ).fetchone()
    mark = VerifiedMark(at, mark_hash, key.public, True, cps, rounds)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    keys.update(
        key,
        journaled=True,
        high_water=(seq, prev),
        checkpoint=checkpoints[-1][1] if checkpoints else None,
        mac_from=1,
        verified=mark,
    )
    return seq


def measure(entries: int, *, progress: Callable[[int], None] | None = None) -> dict[str, float]:
    """The three chain figures on a journal of `entries` entries (see the module docstring)."""
    from engine.rng import SeededRng
    from engine.store import keys, open_store
    from engine.store.verify import verify
    from engine.table.service import TableService

    with tempfile.TemporaryDirectory() as tmp, key_dir(Path(tmp) / "keys"):
        path = Path(tmp) / "chain.sqlite"
        head = build_journal(path, entries, progress=progress)
        where = str(path.absolute())
        mark = keys.load(where, TABLE)
        with open_store(str(path), table=TABLE) as store:
            started = time.perf_counter()
            full = verify(store, TABLE, remember=False)
            full_s = time.perf_counter() - started
            assert full.ok and full.events == head, full.problem
            started = time.perf_counter()
            incr = verify(store, TABLE, incremental=True, remember=False)
            incr_s = time.perf_counter() - started
            assert incr.ok and incr.events == head and incr.rounds == full.rounds, (incr.problem, incr.rounds)
        assert keys.load(where, TABLE) == mark  # the mark is where the build put it

        async def restart() -> float:
            began = time.perf_counter()
            with open_store(str(path), table=TABLE) as store:
                svc = TableService(store, TABLE, rng=SeededRng(5), allow_seeded_rng=True, claim=False)
                await svc.start()
                ready = time.perf_counter() - began
                await svc.close()
            return ready

        start_s = asyncio.run(restart())
    return {
        "audit_verify_entries_per_s": head / full_s,
        "audit_verify_incremental_ms": incr_s * 1000,
        "table_start_ms": start_s * 1000,
        "chain_entries": float(head),
    }


def bench_chain() -> dict[str, float]:
    """`drr bench`: the figures on a 200,000-entry journal (the scale bench measures 5M)."""
    figures = measure(200_000)
    return {
        "audit_verify_entries_per_s": figures["audit_verify_entries_per_s"],
        "audit_verify_incremental_ms_at_200k": figures["audit_verify_incremental_ms"],
        "table_start_ms_at_200k_entries": figures["table_start_ms"],
    }
