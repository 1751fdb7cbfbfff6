"""Table-service test fixtures: a fresh store per test — SQLite, and also the real PostgreSQL (in a
schema of its own, dropped afterwards) when DRR_TEST_PG_URL is set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.store import Store, open_store
from tests.pg_schema import PG_URL, pg_schema_url

BACKENDS = ["sqlite", "postgresql"] if PG_URL else ["sqlite"]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        with open_store(str(tmp_path / "table.sqlite"), table="T1") as s:
            yield s
        return
    with pg_schema_url("drr_table") as url, open_store(url, table="T1") as s:
        yield s
