"""money returned to players (winnings plus the stakes of winning wagers) beside paid (winnings only)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 15:35:00

Rounds settled before this revision get returned = paid (their stakes are not known here; `rebuild`
from the journal recomputes them exactly).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("rounds", "daily_totals"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("returned", sa.BigInteger(), nullable=False, server_default="0"))
        op.execute(f"UPDATE {table} SET returned = paid")


def downgrade() -> None:
    for table in ("rounds", "daily_totals"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("returned")
