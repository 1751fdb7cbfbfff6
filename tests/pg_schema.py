"""The PostgreSQL of DRR_TEST_PG_URL for tests: a schema of its own per test, dropped afterwards, since
the `test` database is shared by every test (and every run) that uses it."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

# Read at import, after tests/conftest.py has set it (make test: the machine's server; else the session's
# embedded one, tests/pg_embedded.py).
PG_URL = os.environ.get("DRR_TEST_PG_URL") or None


@contextmanager
def pg_schema_url(prefix: str) -> Iterator[str]:
    """A URL to DRR_TEST_PG_URL whose search_path is a fresh schema named `prefix`_<random>."""
    assert PG_URL is not None, "pg_schema_url needs DRR_TEST_PG_URL"
    import sqlalchemy as sa

    from engine.store.db import resolve_url

    schema_name = f"{prefix}_{uuid.uuid4().hex[:12]}"
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
