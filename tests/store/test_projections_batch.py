"""The projections folded over a run of entries in memory (BatchRows: a forwarded batch, an import) leave
exactly the rows the row-by-row path leaves, on SQLite and on the floor's PostgreSQL, for every kind of
projected entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine.floor.demo import play_rounds
from engine.store import Store, open_store, schema
from engine.store.journal import insert_entries, read_head, write_head
from engine.store.projections import BULK_FROM
from engine.store.records import Entry
from tests.floor.played import PlayedFloors
from tests.payloads import RULES_SHA, append
from tests.store.helpers import play_round

PROJECTED = ("rounds", "number_counts", "daily_totals", "daily_handle", "rules_submissions")


def snapshot(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    with store.read() as conn:
        for name in PROJECTED:
            t = schema.metadata.tables[name]
            out[name] = [tuple(r) for r in conn.execute(sa.select(t).order_by(*t.primary_key.columns))]
    return out


def varied_journal(store: Store) -> list[Entry]:
    """Rounds played through the table service (bonus games, manual results), plus a round whose wagers,
    removals and settlement span several batches, corrections, voids of settled and open rounds,
    irregularities with and without a round, and imported history."""
    play_rounds(store, "T1", 45, bonus_every=9)
    j = store.journal
    many_wagers(store, "x-0")
    play_round(store, "T1", "x-1", 5, paid="35.00", wagered="10.00")
    append(
        j,
        "T1",
        "round.result_corrected",
        {"old": 5, "new": 6, "reason": "misread"},
        round_id="x-1",
        user="pat",
    )
    append(j, "T1", "round.voided", {"reason": "dealer error"}, round_id="x-1", user="pat")
    append(
        j,
        "T1",
        "round.opened",
        {"round_id": "x-2", "rules_sha256": RULES_SHA, "dealer": "eli"},
        round_id="x-2",
        user="eli",
    )
    append(j, "T1", "round.irregularity", {"kind": "ball jumped"}, round_id="x-2", user=None)
    append(j, "T1", "round.voided", {"reason": "no spin"}, round_id="x-2", user="pat")
    append(j, "T1", "round.irregularity", {"kind": "power cut"}, round_id=None, user=None)
    for i in range(40):
        append(
            j,
            "T1",
            "history.imported",
            {"number": i % 37, "time": f"2026-10-{1 + i % 28:02d}T12:00:00Z", "direction": "ccw"},
            round_id=f"imp-{i}",
            user="pat",
        )
    return list(j.entries("T1"))


def many_wagers(store: Store, round_id: str) -> None:
    """A round with 120 wagers on three bets, four of them taken back (early, middle, late), then
    settled: its wager entries cross batch boundaries (a removal and the settlement read them)."""
    j = store.journal
    append(
        j,
        "T1",
        "round.opened",
        {"round_id": round_id, "rules_sha256": RULES_SHA, "dealer": "dana"},
        round_id=round_id,
        user="dana",
    )
    for i in range(120):
        bet = ("red", "black", "straight")[i % 3]
        append(j,
            "T1", "round.wager_placed",
            {"id": f"m{i}", "player": f"p{i % 7}", "bet": bet, "amount": f"{5 + i % 4}.00",
             **({"numbers": [17]} if bet == "straight" else {})},
            round_id=round_id, user="dana",
        )  # fmt: skip
        if i in (2, 40, 77, 119):
            append(j, "T1", "round.wager_removed", {"wager_id": f"m{i - 2}"}, round_id=round_id, user="dana")
    draw = {"lucky": {"17": "199"}, "bonus_number": 0}
    append(j, "T1", "round.bets_closed", {"draw": draw}, round_id=round_id, user=None)
    append(
        j,
        "T1",
        "round.result",
        {"number": 18, "source": "sensor", "direction": "cw"},
        round_id=round_id,
        user=None,
    )
    append(j,
        "T1", "round.settled", {"total_wagered": "764.00", "total_paid": "0.00", "total_returned": "0.00"},
        round_id=round_id, user=None,
    )  # fmt: skip


def copy_entries(entries: list[Entry], target: Store, *, chunk: int | None) -> None:
    """The entries into `target` (same hashes): one at a time (chunk None) or in runs of `chunk`."""
    runs = (
        [[e] for e in entries]
        if chunk is None
        else [entries[i : i + chunk] for i in range(0, len(entries), chunk)]
    )
    for run in runs:
        with target.begin() as conn:
            head = read_head(conn, run[0].table, lock=True)
            insert_entries(conn, run)
            write_head(conn, run[0].table, head, run[-1].seq, run[-1].hash)


def _varied_source(tmp_path: Path, floors: PlayedFloors) -> str:
    """A SQLite store holding `varied_journal`: played once per test process and copied for each test
    (tests/floor/played.py)."""
    path = tmp_path / "source.sqlite"
    floors.copy_into(f"sqlite:///{path}", ("projections-batch-varied",), varied_journal)
    return str(path)


@pytest.mark.parametrize("chunk", [BULK_FROM, 97, 100_000])
def test_batches_leave_the_rows_of_one_by_one(
    tmp_path: Path, chunk: int, played_floors: PlayedFloors
) -> None:
    with open_store(_varied_source(tmp_path, played_floors), table="T1") as source:
        entries = list(source.journal.entries("T1"))
    assert len(entries) > 600
    with (
        open_store(str(tmp_path / "one.sqlite"), table="T1") as one,
        open_store(str(tmp_path / "bulk.sqlite"), table="T1") as bulk,
    ):
        copy_entries(entries, one, chunk=None)
        copy_entries(entries, bulk, chunk=chunk)
        expected = snapshot(one)
        assert all(expected[name] for name in PROJECTED)
        assert snapshot(bulk) == expected


def test_batches_on_postgresql_leave_the_rows_of_sqlite(
    tmp_path: Path, central: Store, played_floors: PlayedFloors
) -> None:
    with open_store(_varied_source(tmp_path, played_floors), table="T1") as source:
        entries = list(source.journal.entries("T1"))
        expected = snapshot(source)
    copy_entries(entries, central, chunk=250)
    assert snapshot(central) == expected


def test_a_batch_naming_an_unknown_round_is_refused_whole(tmp_path: Path) -> None:
    from engine.errors import DrrError

    with open_store(str(tmp_path / "source.sqlite"), table="T1") as source:
        for i in range(10):
            play_round(source, "T1", f"r-{i}", i)
        entries = list(source.journal.entries("T1"))
    broken = [e for e in entries if e.round_id != "r-3" or e.type != "round.opened"]
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as target:
        with pytest.raises(DrrError, match="unknown round 'r-3'"):
            copy_entries(broken, target, chunk=len(broken))
        assert all(not rows for rows in snapshot(target).values())


def test_a_batch_opening_a_stored_round_again_is_refused_whole(tmp_path: Path, central: Store) -> None:
    """The run's own new rounds are not read first (only the ones it continues): a round it opens that
    the store holds already is still refused in one line, and nothing of the run stays."""
    from engine.errors import DrrError

    with open_store(str(tmp_path / "source.sqlite"), table="T1") as source:
        for i in range(BULK_FROM + 10):
            play_round(source, "T1", f"r-{i}", i % 37)
        entries = list(source.journal.entries("T1"))
    first = [e for e in entries if e.round_id != "r-5"]  # r-5 goes in first, on its own
    with central.begin() as conn:
        play = [e for e in entries if e.round_id == "r-5"]
        renumbered = [
            Entry(e.table, i + 1, e.time, e.user, e.round_id, e.type, e.payload_text, e.prev_hash, e.hash)
            for i, e in enumerate(play)
        ]
        insert_entries(conn, renumbered)
        write_head(conn, "T1", read_head(conn, "T1", lock=True), len(play), play[-1].hash)
    before = snapshot(central)
    again = [
        Entry(e.table, len(play) + i + 1, e.time, e.user, e.round_id, e.type, e.payload_text, "", "")
        for i, e in enumerate(entries)
    ]  # every round, r-5 once more among them
    assert len(first) < len(again)
    with pytest.raises(DrrError, match="opened twice") as raised:
        copy_entries(again, central, chunk=len(again))
    assert "\n" not in str(raised.value)
    assert snapshot(central) == before


@pytest.mark.parametrize("chunk", [None, 100_000])
def test_user_entries_in_a_batch_keep_the_users_table(tmp_path: Path, chunk: int | None) -> None:
    """The floor chain's user.* entries keep the users table in a long run too (not only one by one)."""
    from engine.auth import User
    from engine.store.users import FLOOR, add_user, list_users

    with open_store(str(tmp_path / "source.sqlite"), table="T1") as source:
        add_user(source, "ada", "admin", "123456", by=None)
        admin = User("ada", "admin")
        for i in range(BULK_FROM + 5):
            add_user(source, f"u{i}", "croupier", "5678", by=admin)
        entries = list(source.journal.entries(FLOOR))
        expected = [(u.name, u.role) for u in list_users(source)]
    assert len(entries) >= BULK_FROM
    with open_store(str(tmp_path / "copy.sqlite"), table="T1") as target:
        copy_entries(entries, target, chunk=chunk)
        assert [(u.name, u.role) for u in list_users(target)] == expected
