"""rounds: index on (opened_at, table_id, round_id) for listing and exporting every table in time order

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 15:20:00
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rounds_time_table_round", "rounds", ["opened_at", "table_id", "round_id"])


def downgrade() -> None:
    op.drop_index("ix_rounds_time_table_round", table_name="rounds")
