"""journal.signer, journal.sig: each floor-chain entry of a PostgreSQL floor database signed by its
writer; ix_journal_keying: the floor chain's root key and enrolments

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 16:00:00

Existing entries stay unsigned (NULL): the floor chain is signed from its `chain.keyed` entry on, whose
root signature covers every entry before it (engine.store.floor_sign, docs/journal-evidence.md).
Table chains and SQLite stores leave both columns NULL.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# engine.store.schema.KEYING_TYPES as it was at this revision
_KEYING = "type IN ('chain.keyed', 'chain.writer_enrolled')"


def upgrade() -> None:
    with op.batch_alter_table("journal") as batch:
        batch.add_column(sa.Column("signer", sa.String(64), nullable=True))
        batch.add_column(sa.Column("sig", sa.String(128), nullable=True))
    op.create_index(
        "ix_journal_keying",
        "journal",
        ["table_id", "seq"],
        sqlite_where=sa.text(_KEYING),
        postgresql_where=sa.text(_KEYING),
    )


def downgrade() -> None:
    op.drop_index("ix_journal_keying", table_name="journal")
    with op.batch_alter_table("journal") as batch:
        batch.drop_column("sig")
        batch.drop_column("signer")
