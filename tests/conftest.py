"""Shared test set-up: Qt runs offscreen, and the repository root is importable."""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# No byte-code caches in the program's folders, whoever runs pytest (make test sets the variable too):
# a cache is a file of the program (engine.software_id), and the `drr` subprocesses inherit the setting.
sys.dont_write_bytecode = True
os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")


import pytest  # noqa: E402 - after the byte-code setting


@pytest.fixture(autouse=True)
def _table_keys(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's table keys (engine.store.keys) in a key directory of its own, never the user's."""
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path_factory.mktemp("keys")))
