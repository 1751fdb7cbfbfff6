"""The journal: chained appends, atomic batches, reads, and `verify` catching every kind of tampering."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.errors import DrrError
from engine.store import Store, open_store
from engine.store.canonical import GENESIS_HASH, canonical_json, entry_hash
from engine.store.journal import CHECKPOINT_EVERY
from engine.store.records import NewEvent
from engine.store.verify import verify
from tests.payloads import RULES_SHA
from tests.store.helpers import play_round


def test_canonical_json_sorts_keys_and_writes_exact_numbers() -> None:
    text = canonical_json({"b": Decimal("12.50"), "a": Fraction(49, 2), "c": [1, None]})
    assert text == '{"a":"49/2","b":"12.50","c":[1,null]}'


def test_entries_chain_and_hash_over_all_fields(store: Store) -> None:
    j = store.journal
    first = j.append("T1", "table.started", {"k": 1}, round_id=None, user="ann")
    second = j.append("T1", "wager.placed", {"amount": Decimal("5")}, round_id="R1", user="ann")
    assert (first.seq, second.seq) == (1, 2)
    assert first.prev_hash == GENESIS_HASH and second.prev_hash == first.hash
    recomputed = entry_hash(
        table="T1", seq=2, time=second.time, user="ann", round_id="R1", type="wager.placed",
        payload={"amount": "5"}, prev_hash=first.hash,
    )  # fmt: skip
    assert recomputed == second.hash
    assert [e.seq for e in j.entries("T1")] == [1, 2]
    assert [e.seq for e in j.round_entries("R1")] == [2]
    assert j.head("T1") == (2, second.hash)


def test_chains_of_two_tables_are_independent(store: Store) -> None:
    j = store.journal
    j.append("T1", "x", {}, round_id=None, user=None)
    other = j.append("T2", "x", {}, round_id=None, user=None)
    assert other.seq == 1 and other.prev_hash == GENESIS_HASH


def test_append_many_is_all_or_nothing(store: Store) -> None:
    j = store.journal
    j.append("T1", "round.opened", {"round_id": "R1", "rules_sha256": RULES_SHA}, round_id="R1", user=None)
    with pytest.raises(DrrError):
        j.append_many(
            [
                NewEvent("T1", "round.closed", {"lucky": [[3, "99"]], "bonus_number": 4}, round_id="R1"),
                NewEvent("T1", "round.result", {"number": 99}, round_id="R1"),  # not a pocket: refused
            ]
        )
    assert j.head("T1") is not None and j.head("T1")[0] == 1  # type: ignore[index]
    assert verify(store).ok


def test_verify_ok_summary(store: Store) -> None:
    play_round(store, "T1", "R1", 17)
    play_round(store, "T1", "R2", 3)
    report = verify(store, "T1")
    assert report.ok
    assert report.summary() == f"OK: 10 events, 2 rounds, head {store.journal.head('T1')[1]}"  # type: ignore[index]


def _tamper(store: Store, sql: str) -> None:
    with store.begin() as conn:
        conn.execute(sa.text(sql))


def test_verify_detects_an_edited_entry(store: Store) -> None:
    play_round(store, "T1", "R1", 17)
    _tamper(store, "UPDATE journal SET payload = replace(payload, '17', '18') WHERE seq = 4")
    report = verify(store, "T1")
    assert not report.ok and report.bad_seq == 4 and "edited" in (report.problem or "")


def test_verify_detects_a_removed_entry(store: Store) -> None:
    play_round(store, "T1", "R1", 17)
    _tamper(store, "DELETE FROM journal WHERE seq = 2")
    report = verify(store, "T1")
    assert not report.ok and report.bad_seq == 2 and "removed" in (report.problem or "")


def test_verify_detects_reordered_entries(store: Store) -> None:
    play_round(store, "T1", "R1", 17)
    # Swap entries 2 and 3 by renumbering them.
    _tamper(store, "UPDATE journal SET seq = -2 WHERE seq = 2")
    _tamper(store, "UPDATE journal SET seq = 2 WHERE seq = 3")
    _tamper(store, "UPDATE journal SET seq = 3 WHERE seq = -2")
    report = verify(store, "T1")
    assert not report.ok and report.bad_seq == 2 and "reordered" in (report.problem or "")


def test_verify_detects_truncation_against_the_head_and_the_checkpoint(store: Store) -> None:
    j = store.journal
    j.append_many([NewEvent("T1", "tick", {"i": i}) for i in range(CHECKPOINT_EVERY + 5)])
    _tamper(store, f"DELETE FROM journal WHERE seq > {CHECKPOINT_EVERY - 10}")
    report = verify(store, "T1")
    assert not report.ok and "truncated" in (report.problem or "")
    # Even when the intruder also rewinds the head row, the checkpoint still shows the loss.
    _tamper(
        store,
        "UPDATE chain_heads SET seq = (SELECT max(seq) FROM journal),"
        " hash = (SELECT hash FROM journal ORDER BY seq DESC LIMIT 1)",
    )
    report = verify(store, "T1")
    assert not report.ok and report.bad_seq == CHECKPOINT_EVERY and "truncated" in (report.problem or "")


def test_shutdown_checkpoint_is_kept(store: Store) -> None:
    j = store.journal
    last = j.append("T1", "tick", {}, round_id=None, user=None)
    assert j.checkpoint("T1") == (1, last.hash)
    _tamper(store, "DELETE FROM journal")
    _tamper(store, "DELETE FROM chain_heads")
    report = verify(store, "T1")
    assert not report.ok and "truncated" in (report.problem or "")


def test_audit_verify_reports_a_damaged_file_even_when_the_chain_is_intact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gui.cli import main

    path = tmp_path / "damaged.sqlite"
    with open_store(str(path), table="T1") as s:
        play_round(s, "T1", "r1", 17)
    assert main(["audit", "verify", "--db", str(path)]) == 0
    capsys.readouterr()
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the main file
        page = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'ix_rounds_table_seq'").fetchone()[
            0
        ]
    with path.open("r+b") as f:  # a bad sector in an index of the projections, not in the journal
        f.seek((root - 1) * page)
        f.write(b"\xde\xad" * (page // 2))
    assert main(["audit", "verify", "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert "hash chain is intact" in err and f"Page {root}" in err and "restore" in err
