"""rounds: partial indexes for the "irregular only" filter and indexes for the sort by payout

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 16:10:00

At a million rounds the pit boss's history browser scanned every round to find the (few) irregular
ones (~2.4 s on SQLite) and sorted every round to order by payout (~0.2 s); with these a page is a
few milliseconds. The partial indexes' predicate is engine.store.schema.IRREGULAR's expression.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _irregular() -> sa.ColumnElement[bool]:
    irregularities = sa.column("irregularities", sa.Integer)
    manual = sa.column("manual", sa.Boolean)
    status = sa.column("status", sa.String)
    return sa.or_(irregularities > 0, manual.is_(True), status == "void")


def upgrade() -> None:
    where = _irregular()
    op.create_index(
        "ix_rounds_irregular",
        "rounds",
        ["opened_at", "table_id", "round_id"],
        sqlite_where=where,
        postgresql_where=where,
    )
    op.create_index(
        "ix_rounds_table_irregular",
        "rounds",
        ["table_id", "opened_at", "round_id"],
        sqlite_where=where,
        postgresql_where=where,
    )
    op.create_index("ix_rounds_paid", "rounds", ["paid", "table_id", "round_id"])
    op.create_index("ix_rounds_table_paid", "rounds", ["table_id", "paid", "round_id"])


def downgrade() -> None:
    names = ("ix_rounds_table_paid", "ix_rounds_paid", "ix_rounds_table_irregular", "ix_rounds_irregular")
    for name in names:
        op.drop_index(name, table_name="rounds")
