"""A station moves a key's witness from two threads (the alerts' reader and the GUI): every update is
whole, none fails, and the witness reads back afterwards."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from engine.store import keys


def test_witness_updates_from_many_threads_at_once_never_fail_or_tear(tmp_path: Path) -> None:
    where = str(tmp_path / "station.sqlite")
    key, _ = keys.ensure(where, "floor")
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def move() -> None:
        start.wait()
        for _ in range(150):
            try:
                keys.update(key, journaled=True)
            except BaseException as exc:  # every failure is the finding
                errors.append(exc)

    threads = [threading.Thread(target=move) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert keys.load(where, "floor") is not None and keys.load(where, "floor").journaled  # type: ignore[union-attr]
    assert not list(tmp_path.glob("*.tmp*")) and not list(keys.key_path(where, "floor").parent.glob("*.tmp*"))


def test_an_absolute_key_directory_needs_no_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A station whose working folder was removed still finds its keys (was: FileNotFoundError)."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "keys"))
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert keys.key_dir() == tmp_path / "keys"
