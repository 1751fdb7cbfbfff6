"""rules_submissions: every Rules Submission a table loaded, by sha256; rounds.rules_sha256

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 10:20:00

Recall, approvals, reports and history take a round's rules by the sha256 it was opened under. The
table is back-filled from the journal's rules entries, which hold the full text (the same code the
projections run on append, engine.store.rules_store.backfill), and each round's sha256 from its
own `round.opened` entry (`rounds.seq` is that entry's seq; imported rounds have none).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from engine.entry_types import EntryType

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rules_submissions",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("first_time", sa.String(length=32), nullable=False),
        sa.Column("first_table", sa.String(length=64), nullable=False),
        sa.Column("first_seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_rules_submissions")),
    )
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("rules_sha256", sa.String(length=64), nullable=True))
    bind = op.get_bind()
    sha = (
        "journal.payload::json ->> 'rules_sha256'"
        if bind.dialect.name == "postgresql"
        else "json_extract(journal.payload, '$.rules_sha256')"
    )
    op.execute(
        sa.text(
            f"UPDATE rounds SET rules_sha256 = (SELECT {sha} FROM journal WHERE journal.table_id = "
            "rounds.table_id AND journal.seq = rounds.seq AND journal.type = :opened) WHERE source = 'table'"
        ).bindparams(opened=EntryType.ROUND_OPENED.value)
    )
    from engine.store.rules_store import backfill

    backfill(bind)


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("rules_sha256")
    op.drop_table("rules_submissions")
