"""Alembic environment: always run programmatically with a connection handed in by engine.store.migrate."""

from __future__ import annotations

from alembic import context

from engine.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through `drr db upgrade` (engine.store.migrate), not the alembic CLI")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
