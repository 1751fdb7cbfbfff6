"""Shared test set-up: Qt runs offscreen, and the repository root is importable."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


import pytest


@pytest.fixture(autouse=True)
def _table_keys(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's table keys (engine.store.keys) in a key directory of its own, never the user's."""
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path_factory.mktemp("keys")))
