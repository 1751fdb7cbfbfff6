"""Alembic revision scripts of the store schema, oldest first."""
