"""journal.mac: each entry's HMAC-SHA256 over its hash, by the table key's MAC key

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 13:00:00

Existing entries stay without a MAC (NULL): they keep the hash chain and the signed checkpoints and
head; every entry appended from the next start on carries one (engine.store.keys,
docs/journal-evidence.md).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("journal") as batch:
        batch.add_column(sa.Column("mac", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("journal") as batch:
        batch.drop_column("mac")
