"""tools/postgres.sh, which `make test` and `make bench-scale` run before using the local PostgreSQL:
silent when it runs, one line naming what to install when there is none to start."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "postgres.sh"


def test_with_no_postgresql_to_start_it_names_what_to_install(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "pg_isready").write_text("#!/bin/sh\nexit 2\n")  # nothing answers at 127.0.0.1:5432
    (fake / "pg_isready").chmod(0o755)
    done = subprocess.run(
        ["/bin/bash", str(SCRIPT)], env={"PATH": str(fake)}, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "PostgreSQL is not running at 127.0.0.1:5432" in lines[0]
    assert "sudo apt-get install -y postgresql" in lines[0]
    assert done.stdout == ""


def _fake_tools(tmp_path: Path, *, ready: bool) -> dict[str, str]:
    """PATH with stand-ins for PostgreSQL's client tools: the script's logic, whatever server this
    machine has (the tests' own may be an embedded one on a Unix socket, not 127.0.0.1:5432)."""
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, body in {
        "pg_isready": f"exit {0 if ready else 2}",
        "psql": "echo 1",  # the `test` database is there
        "createdb": "echo createdb should not run >&2; exit 1",
    }.items():
        (fake / name).write_text(f"#!/bin/sh\n{body}\n")
        (fake / name).chmod(0o755)
    return {"PATH": f"{fake}:/usr/bin:/bin"}


def test_with_postgresql_running_it_says_nothing(tmp_path: Path) -> None:
    env = _fake_tools(tmp_path, ready=True)
    done = subprocess.run(["/bin/bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_if_present_with_none_fails_silently(tmp_path: Path) -> None:
    """`make test` asks with --if-present: no server here means the tests start their own, not an error."""
    env = _fake_tools(tmp_path, ready=False)
    env["PATH"] = env["PATH"].split(":")[0]  # no pg_ctlcluster to start one either
    done = subprocess.run(
        ["/bin/bash", str(SCRIPT), "--if-present"], env=env, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "")


def test_the_tests_own_postgresql_starts_and_stops(tmp_path: Path) -> None:
    """The embedded server a machine with no PostgreSQL runs the floor tests on (tests/pg_embedded.py):
    it answers SQL, the store's migrations run on it, and it is gone afterwards."""
    import sqlalchemy as sa

    from engine.store import open_store
    from tests.pg_embedded import embedded_server

    with embedded_server(tmp_path / "pg") as url:
        engine = sa.create_engine(url)
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT 1")).scalar() == 1
        engine.dispose()
        with open_store(url, table="T1") as store:  # a fresh server: the migrations run on its own schema
            assert store.journal.head("T1") is None
    engine = sa.create_engine(url, connect_args={"connect_timeout": 2})
    with pytest.raises(sa.exc.OperationalError):
        engine.connect()
    engine.dispose()
