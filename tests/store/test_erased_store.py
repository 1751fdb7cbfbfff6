"""Issue 23 finding 9: a table's SQLite file truncated to 0 bytes, where the witness knows entries, is
refused at start like any rollback (nothing written into it) and the quarantine procedure takes it."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.errors import DrrError
from engine.store import open_store
from gui.cli import main


@pytest.fixture(autouse=True)
def _own_dirs(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "keys"))
    monkeypatch.delenv("DRR_CONFIG", raising=False)


def _run(db: Path) -> int:
    args = ["table", "run", "--headless", "--wheel", "sim", "--speed", "250", "--rounds", "1"]
    return main([*args, "--db", str(db), "--table", "T1"])


def _erase(db: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with db.open("r+b") as f:
        f.truncate(0)


def test_a_store_erased_to_0_bytes_does_not_start_as_a_new_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "t.sqlite"
    assert _run(db) == 0
    capsys.readouterr()
    _erase(db)
    assert _run(db) != 0
    err = capsys.readouterr().err
    assert "empty (0 bytes)" in err and "drr db quarantine" in err and "journal-evidence.md" in err
    assert "Traceback" not in err
    assert db.stat().st_size == 0  # the evidence stays as it was: no schema written into it
    with pytest.raises(DrrError, match="0 bytes"):
        open_store(str(db), table="T1")
    assert db.stat().st_size == 0
    # The audit says so too, and still writes nothing.
    assert main(["audit", "verify", "--db", str(db), "--table", "T1"]) != 0
    assert db.stat().st_size == 0


def test_the_quarantine_procedure_takes_the_erased_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "t.sqlite"
    assert _run(db) == 0
    _erase(db)
    assert main(["db", "quarantine", "--db", str(db), "--table", "T1", "--user", "sam"]) == 0
    capsys.readouterr()
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("t.sqlite.quarantined-")]
    assert len(moved) == 1 and moved[0].stat().st_size == 0
    with open_store(str(db), table="T1") as store:
        first = next(iter(store.journal.entries("T1")))
    assert first.type == "table.quarantined"
    payload = json.loads(first.payload_text)
    assert payload["damaged_sha256"] == hashlib.sha256(b"").hexdigest()
    assert "0 bytes" in payload["problem"]
    assert _run(db) == 0  # the new store, linked to the erased one, plays on


def test_a_0_byte_file_no_witness_knows_is_a_new_store(tmp_path: Path) -> None:
    db = tmp_path / "new.sqlite"
    db.touch()
    assert _run(db) == 0
    assert os.path.getsize(db) > 0
