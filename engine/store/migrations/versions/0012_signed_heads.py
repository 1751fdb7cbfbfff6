"""signed_heads: the table heads (with their signatures) a floor store received from the forwarders

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 13:10:00

Empty at first: the forwarder fills it from the next head it forwards (engine.store.signed_heads).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signed_heads",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("sig", sa.String(length=128), nullable=False),
        sa.Column("received_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_signed_heads")),
    )


def downgrade() -> None:
    op.drop_table("signed_heads")
