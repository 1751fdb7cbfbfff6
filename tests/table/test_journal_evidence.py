"""Issue 13 (2, 3): the journal as evidence — an auditor's tamperings with plain SQL on a real SQLite
store, each caught by `drr audit verify` naming the first bad entry and refused at the table's start;
the key outside the store, its rotation, and the journaled quarantine procedure."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.errors import DrrError
from engine.store import keys, open_store
from engine.store.canonical import GENESIS_HASH, entry_hash
from engine.store.evidence import quarantine, rotate_key
from engine.store.verify import verify
from gui.cli import main
from tests.table.helpers import CROUPIER, cover_everything, make_service, voided_session

Row = dict[str, Any]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def _played(tmp_path: Path) -> tuple[Path, int]:
    """A store of two sessions; (path, seq of the first session's shutdown checkpoint)."""
    path = tmp_path / "table.sqlite"
    run(voided_session(path, 2))
    first = _db(path).execute("SELECT max(seq) FROM checkpoints").fetchone()[0]
    run(voided_session(path, 1))
    return path, int(first)


def _db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    return conn


def _rows(path: Path) -> list[Row]:
    conn = _db(path)
    conn.row_factory = sqlite3.Row
    rows = [dict(r) for r in conn.execute("SELECT * FROM journal WHERE table_id = 'T1' ORDER BY seq")]
    conn.close()
    return rows


def _rechain(path: Path, change: Callable[[list[Row]], list[Row]]) -> None:
    """What the auditor did: change the rows, then renumber and recompute every later hash, the head
    and every checkpoint's hash (the signatures stay as they were: the key is not in the store)."""
    rows = change(_rows(path))
    prev = GENESIS_HASH
    for seq, row in enumerate(rows, start=1):
        row["seq"], row["prev_hash"] = seq, prev
        row["hash"] = prev = entry_hash(
            table=row["table_id"],
            seq=seq,
            time=row["time"],
            user=row["user_name"],
            round_id=row["round_id"],
            type=row["type"],
            payload=json.loads(row["payload"]),
            prev_hash=row["prev_hash"],
        )
    conn = _db(path)
    conn.execute("BEGIN")
    conn.execute("DELETE FROM journal WHERE table_id = 'T1'")
    cols = list(rows[0])
    conn.executemany(
        f"INSERT INTO journal ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
        [tuple(r[c] for c in cols) for r in rows],
    )
    conn.execute("UPDATE chain_heads SET seq = ?, hash = ? WHERE table_id = 'T1'", (len(rows), prev))
    by_seq = {r["seq"]: r["hash"] for r in rows}
    for (seq,) in conn.execute("SELECT seq FROM checkpoints WHERE table_id = 'T1'").fetchall():
        if seq in by_seq:
            conn.execute(
                "UPDATE checkpoints SET hash = ? WHERE table_id = 'T1' AND seq = ?", (by_seq[seq], seq)
            )
        else:
            conn.execute("DELETE FROM checkpoints WHERE table_id = 'T1' AND seq = ?", (seq,))
    conn.execute("COMMIT")
    conn.close()


def _audit(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    return err


def _refused_at_start(path: Path, named: str) -> None:
    before = path.read_bytes()
    with open_store(str(path), table="T1") as store, pytest.raises(DrrError, match=named) as caught:
        run(make_service(store).start())
    assert "does not start" in str(caught.value) and "quarantine" in str(caught.value)
    assert path.read_bytes() == before  # the evidence is kept: nothing written


def test_an_intact_signed_journal_verifies_and_names_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _played(tmp_path)
    assert main(["audit", "verify", "--db", str(path)]) == 0
    key = keys.load(str(path), "T1")
    assert key is not None and key.journaled
    assert f"signed by key {keys.fingerprint(key.public)}" in capsys.readouterr().out
    assert os.stat(key.path).st_mode & 0o777 == 0o600
    conn = _db(path)
    assert conn.execute("SELECT sig FROM chain_heads").fetchone()[0]  # the head is signed
    assert all(sig for (sig,) in conn.execute("SELECT sig FROM checkpoints"))
    assert key.private.__class__.__name__ not in path.read_bytes().decode("latin-1")
    assert bytes.fromhex(key.to_json()["private_key"]) not in path.read_bytes()  # the key is not in the store


def test_a_rewritten_payload_with_every_hash_recomputed_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, first = _played(tmp_path)
    changed: list[int] = []

    def raise_a_wager(rows: list[Row]) -> list[Row]:
        target = next(r for r in rows if r["seq"] > first + 1 and r["type"] == "round.wager_placed")
        target["payload"] = target["payload"].replace('"amount":"1"', '"amount":"900"')
        changed.append(target["seq"])
        return rows

    _rechain(path, raise_a_wager)
    with open_store(str(path), table="T1", migrate=False) as store:
        assert _hashes_only_ok(store)  # the plain SHA-256 chain alone would pass
    err = _audit(path, capsys)
    # the key file's MAC names the very entry changed, not a range between signed checkpoints
    assert f"entry {changed[0]}: its MAC does not match the table's key" in err
    _refused_at_start(path, f"journal entry {changed[0]} its MAC does not match")
    # A lab with the public key only (no key file, so no MAC key): the signatures name the range.
    key = keys.load(str(path), "T1")
    assert key is not None
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "lab-has-no-keys"))
    with open_store(str(path), table="T1", migrate=False) as store:
        report = verify(store, "T1", public_key=key.public)
    assert not report.ok and report.bad_seq == first + 1
    assert "not covered by the table's signature" in (report.detail or "")


def _hashes_only_ok(store: Any) -> bool:
    """The chain's hashes hold (the audit without the key's signatures would say OK)."""
    rows = list(store.journal.entries("T1"))
    prev = GENESIS_HASH
    for e in rows:
        if e.prev_hash != prev:
            return False
        prev = e.hash
    return True


def test_a_removed_round_renumbered_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _played(tmp_path)
    rows = _rows(path)
    victim = next(r["round_id"] for r in rows if r["round_id"])
    gone = min(r["seq"] for r in rows if r["round_id"] == victim)
    _rechain(path, lambda rows: [r for r in rows if r["round_id"] != victim])
    err = _audit(path, capsys)
    assert f"entry {gone}: its MAC does not match" in err  # the first entry renumbered into the gap
    _refused_at_start(path, f"journal entry {gone} its MAC does not match")


def test_an_entry_inserted_mid_chain_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, first = _played(tmp_path)
    at = first + 5

    def insert(rows: list[Row]) -> list[Row]:
        copy = dict(rows[at - 2])
        return [*rows[: at - 1], copy, *rows[at - 1 :]]

    _rechain(path, insert)
    err = _audit(path, capsys)
    assert f"entry {at}: its MAC does not match" in err
    _refused_at_start(path, f"journal entry {at} its MAC does not match")


def test_two_entries_swapped_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, first = _played(tmp_path)
    at = first + 4

    def swap(rows: list[Row]) -> list[Row]:
        rows[at - 1], rows[at] = rows[at], rows[at - 1]
        return rows

    _rechain(path, swap)
    err = _audit(path, capsys)
    assert f"entry {at}: its MAC does not match" in err
    _refused_at_start(path, f"journal entry {at} its MAC does not match")


def test_an_appended_well_formed_void_is_caught_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _played(tmp_path)
    rows = _rows(path)
    old = next(r for r in rows if r["type"] == "round.voided")
    last = rows[-1]
    seq = last["seq"] + 1
    payload = json.loads(old["payload"])
    digest = entry_hash(
        table="T1", seq=seq, time=last["time"], user="pete", round_id=old["round_id"],
        type="round.voided", payload=payload, prev_hash=last["hash"],
    )  # fmt: skip
    conn = _db(path)
    conn.execute(
        "INSERT INTO journal (table_id, seq, time, user_name, round_id, type, payload, prev_hash, hash) "
        "VALUES ('T1', ?, ?, 'pete', ?, 'round.voided', ?, ?, ?)",
        (seq, last["time"], old["round_id"], old["payload"], last["hash"], digest),
    )
    conn.execute("UPDATE chain_heads SET seq = ?, hash = ? WHERE table_id = 'T1'", (seq, digest))
    conn.close()
    err = _audit(path, capsys)
    assert f"entry {seq}: carries no MAC" in err
    _refused_at_start(path, f"journal entry {seq} carries no MAC")
    conn = _db(path)  # the MAC of the old void copied with it: it does not cover the new entry
    conn.execute("UPDATE journal SET mac = ? WHERE seq = ?", (old["mac"], seq))
    conn.close()
    assert f"entry {seq}: its MAC does not match" in _audit(path, capsys)


def test_every_mac_stripped_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A forger who removes every MAC (to pass the chain off as one made before MACs): the witness
    says from which entry every entry is MAC'd."""
    path, _ = _played(tmp_path)
    conn = _db(path)
    conn.execute("UPDATE journal SET mac = NULL")
    conn.close()
    err = _audit(path, capsys)
    assert "entry 1: carries no MAC" in err
    _refused_at_start(path, "carries no MAC")


def test_a_cut_tail_is_caught_even_on_an_old_signed_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, first = _played(tmp_path)
    conn = _db(path)
    hash_, sig = conn.execute("SELECT hash, sig FROM checkpoints WHERE seq = ?", (first,)).fetchone()
    conn.execute("DELETE FROM journal WHERE seq > ?", (first,))
    conn.execute("DELETE FROM checkpoints WHERE seq > ?", (first,))
    # the head put back on the first session's signed checkpoint: its signature holds
    conn.execute("UPDATE chain_heads SET seq = ?, hash = ?, sig = ?", (first, hash_, sig))
    conn.close()
    err = _audit(path, capsys)
    assert f"entry {first + 1}:" in err and "truncated or rolled back" in err
    _refused_at_start(path, f"journal entry {first + 1}")


def test_rows_cut_after_the_last_checkpoint_are_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _played(tmp_path)

    async def crash_mid_round() -> None:  # a round opened, then the process dies (no close)
        with open_store(str(path), table="T1") as store:
            svc = make_service(store)
            await svc.start()
            await svc.open_bets(CROUPIER)
            await cover_everything(svc)

    run(crash_mid_round())
    conn = _db(path)
    (cp,) = conn.execute("SELECT max(seq) FROM checkpoints").fetchone()
    conn.close()
    _rechain(path, lambda rows: [r for r in rows if r["seq"] <= cp])
    err = _audit(path, capsys)
    assert f"entry {cp + 1}:" in err
    _refused_at_start(path, f"journal entry {cp + 1}")


def test_every_checkpoint_row_deleted_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _played(tmp_path)
    conn = _db(path)
    (cp,) = conn.execute("SELECT max(seq) FROM checkpoints").fetchone()
    conn.execute("DELETE FROM checkpoints")
    conn.close()
    err = _audit(path, capsys)
    assert f"entry {cp}:" in err and "checkpoint" in err
    _refused_at_start(path, "checkpoint rows removed")


def test_a_zero_byte_file_where_the_key_says_entries_existed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _played(tmp_path)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"")
    err = _audit(path, capsys)
    assert "entry 1:" in err and "missing or empty" in err
    # Refused before a schema is written into the erased file (issue 23 finding 9): no new journal.
    with pytest.raises(DrrError, match=r"empty \(0 bytes\).*drr db quarantine"):
        open_store(str(path), table="T1")
    assert path.stat().st_size == 0


def test_a_missing_key_file_is_named_as_missing_and_no_key_is_written(tmp_path: Path) -> None:
    """Issue 29: a deleted key file read as "signed by key …, not the table's key … (rewritten with another
    key)" — tampering — and the refused start still wrote a new key file."""
    path, _ = _played(tmp_path)
    key = keys.load(str(path), "T1")
    assert key is not None
    Path(key.path).unlink()
    keys._CACHE.clear()
    with open_store(str(path), table="T1") as store, pytest.raises(DrrError) as refused:
        run(make_service(store).start())
    message = str(refused.value)
    assert "key file" in message and "is missing" in message and "backup" in message, message
    assert "rewritten" not in message
    assert not Path(key.path).exists(), "the refused start wrote a new key file"


def test_a_key_readable_by_others_is_refused(tmp_path: Path) -> None:
    path, _ = _played(tmp_path)
    key = keys.load(str(path), "T1")
    assert key is not None
    os.chmod(key.path, 0o644)
    keys._CACHE.clear()
    with open_store(str(path), table="T1") as store, pytest.raises(DrrError, match="readable by others"):
        run(make_service(store).start())


def test_a_lab_verifies_with_the_public_key_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = _played(tmp_path)
    key = keys.load(str(path), "T1")
    assert key is not None
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "lab-has-no-keys"))
    with open_store(str(path), table="T1", migrate=False) as store:
        report = verify(store, "T1")
        assert report.ok and report.unpinned == ["T1"]  # signatures checked against the chain's own key
        assert verify(store, "T1", public_key=key.public).ok
        other = keys.create(str(tmp_path / "x"), "T1")
        bad = verify(store, "T1", public_key=other.public)
        assert not bad.ok and "not the table's key" in (bad.problem or "")


def test_a_rotation_is_journaled_signed_by_the_old_key(tmp_path: Path) -> None:
    path, _ = _played(tmp_path)
    with open_store(str(path), table="T1") as store:
        old = keys.load(store.where, "T1")
        assert old is not None
        rotate_key(store, "T1", user="admin")
        new = keys.load(store.where, "T1")
        assert new is not None and new.public != old.public
        assert verify(store, "T1").ok
        entry = list(store.journal.entries("T1"))[-1]
        assert entry.type == "table.key_rotated"
        assert keys.check_raw(
            old.public,
            keys.rotation_message("T1", old.public, new.public),
            json.loads(entry.payload_text)["signature"],
        )
    run(voided_session(path, 1))  # the table plays on under the new key
    with open_store(str(path), table="T1") as store:
        assert verify(store, "T1").ok


def test_quarantine_keeps_the_damaged_store_and_links_the_new_one(tmp_path: Path) -> None:
    path, first = _played(tmp_path)
    # The second session's first wager removed (after its table.started, rng.startup_test, round.opened).
    _rechain(path, lambda rows: [r for r in rows if r["seq"] != first + 4])
    damaged = path.read_bytes()
    with pytest.raises(DrrError, match="nothing to quarantine"):
        _quarantine_an_intact_store(tmp_path)
    result = quarantine(path, "T1", user="admin")
    assert result.moved_to.read_bytes() == damaged  # the evidence, untouched
    assert result.last_good[0] == first  # the first session's signed checkpoint
    with open_store(str(path), table="T1") as store:
        assert verify(store, "T1").ok
        (entry,) = list(store.journal.entries("T1"))
        assert entry.type == "table.quarantined"
        body = json.loads(entry.payload_text)
        assert body["last_good_seq"] == first and body["damaged_store"] == str(result.moved_to)
    old_rounds = {r["round_id"] for r in _rows(result.moved_to) if r["round_id"]}
    run(voided_session(path, 1))  # the table starts again on the new store ...
    run(voided_session(path, 1))  # ... and again (the fold then starts at its last round)
    with open_store(str(path), table="T1") as store:
        assert verify(store, "T1").ok
    new_rounds = sorted({r["round_id"] for r in _rows(path) if r["round_id"]})
    assert new_rounds == ["T1-000004", "T1-000005"] and not old_rounds & set(new_rounds)  # no id reused


def _quarantine_an_intact_store(tmp_path: Path) -> None:
    """Quarantine refuses a store that verifies."""
    ok = tmp_path / "ok" / "table.sqlite"
    run(voided_session(ok, 1))
    quarantine(ok, "T1", user="admin")


def test_a_raised_paid_in_the_derived_tables_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _played(tmp_path)
    assert main(["audit", "verify", "--db", str(path)]) == 0
    conn = _db(path)
    (round_id,) = conn.execute("SELECT round_id FROM rounds ORDER BY seq LIMIT 1").fetchone()
    conn.execute("UPDATE rounds SET paid = paid + 10000000000000 WHERE round_id = ?", (round_id,))
    conn.close()
    err = _audit(path, capsys)
    assert f"rounds row {round_id}: paid" in err and "changed outside the journal" in err
    conn = _db(path)
    conn.execute("UPDATE rounds SET paid = paid - 10000000000000 WHERE round_id = ?", (round_id,))
    conn.execute("UPDATE daily_totals SET paid = paid + 1")
    conn.close()
    assert "daily_totals row" in _audit(path, capsys)


def test_users_changed_outside_the_journal_are_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.auth import User
    from engine.store.users import add_user

    path, _ = _played(tmp_path)
    with open_store(str(path), table="T1") as store:
        add_user(store, "ada", "admin", "482913", by=None)
        add_user(store, "cora", "croupier", "482913", by=User("ada", "admin"))
    assert main(["audit", "verify", "--db", str(path)]) == 0
    conn = _db(path)
    conn.execute("UPDATE users SET role = 'admin' WHERE name = 'cora'")  # a croupier promoted
    conn.close()
    assert "users row cora: role is admin, the journal says croupier" in _audit(path, capsys)
    conn = _db(path)
    conn.execute("UPDATE users SET role = 'croupier' WHERE name = 'cora'")
    conn.execute(
        "INSERT INTO users (name, role, pin_hash, disabled, failures, created_at) "
        "SELECT 'mallory', 'admin', pin_hash, 0, 0, created_at FROM users WHERE name = 'ada'"
    )  # an admin inserted with a hash copied from a row
    conn.close()
    assert "users row mallory (admin) is in no journal entry" in _audit(path, capsys)


def test_a_crashed_session_rolled_back_to_its_first_signed_head_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The witness follows the table's own appends (not only starts and clean closes): a session that
    crashed, then had its entries cut back to the genuinely signed head it started from, fails."""
    monkeypatch.setattr(keys, "WITNESS_EVERY", 0.0)  # every append moves the witness (else every 0.25 s)
    path = tmp_path / "table.sqlite"

    async def crashed_session() -> tuple[int, str, str]:
        with open_store(str(path), table="T1") as store:
            svc = make_service(store)  # no claim: closing the store leaves no shutdown checkpoint
            await svc.start()
            conn = _db(path)
            signed = conn.execute("SELECT seq, hash, sig FROM chain_heads").fetchone()
            conn.close()
            await svc.open_bets(CROUPIER)
            await cover_everything(svc)
            return signed  # the process dies here: no close

    seq, hash_, sig = run(crashed_session())
    conn = _db(path)
    conn.execute("DELETE FROM journal WHERE seq > ?", (seq,))
    conn.execute("DELETE FROM checkpoints WHERE seq > ?", (seq,))
    conn.execute("UPDATE chain_heads SET seq = ?, hash = ?, sig = ?", (seq, hash_, sig))
    conn.close()
    err = _audit(path, capsys)  # before: OK (the witness still named the head the session started on)
    assert f"entry {seq + 1}:" in err and "truncated or rolled back" in err
