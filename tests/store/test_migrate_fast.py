"""A store at this program's schema opens without Alembic (issue 28: a third of a station's start)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.store import open_store
from engine.store.migrate import MIGRATIONS, alembic_config, current_revision, script_revisions

ROOT = Path(__file__).resolve().parents[2]


def test_the_scripts_revisions_read_from_their_text_are_alembics() -> None:
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(alembic_config())
    known, head = script_revisions()
    assert head == scripts.get_current_head()
    assert known == {rev.revision for rev in scripts.walk_revisions()}
    assert len(list((MIGRATIONS / "versions").glob("0*.py"))) == len(known)


def test_the_revision_read_with_one_select_is_alembics(tmp_path: Path) -> None:
    from alembic.runtime.migration import MigrationContext

    with open_store(str(tmp_path / "a.sqlite")) as store:
        with store.engine.connect() as conn:
            theirs = MigrationContext.configure(conn).get_current_revision()
        assert current_revision(store) == theirs == script_revisions()[1]
    empty = tmp_path / "empty.sqlite"
    import sqlite3

    sqlite3.connect(empty).close()
    import sqlalchemy as sa

    from engine.store.database import Database

    engine = sa.create_engine(f"sqlite:///{empty}")
    try:  # a file with no schema at all
        assert current_revision(Database(engine, str(engine.url), empty)) is None
    finally:
        engine.dispose()


def test_opening_a_current_store_imports_no_alembic(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    open_store(str(db)).close()  # the first open creates the schema (with Alembic)
    probe = (
        "import sys; from engine.store import open_store; "
        f"open_store({str(db)!r}).close(); "
        "print(sorted(m for m in ('alembic', 'mako') if m in sys.modules))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_importing_the_users_module_hashes_nothing() -> None:
    """The unknown-name PIN check's stand-in hash is made on first use, not when every station imports
    engine.store.users (0.1 s of scrypt at each start, issue 28)."""
    probe = (
        "import hashlib; calls = []; real = hashlib.scrypt\n"
        "hashlib.scrypt = lambda *a, **k: calls.append(1) or real(*a, **k)\n"
        "import engine.store.users\n"
        "print(len(calls))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "0", out.stdout + out.stderr
