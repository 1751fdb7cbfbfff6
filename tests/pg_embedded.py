"""A PostgreSQL of the test session's own, for a machine with no server: pgserver (PostgreSQL's binaries in
a wheel from the package index), on a Unix socket, started by tests/conftest.py when DRR_TEST_PG_URL names
none. Kept apart from tests/pg_schema.py, which reads the URL when it is imported."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def embedded_server(data_dir: Path) -> Iterator[str]:
    """A fresh server with its data under `data_dir`, as a SQLAlchemy URL; stopped at the end."""
    with warnings.catch_warnings():
        # pgserver asks platformdirs for a runtime folder (at import) that it does not use for a socket
        # under data_dir; without XDG_RUNTIME_DIR (CI, root shells) platformdirs warns and uses /tmp.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import pgserver  # a test dependency; imported only when a session needs its own server

        server = pgserver.get_server(data_dir, cleanup_mode="stop")
    try:
        uri = server.get_uri()  # postgresql://postgres:@/postgres?host=<socket dir>
        yield uri.replace("postgresql://", "postgresql+psycopg://", 1)
    finally:
        server.cleanup()
