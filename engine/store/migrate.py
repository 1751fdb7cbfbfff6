"""Schema migrations run from inside the program (Alembic, scripts in engine/store/migrations).

On a `Database` (engine.store.database): engine.store.db's `open_store` runs `ensure_current` on open.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from engine.errors import DrrError
from engine.store.database import Database, translate_errors

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(store: Database) -> str | None:
    with translate_errors(store.where), store.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(store: Database) -> tuple[str | None, str]:
    """Bring the store's schema to the newest revision in one transaction; returns (before, after)."""
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
    known = {rev.revision for rev in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
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
