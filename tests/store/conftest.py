"""Store test fixtures: a fresh SQLite store per test, and the PostgreSQL one when DRR_TEST_PG_URL is set."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.store import Store, open_store
from tests.pg_schema import PG_URL, pg_schema_url


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "table.sqlite"), table="T1") as s:
        yield s


@pytest.fixture
def table_id() -> str:
    """A table id no other test (or test run sharing the PostgreSQL database) uses."""
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def central_url(tmp_path: Path) -> Iterator[str]:
    """The floor database: the real PostgreSQL when DRR_TEST_PG_URL is set (in a schema of its own, dropped
    afterwards, since the `test` database is shared), else a second SQLite file."""
    if PG_URL is None:
        yield f"sqlite:///{tmp_path / 'central.sqlite'}"
        return
    with pg_schema_url("drr_store") as url:
        yield url


@pytest.fixture
def central(central_url: str) -> Iterator[Store]:
    with open_store(central_url) as s:
        yield s
