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
        return
    if not migrate:
        raise DrrError(
            f"{store.where} has schema {current or 'none'}, this program needs {head}: "
            f"run drr db upgrade --db {store.where}"
        )
    store.upgraded_from = current or "empty"
    upgrade(store)
