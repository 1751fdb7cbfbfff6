"""Issue 28: what one signed wager append writes on SQLite — its statements and the pages its commit
puts in the WAL (an index is written only when a column it holds changes) — and that the history's
sort by wagered, whose indexes no longer hold open rounds, still places the open rounds right."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine.bets import Wager, inside_bet
from engine.errors import DrrError
from engine.floor import history_page
from engine.floor.history_page import HistoryQuery, fetch_page
from engine.journal_types import write
from engine.round import RoundOpened, WagerPlaced
from engine.store import Store, keys, schema

APPENDS = 60


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


def test_a_signed_wager_append_runs_six_statements(store: Store) -> None:
    raw = _signed_open_round(store)
    seen: list[str] = []
    raw.set_trace_callback(seen.append)
    try:
        store.journal.append_many([_wager(99)])
    finally:
        raw.set_trace_callback(None)
    verbs = [" ".join(s.split()[:2]) for s in seen]
    # the head read, the entry, the wager added to its round, the head advanced and signed: before,
    # the round's row was read first, and a second UPDATE of chain_heads put the signature on the head
    assert verbs == [
        "BEGIN IMMEDIATE",
        "SELECT chain_heads.seq,",
        "INSERT INTO",
        "UPDATE rounds",
        "UPDATE chain_heads",
        "COMMIT",
    ], seen
    assert "wagered=(rounds.wagered + 250000)" in seen[3] and "sig=" in seen[4]
    key = keys.load(store.where, "T1")
    assert key is not None
    with store.read() as conn:
        seq, hash_, sig = conn.execute(sa.select(schema.chain_heads.c["seq", "hash", "sig"])).one()
    assert seq == 7 and keys.check_signature(key.public, "T1", seq, hash_, sig)  # the new head's own


def test_a_wager_for_an_unknown_round_is_refused_and_nothing_written(store: Store) -> None:
    """The wager is added to its round without reading the row first: no row updated is refused."""
    _signed_open_round(store)
    head = store.journal.head("T1")
    stray = write(
        WagerPlaced(Wager("w9", "p3", inside_bet([17, 20]), Decimal("25.00"))),
        table="T1",
        round_id="r-2",
        user="dana",
    )
    with pytest.raises(DrrError, match="unknown round 'r-2' on table T1"):
        store.journal.append_many([stray])
    assert store.journal.head("T1") == head


def test_a_wager_append_writes_no_wagered_sort_index(store: Store) -> None:
    """Its pages: the journal row, the journal's primary key and round index, the round's row, the
    head's row (5, a page split now and then). Before, the three indexes of the wagered sort were
    rewritten with the open round's `wagered` at every wager: 8.2 pages an append."""
    raw = _signed_open_round(store)
    wal = Path(f"{store.where}-wal")
    page = raw.execute("PRAGMA page_size").fetchone()[0]
    before = wal.stat().st_size
    for n in range(10, 10 + APPENDS):
        store.journal.append_many([_wager(n)])
    frames = (wal.stat().st_size - before) / (page + 24) / APPENDS
    assert frames < 5.6, frames
    with store.read() as conn:
        assert conn.execute(sa.select(schema.rounds.c.wagered)).scalar_one() == (5 + APPENDS) * 250_000


@pytest.mark.parametrize("probe", [history_page.PROBE, 1], ids=["as-planned", "along-the-sort"])
def test_the_wagered_sort_places_open_rounds_among_the_others(
    store: Store, probe: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Open rounds (in no index of the wagered sort) come on the page, in order, with any filter,
    whichever way the page is read (PROBE 1: along the sort's or the pair's index)."""
    monkeypatch.setattr(history_page, "PROBE", probe)
    r = schema.rounds
    rows = []
    for i in range(40):
        status = "open" if i % 7 == 0 else ("void" if i % 11 == 0 else "settled")
        rows.append(
            {
                "table_id": f"T{i % 3}", "round_id": f"T{i % 3}-{i:06d}", "seq": i + 1, "status": status,
                "source": "table", "opened_at": f"2026-12-07T10:{i:02d}:00.000000Z",
                "wagered": (i * 37) % 500 * 10_000, "paid": 0, "result": None if status == "open" else i % 37,
                "irregularities": 1 if i % 5 == 0 else 0,
            }
        )  # fmt: skip
    with store.begin() as conn:
        conn.execute(sa.insert(r), rows)
    for fields in ({}, {"table": "T1"}, {"irregular": True}, {"result": 7}, {"dealer": "nobody"}):
        for descending in (True, False):
            query = HistoryQuery(sort="wagered", descending=descending, **fields)  # type: ignore[arg-type]
            order = [r.c.wagered, r.c.table_id, r.c.round_id]
            with store.read() as conn:
                select = sa.select(r.c.table_id, r.c.round_id).where(*query.where())
                select = select.order_by(*(c.desc() if descending else c.asc() for c in order))
                expected = [tuple(row) for row in conn.execute(select)]
            got: list[tuple[str, str]] = []
            cursor: Any = None
            while True:
                page, cursor = fetch_page(store, query, cursor, 4)
                got += [(row.table, row.round_id) for row in page]
                if cursor is None:
                    break
            assert got == expected, fields
    assert any(row["status"] == "open" for row in rows)
