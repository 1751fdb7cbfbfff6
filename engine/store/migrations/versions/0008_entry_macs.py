"""journal.mac: each entry's HMAC-SHA256 over its hash, by the table key's MAC key; ix_journal_seed

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 13:00:00

Existing entries stay without a MAC (NULL): they keep the hash chain and the signed checkpoints and
head; every entry appended from the next start on carries one (engine.store.keys,
docs/journal-evidence.md). ix_journal_seed: a partial index on the few entries a restart seeds
its state from (engine.table.recovery), so a restart does not read a years-long journal;
ix_rounds_table_source_status: the restart's count of rounds by status from the index alone.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


# engine.store.schema.SEED_TYPES as it was at this revision
_SEED = (
    "type IN ('table.rules_loaded', 'bonus.preset_set', 'table.settings_changed', 'table.dealer_changed', "
    "'table.quarantined', 'rules.changed')"
)


def upgrade() -> None:
    with op.batch_alter_table("journal") as batch:
        batch.add_column(sa.Column("mac", sa.String(64), nullable=True))
    op.create_index(
        "ix_journal_seed",
        "journal",
        ["table_id", "seq"],
        sqlite_where=sa.text(_SEED),
        postgresql_where=sa.text(_SEED),
    )
    op.create_index("ix_rounds_table_source_status", "rounds", ["table_id", "source", "status"])


def downgrade() -> None:
    op.drop_index("ix_rounds_table_source_status", table_name="rounds")
    op.drop_index("ix_journal_seed", table_name="journal")
    with op.batch_alter_table("journal") as batch:
        batch.drop_column("mac")
