"""Store test fixtures: a fresh SQLite store per test, and the PostgreSQL one when DRR_TEST_PG_URL is set."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.store import Store, open_store

PG_URL = os.environ.get("DRR_TEST_PG_URL")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "table.sqlite"), table="T1") as s:
        yield s


@pytest.fixture
def table_id() -> str:
    """A table id no other test (or test run sharing the PostgreSQL database) uses."""
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def central_url(tmp_path: Path) -> str:
    """The floor database: the real PostgreSQL when DRR_TEST_PG_URL is set, else a second SQLite file."""
    return PG_URL or f"sqlite:///{tmp_path / 'central.sqlite'}"


@pytest.fixture
def pg_or_sqlite_store(central_url: str) -> Iterator[Store]:
    with open_store(central_url) as s:
        yield s
