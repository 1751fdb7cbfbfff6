"""Issue 24 finding 6: the witness MAC'd whole, a missing witness or key named in words by the start and
by `drr audit verify`, and a rollback of store and witness together caught by the floor's copy."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.store import keys, open_store
from engine.store.forward import ChainDivergence, Forwarder
from engine.store.verify import verify
from gui.cli import main
from tests.table.helpers import make_service, voided_session


def _files(path: Path) -> tuple[Path, Path]:
    key = keys.key_path(str(path), "T1")
    return key, keys.witness_path(key)


def _snapshot(path: Path, into: Path) -> None:
    """A copy of the store and of the key directory's files of its table (what an insider keeps)."""
    into.mkdir()
    key, witness = _files(path)
    for src in (path, key, witness):
        shutil.copy2(src, into / src.name)


def _roll_back(path: Path, snapshot: Path, *, witness: bool, key: bool = False) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copy2(snapshot / path.name, path)
    key_file, witness_file = _files(path)
    if witness:
        shutil.copy2(snapshot / witness_file.name, witness_file)
    if key:
        shutil.copy2(snapshot / key_file.name, key_file)
    keys._CACHE.clear()


def _refused(path: Path) -> str:
    before = path.read_bytes()
    with open_store(str(path), table="T1") as store, pytest.raises(DrrError) as caught:
        asyncio.run(make_service(store).start())
    assert path.read_bytes() == before
    return str(caught.value)


def _audit_fails(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def test_a_witness_edited_to_match_a_rolled_back_store_fails_its_mac(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: only `verified` was MAC'd: the store rolled back to an earlier copy and the witness's
    `high_water` and `checkpoint` edited to that copy's head passed verification and started."""
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 1))
    early = tmp_path / "early"
    _snapshot(path, early)
    old_witness = json.loads((early / _files(path)[1].name).read_text())
    asyncio.run(voided_session(path, 1))
    _roll_back(path, early, witness=False)
    _, witness_file = _files(path)
    witness = json.loads(witness_file.read_text())
    # The insider's edit: the witness's head and checkpoint put back to the early copy's (MAC kept).
    witness["high_water"], witness["checkpoint"] = old_witness["high_water"], old_witness["checkpoint"]
    witness["verified"] = None
    witness_file.write_text(json.dumps(witness))
    keys._CACHE.clear()
    err = _audit_fails(path, capsys)
    assert "witness" in err and "fails its MAC" in err, err
    assert "fails its MAC" in _refused(path)


def test_a_deleted_witness_beside_a_journal_refuses_the_start_and_the_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the witness deleted, verify said OK and the start re-created it knowing nothing."""
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 1))
    _, witness_file = _files(path)
    witness_file.unlink()
    keys._CACHE.clear()
    err = _audit_fails(path, capsys)
    assert "witness" in err and "is missing" in err and "backup" in err, err
    message = _refused(path)
    assert "witness" in message and "is missing" in message and "does not start" in message, message
    assert not witness_file.exists(), "the refused start re-created the witness"


def test_a_deleted_key_file_fails_the_audit_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: `drr audit verify` exited 0 with "key not pinned" (the chain checked against its own key)."""
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 1))
    key_file, _ = _files(path)
    key_file.unlink()
    keys._CACHE.clear()
    err = _audit_fails(path, capsys)
    assert "key file" in err and "is missing" in err and "rewritten" not in err, err
    message = _refused(path)
    assert "key file" in message and "is missing" in message and "rewritten" not in message
    assert not key_file.exists()


def test_a_new_table_writes_its_witness_with_its_key(tmp_path: Path) -> None:
    """The witness exists from the key's creation: its absence later is a deletion, not a new table."""
    key = keys.create(str(tmp_path / "t.sqlite"), "T1")
    assert keys.witness_path(key.path).exists()
    assert keys.load(str(tmp_path / "t.sqlite"), "T1").witness_state == "ok"  # type: ignore[union-attr]


def test_store_and_witness_rolled_back_together_are_caught_by_the_floors_copy(
    tmp_path: Path, central_url: str
) -> None:
    """Store, key and witness copied back together verify locally (nothing on the PC knows better);
    the floor's copy holds the table's later signed head: the forwarder stops with a critical alert
    saying the floor's copy decides, before the reused round ids reach the floor."""
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 1))
    with open_store(str(path), table="T1") as local, open_store(central_url) as central:
        Forwarder(local, central, ["T1"]).forward_once()
    early = tmp_path / "early"
    _snapshot(path, early)
    asyncio.run(voided_session(path, 1))
    with open_store(str(path), table="T1") as local, open_store(central_url) as central:
        Forwarder(local, central, ["T1"]).forward_once()
    _roll_back(path, early, witness=True, key=True)
    with open_store(str(path), table="T1") as local:
        assert verify(local, "T1").ok  # the residual risk: locally, nothing is left to tell
    asyncio.run(voided_session(path, 1))  # the table deals again, on the rolled-back chain
    with open_store(str(path), table="T1") as local, open_store(central_url) as central:
        with pytest.raises(ChainDivergence) as stopped:
            Forwarder(local, central, ["T1"]).forward_once()
        message = str(stopped.value)
        assert "signed by the table's key" in message and "The floor's copy decides" in message, message
        assert "quarantine" in message
        alerts = [dict(e.payload) for e in central.journal.entries("floor") if e.type == "alert.raised"]
        assert [(a["kind"], a["severity"]) for a in alerts] == [("chain_divergence", "critical")]
        assert "floor's copy decides" in str(alerts[0]["message"])
        assert verify(central, "T1").ok  # the floor's copy of the genuine chain stands


def test_an_older_install_s_witness_is_read_then_macd_and_a_stripped_mac_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A version-1 key file's witness (written before witnesses were MAC'd whole) is read as it is;
    its next update MACs it and marks the key file, so stripping the MAC afterwards does not pass."""
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 1))
    key_file, witness_file = _files(path)
    data = json.loads(key_file.read_text())
    data["version"] = 1
    key_file.write_text(json.dumps(data))
    witness = json.loads(witness_file.read_text())
    del witness["mac"], witness["rounds"]
    witness_file.write_text(json.dumps(witness))
    keys._CACHE.clear()
    assert keys.load(str(path), "T1").witness_state == "legacy"  # type: ignore[union-attr]
    asyncio.run(voided_session(path, 1))  # the old install plays on: its witness is MAC'd from now on
    keys._CACHE.clear()
    assert keys.load(str(path), "T1").witness_state == "ok"  # type: ignore[union-attr]
    assert json.loads(key_file.read_text())["version"] == keys.WITNESS_MAC_VERSION
    witness = json.loads(witness_file.read_text())
    del witness["mac"]
    witness_file.write_text(json.dumps(witness))
    keys._CACHE.clear()
    assert "fails its MAC" in _audit_fails(path, capsys)
