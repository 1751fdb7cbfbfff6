"""Issue 29 (6): `drr backup DIR` / `drr restore DIR` — a consistent copy of a table's store with its key
and witness and a manifest of digests, put back verified; a restore behind the witness is a rollback."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.store import keys, open_store
from engine.store.backup import MANIFEST, STORE_FILE, backup, read_manifest, restore
from engine.store.verify import verify
from gui.cli import main
from tests.table.helpers import CROUPIER, PITBOSS, cover_everything, make_service

TABLE = "T1"


async def _rounds(path: Path, n: int) -> None:
    with open_store(str(path), table=TABLE) as store:
        svc = make_service(store)
        await svc.start()
        for _ in range(n):
            await svc.open_bets(CROUPIER)
            await cover_everything(svc)
            await svc.void(PITBOSS, "test round")
            await svc.next_round(CROUPIER)
        await svc.close()


def _head(path: Path) -> tuple[int, str]:
    with open_store(str(path), table=TABLE, migrate=False) as store:
        report = verify(store, TABLE)
    assert report.ok, report.problem
    return report.tables[TABLE]


def test_backup_writes_a_verified_copy_key_witness_and_manifest(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(_rounds(path, 2))
    done = backup(path, TABLE, tmp_path / "b")
    assert (done.entries, done.head) == _head(path)
    manifest = json.loads((tmp_path / "b" / MANIFEST).read_text())
    assert manifest["format"] == "drr-backup/1" and manifest["table"] == TABLE
    assert set(manifest["files"]) == {"store.sqlite", "table.key", "table.head"}
    for name in manifest["files"]:
        assert (tmp_path / "b" / name).stat().st_mode & 0o077 == 0, name  # the key is in there
    key = keys.load(str(path), TABLE)
    assert key is not None and manifest["key_fingerprint"] == keys.fingerprint(key.public)
    # The original's witness was not moved by verifying the copy.
    assert keys.load(str(path), TABLE) == key


def test_backup_while_the_table_is_open_is_a_consistent_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(_rounds(path, 1))

    async def during() -> None:
        with open_store(str(path), table=TABLE) as store:
            svc = make_service(store)
            await svc.start()
            await svc.open_bets(CROUPIER)
            await cover_everything(svc)  # written, in the -wal, the station still running
            done = backup(path, TABLE, tmp_path / "b")
            assert done.entries == store.journal.head(TABLE)[0]
            await svc.void(PITBOSS, "test round")
            await svc.close()

    asyncio.run(during())
    with open_store(str(tmp_path / "b" / STORE_FILE), table=TABLE, migrate=False) as copy:
        rows = copy.engine.connect().exec_driver_sql("PRAGMA integrity_check").scalar()
    assert rows == "ok"


def test_restore_after_the_table_pc_lost_store_and_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(_rounds(path, 2))
    head = _head(path)
    backup(path, TABLE, tmp_path / "b")
    # A new PC: another key folder, no store; the backup goes back to another path.
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "new-keys"))
    target = tmp_path / "new" / "table.sqlite"
    done = restore(tmp_path / "b", target, TABLE)
    assert done.key_restored and done.moved_aside is None
    assert done.problem is None and done.verified.tables[TABLE] == head
    asyncio.run(_rounds(target, 1))  # the table plays on, signed by the same key
    key = keys.load(str(target), TABLE)
    assert (
        key is not None
        and keys.fingerprint(key.public)
        == json.loads((tmp_path / "b" / MANIFEST).read_text())["key_fingerprint"]
    )
    assert _head(target)[0] > head[0]


def test_restore_behind_the_witness_is_a_rollback_and_keeps_the_store_it_replaced(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(_rounds(path, 1))
    backup(path, TABLE, tmp_path / "b")
    asyncio.run(_rounds(path, 1))
    later = path.read_bytes()
    done = restore(tmp_path / "b", path, TABLE)
    assert not done.key_restored
    assert done.problem is not None and "rolled back" in done.problem and "drr db quarantine" in done.problem
    assert done.moved_aside is not None and done.moved_aside.read_bytes() == later  # kept untouched
    # The table refuses to start on it, as on any rollback.
    with pytest.raises(DrrError, match="rolled back"), open_store(str(path), table=TABLE) as store:
        asyncio.run(make_service(store).start())


def test_a_changed_backup_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(_rounds(path, 1))
    backup(path, TABLE, tmp_path / "b")
    store_file = tmp_path / "b" / STORE_FILE
    data = bytearray(store_file.read_bytes())
    data[-100] ^= 1
    store_file.write_bytes(bytes(data))
    with pytest.raises(DrrError, match=r"store\.sqlite does not match its digest"):
        read_manifest(tmp_path / "b")
    before = path.read_bytes()
    with pytest.raises(DrrError, match="does not match"):
        restore(tmp_path / "b", path, TABLE)
    assert path.read_bytes() == before  # nothing was replaced


def test_restore_refused_while_the_table_runs(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(_rounds(path, 1))
    backup(path, TABLE, tmp_path / "b")
    with open_store(str(path), table=TABLE) as store:
        claim = store.claim(TABLE)
        with pytest.raises(DrrError, match="in use by"):
            restore(tmp_path / "b", path, TABLE)
        claim.release()
    assert not list(tmp_path.glob("table.sqlite.before-restore-*"))


def test_backup_refuses_a_folder_in_use_and_a_store_without_its_key(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(_rounds(path, 1))
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "other").write_text("x")
    with pytest.raises(DrrError, match="not empty"):
        backup(path, TABLE, tmp_path / "b")
    key = keys.load(str(path), TABLE)
    assert key is not None
    os.rename(key.path, tmp_path / "moved.key")
    with pytest.raises(DrrError, match="no key file"):
        backup(path, TABLE, tmp_path / "c")
    assert not (tmp_path / "c" / MANIFEST).exists()


def test_the_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(_rounds(path, 1))
    assert main(["backup", str(tmp_path / "b"), "--db", str(path), "--table", TABLE, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["table"] == TABLE and out["head"]["seq"] == _head(path)[0]
    assert main(["restore", str(tmp_path / "b"), "--db", str(path)]) == 0
    assert "verifies" in capsys.readouterr().out
    assert main(["restore", str(tmp_path / "nothing"), "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert "holds no manifest.json" in err and "Traceback" not in err
    assert (
        main(["backup", str(tmp_path / "p"), "--db", "postgresql://x@127.0.0.1/none", "--table", TABLE]) == 1
    )
    assert "pg_dump" in capsys.readouterr().err


def test_config_show_names_the_key_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "show", "--json"]) == 0
    derived = json.loads(capsys.readouterr().out)["derived"]
    assert derived["key_dir"] == str(keys.key_dir())
