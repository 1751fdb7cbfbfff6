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
def central_url(tmp_path: Path) -> Iterator[str]:
    """The floor database: the real PostgreSQL when DRR_TEST_PG_URL is set (in a schema of its own, dropped
    afterwards, since the `test` database is shared), else a second SQLite file."""
    if PG_URL is None:
        yield f"sqlite:///{tmp_path / 'central.sqlite'}"
        return
    import sqlalchemy as sa

    from engine.store.db import resolve_url

    schema_name = f"drr_store_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(resolve_url(PG_URL))
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema_name}"'))
    url = sa.engine.make_url(resolve_url(PG_URL)).update_query_dict(
        {"options": f"-csearch_path={schema_name}"}
    )
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema_name}" CASCADE'))
        admin.dispose()


@pytest.fixture
def central(central_url: str) -> Iterator[Store]:
    with open_store(central_url) as s:
        yield s
