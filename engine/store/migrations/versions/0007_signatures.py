"""chain_heads.sig, checkpoints.sig: the table key's Ed25519 signature over (table, seq, hash)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 11:40:00

Existing heads and checkpoints stay unsigned (NULL): the table signs its head on its next append
(engine.store.keys, docs/journal-evidence.md).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("chain_heads", "checkpoints"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("sig", sa.String(128), nullable=True))


def downgrade() -> None:
    for table in ("chain_heads", "checkpoints"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("sig")
