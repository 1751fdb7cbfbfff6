"""tools/postgres.sh, which `make test` and `make bench-scale` run before using the local PostgreSQL:
silent when it runs, one line naming what to install when there is none to start."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.pg_schema import PG_URL

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


@pytest.mark.skipif(PG_URL is None, reason="needs DRR_TEST_PG_URL (a real PostgreSQL)")
def test_with_postgresql_running_it_says_nothing() -> None:
    done = subprocess.run(["/bin/bash", str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
