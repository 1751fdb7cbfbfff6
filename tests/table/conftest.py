"""Table-service test fixtures: a fresh SQLite store per test and a service on it with a seeded RNG."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.store import Store, open_store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "table.sqlite"), table="T1") as s:
        yield s
