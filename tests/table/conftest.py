"""Table-service test fixtures: a fresh store per test — SQLite, and also the real PostgreSQL (in a
schema of its own, dropped afterwards) when DRR_TEST_PG_URL is set."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.store import Store, open_store

PG_URL = os.environ.get("DRR_TEST_PG_URL")
BACKENDS = ["sqlite", "postgresql"] if PG_URL else ["sqlite"]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        with open_store(str(tmp_path / "table.sqlite"), table="T1") as s:
            yield s
        return
    import sqlalchemy as sa

    from engine.store.db import resolve_url

    assert PG_URL is not None
    schema_name = f"drr_table_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(resolve_url(PG_URL))
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema_name}"'))
    url = sa.engine.make_url(resolve_url(PG_URL)).update_query_dict(
        {"options": f"-csearch_path={schema_name}"}
    )
    try:
        with open_store(url.render_as_string(hide_password=False), table="T1") as s:
            yield s
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema_name}" CASCADE'))
        admin.dispose()
