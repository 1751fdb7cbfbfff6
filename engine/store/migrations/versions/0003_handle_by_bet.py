"""handle by kind of bet: rounds.handle and the daily_handle aggregate, for the theoretical hold

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 15:25:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("handle", sa.Text(), nullable=True))
    op.create_table(
        "daily_handle",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("bet", sa.String(length=16), nullable=False),
        sa.Column("wagered", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "day", "bet", name=op.f("pk_daily_handle")),
    )


def downgrade() -> None:
    op.drop_table("daily_handle")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("handle")
