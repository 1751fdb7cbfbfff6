"""Issue 28: what one signed wager append writes on SQLite: its statements."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa

from engine.bets import Wager, inside_bet
from engine.journal_types import write
from engine.round import RoundOpened, WagerPlaced
from engine.store import Store, keys, schema


def _wager(n: int) -> Any:
    return write(
        WagerPlaced(Wager(f"w{n}", "p3", inside_bet([17, 20]), Decimal("25.00"))),
        table="T1",
        round_id="r-1",
        user="dana",
    )


def _signed_open_round(store: Store) -> Any:
    """A signed table (its key and witness, as a first start leaves them) with one round open and
    a few wagers on it; returns the writer's sqlite3 connection."""
    keys.update(keys.create(store.where, "T1"), journaled=True)
    store.journal.append_many([write(RoundOpened("r-1", "0" * 64), table="T1", round_id="r-1", user="dana")])
    for n in range(5):  # every statement compiled, the tables' pages allocated
        store.journal.append_many([_wager(n)])
    with store.begin() as conn:
        raw = conn.connection.driver_connection
        raw.execute("PRAGMA wal_autocheckpoint=0")  # the WAL only grows: its size counts the pages written
    return raw


def test_a_signed_wager_append_runs_seven_statements(store: Store) -> None:
    raw = _signed_open_round(store)
    seen: list[str] = []
    raw.set_trace_callback(seen.append)
    try:
        store.journal.append_many([_wager(99)])
    finally:
        raw.set_trace_callback(None)
    verbs = [" ".join(s.split()[:2]) for s in seen]
    # the head read, the entry, the round read and updated, the head advanced and signed: before, a
    # second UPDATE of chain_heads put the signature on the head
    assert verbs == [
        "BEGIN IMMEDIATE",
        "SELECT chain_heads.seq,",
        "INSERT INTO",
        "SELECT rounds.table_id,",
        "UPDATE rounds",
        "UPDATE chain_heads",
        "COMMIT",
    ], seen
    assert "sig=" in seen[5]
    key = keys.load(store.where, "T1")
    assert key is not None
    with store.read() as conn:
        seq, hash_, sig = conn.execute(sa.select(schema.chain_heads.c["seq", "hash", "sig"])).one()
    assert seq == 7 and keys.check_signature(key.public, "T1", seq, hash_, sig)  # the new head's own
