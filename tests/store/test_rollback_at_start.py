"""Issue 24, finding 6: a table's store rolled back together with its key and witness (all three copied
back from an older backup) was caught only by the forwarder's next batch; the table itself started on
it and gave out round ids again. Now the start holds the table's chain against the newest head the floor
database holds signed by the table's key (engine.store.floor_witness): beyond the local journal, the
start is refused in one line; with the floor unreachable it says the check could not be made."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.store import Store, keys, open_store
from engine.store.forward import Forwarder
from engine.store.journal import Journal
from tests.table.helpers import make_service


def _start_and_close(store: Store) -> list[str]:
    async def go() -> list[str]:
        svc = make_service(store)
        await svc.start()
        warnings = list(svc.warnings)
        await svc.close()
        return warnings

    return asyncio.run(go())


def _files(store_path: Path) -> list[Path]:
    """The table PC's files an insider copies: the store (with its -wal/-shm), its key and witness."""
    where = str(store_path)
    key = keys.key_path(where, "T1")
    found = [p for p in store_path.parent.glob(store_path.name + "*")]
    return [*found, key, keys.witness_path(key)]


def _backup(store_path: Path, to: Path) -> None:
    to.mkdir()
    for p in _files(store_path):
        if p.exists():
            shutil.copy2(p, to / p.name)


def _put_back(store_path: Path, backup: Path) -> None:
    for p in _files(store_path):
        p.unlink(missing_ok=True)
        kept = backup / p.name
        if kept.exists():
            shutil.copy2(kept, p)
    keys._CACHE.clear()


def test_a_rollback_of_store_and_witness_is_refused_at_the_start_when_the_floor_is_reachable(
    tmp_path: Path, central_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "table.sqlite"
    with open_store(str(path), table="T1") as store:
        _start_and_close(store)
    _backup(path, tmp_path / "backup")  # the insider's older copy of store, key and witness
    with open_store(str(path), table="T1") as store, open_store(central_url) as central:
        _start_and_close(store)  # entries the backup does not have (a real table: rounds)
        assert Forwarder(store, central, ["T1"]).forward_once() > 0  # the floor holds the signed head
        floor_head = Journal(central).head("T1")
        assert floor_head is not None
    monkeypatch.setenv("DRR_FLOOR_URL", central_url)
    with open_store(str(path), table="T1") as store:  # forwarded and not rolled back: it starts
        assert _start_and_close(store) == []
    _put_back(path, tmp_path / "backup")
    with open_store(str(path), table="T1") as store:
        rolled_back = Journal(store).head("T1")
        assert rolled_back is not None and rolled_back[0] < floor_head[0]
        with pytest.raises(DrrError) as refused:
            asyncio.run(make_service(store).start())
        said = refused.value.message
        assert "\n" not in said and "rolled back" in said and "not started" in said, said
        assert f"the floor database holds entry {floor_head[0]} of this table's chain" in said
        assert "signed by the table's key" in said and "drr db quarantine" in said
        assert Journal(store).head("T1") == rolled_back  # nothing written on the rolled-back chain


def test_an_unreachable_floor_is_said_and_the_table_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRR_FLOOR_URL", "postgresql+psycopg://drr@127.0.0.1:1/floor")
    with open_store(str(tmp_path / "table.sqlite"), table="T1") as store:
        (note,) = _start_and_close(store)
    assert "could not be reached" in note and "not checked against the floor's copy" in note, note
    assert "\n" not in note


def test_a_floor_head_the_tables_key_did_not_sign_neither_stops_nor_clears_the_table(
    tmp_path: Path, central_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone with write access to the floor database only cannot stop a table by moving its head
    there: an unsigned floor head beyond the table's journal is not believed."""
    import sqlalchemy as sa

    path = tmp_path / "table.sqlite"
    with open_store(str(path), table="T1") as store, open_store(central_url) as central:
        _start_and_close(store)
        assert Forwarder(store, central, ["T1"]).forward_once() > 0
        with central.begin() as conn:
            conn.execute(sa.text("DELETE FROM signed_heads WHERE table_id = 'T1'"))
            conn.execute(
                sa.text("UPDATE chain_heads SET seq = seq + 50, hash = :h, sig = NULL WHERE table_id = 'T1'"),
                {"h": "e" * 64},
            )
    monkeypatch.setenv("DRR_FLOOR_URL", central_url)
    with open_store(str(path), table="T1") as store:
        assert _start_and_close(store) == []
