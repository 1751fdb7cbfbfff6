"""Schema migrations run from inside the program (Alembic, scripts in engine/store/migrations).

On a `Database` (engine.store.database): engine.store.db's `open_store` runs `ensure_current` on open.
A store already at this program's schema (every start but the first after an upgrade) is told so
without Alembic: its revision is read with one SELECT and the scripts' revisions from their text
(`script_revisions`), so Alembic, Mako and their imports (about a third of a station's start, issue
28) load only when a store must be upgraded or its revision is unknown.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from engine.errors import DrrError
from engine.store.database import Database, translate_errors

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_REVISION = re.compile(r'^revision\s*=\s*"([^"]+)"', re.MULTILINE)
_DOWN = re.compile(r'^down_revision\s*=\s*(?:"([^"]+)"|None)', re.MULTILINE)


def alembic_config() -> Config:
    from alembic.config import Config  # only to upgrade (see the module docstring)

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


@functools.cache
def script_revisions() -> tuple[frozenset[str], str]:
    """(every revision the scripts define, the head), read from the scripts' `revision =` and
    `down_revision =` lines; tests/store/test_migrate_fast.py holds this to Alembic's own reading."""
    revisions: dict[str, str | None] = {}
    for script in sorted((MIGRATIONS / "versions").glob("*.py")):
        text = script.read_text("utf-8")
        rev, down = _REVISION.search(text), _DOWN.search(text)
        if rev is None or down is None:
            continue  # not a revision script (__init__.py)
        revisions[rev.group(1)] = down.group(1)
    heads = set(revisions) - {d for d in revisions.values() if d is not None}
    if len(heads) != 1:
        raise DrrError(f"the program's migrations have {len(heads)} heads: {sorted(heads)}")
    return frozenset(revisions), heads.pop()


def head_revision() -> str:
    return script_revisions()[1]


def current_revision(store: Database) -> str | None:
    """The store's schema revision (alembic_version), None for an empty store."""
    with translate_errors(store.where), store.engine.connect() as conn:
        if not sa.inspect(conn).has_table("alembic_version"):
            return None
        rows = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(rows) > 1:
        raise DrrError(f"{store.where} names {len(rows)} schema revisions: {sorted(rows)}")
    return rows[0] if rows else None


def upgrade(store: Database) -> tuple[str | None, str]:
    """Bring the store's schema to the newest revision in one transaction; returns (before, after)."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    cfg = alembic_config()
    with store.begin() as conn:
        if not store.is_sqlite:
            # Two stations upgrading the shared database at once: the second waits, then finds it done.
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(617012)"))
        before = MigrationContext.configure(conn).get_current_revision()
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    return before, head_revision()


def ensure_current(store: Database, *, migrate: bool, allow_older: bool = False) -> None:
    """Upgrade (with `migrate`) or refuse a store whose schema is not this program's. `allow_older`
    accepts any older schema this program knows, for readers of the journal tables only (the audit):
    those have not changed since the first schema, and an audit must not have to alter its evidence."""
    current = current_revision(store)
    head = head_revision()
    if current == head:
        return
    known = script_revisions()[0]
    if current is not None and current not in known:
        raise DrrError(f"{store.where} has schema {current}, newer than this program knows; upgrade drr")
    if allow_older and current is not None:
        read_as_today(store)
        return
    if not migrate:
        raise DrrError(
            f"{store.where} has schema {current or 'none'}, this program needs {head}: "
            f"run drr db upgrade --db {store.where}"
        )
    store.upgraded_from = current or "empty"
    upgrade(store)


def _missing(conn: sa.Connection) -> dict[str, tuple[list[str], list[str]]]:
    """Each table of today's schema the store's older one lacks or lacks columns of: (the columns
    it has, the columns it lacks)."""
    from engine.store import schema

    inspector = sa.inspect(conn)
    present = set(inspector.get_table_names())
    out: dict[str, tuple[list[str], list[str]]] = {}
    for table in schema.metadata.sorted_tables:
        want = [c.name for c in table.columns]
        have = {c["name"] for c in inspector.get_columns(table.name)} if table.name in present else set()
        lacking = [c for c in want if c not in have]
        if lacking:
            out[table.name] = ([c for c in want if c in have], lacking)
    return out


def read_as_today(store: Database) -> None:
    """An older schema read as it is (issue 24, finding 11): on every connection of this store, a
    temporary view of today's name and columns stands in front of each table the old schema lacks
    or lacks columns of — a column it did not have reads as NULL (an entry without a MAC, a head
    without a signature: what that schema wrote), a table it did not have as empty. Nothing is
    written to the store: temporary views live in the connection (SQLite's `temp` and PostgreSQL's
    `pg_temp` are searched before the store's own tables), so an audit does not alter its evidence."""
    with translate_errors(store.where), store.engine.connect() as conn:
        missing = _missing(conn)
        where = None if store.is_sqlite else str(conn.execute(sa.text("SELECT current_schema()")).scalar())
    if not missing:
        return

    def views(dbapi_conn: object, _record: object) -> None:
        cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
        for name, (have, lacking) in missing.items():
            cols = [f'"{c}"' for c in have] + [f'NULL AS "{c}"' for c in lacking]
            source = f'main."{name}"' if store.is_sqlite else f'"{where}"."{name}"'
            body = (
                f"SELECT {', '.join(cols)} FROM {source}" if have else f"SELECT {', '.join(cols)} WHERE 1 = 0"
            )
            cur.execute(f'CREATE TEMP VIEW "{name}" AS {body}')
        cur.close()
        if not store.is_sqlite:
            dbapi_conn.commit()  # type: ignore[attr-defined]

    sa.event.listen(store.engine, "connect", views)
    store.engine.dispose()  # the connections opened so far have no views: new ones do
