"""rounds: the wagered sort's indexes hold only rounds no longer open; ix_rounds_open finds the open ones

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 23:30:00

Since 0011 an open round's `wagered` is updated at every wager placed or taken back, and each update
rewrote the three indexes holding it (ix_rounds_wagered, ix_rounds_table_wagered,
ix_rounds_result_wagered): 3 of a wager append's 8 written pages (issue 28). Made partial on
`status != 'open'` they are written when a round closes, settles or is voided, not at every chip; the
history browser's sort by wagered adds the open rounds, which ix_rounds_open (partial on
`status = 'open'`, never written by a wager) finds, to the page it walks (engine.floor.history_page).
The rows are unchanged: only indexes, so old journals verify and a rebuild gives the same rows.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def _result_key() -> sa.ColumnElement[int]:
    return sa.func.coalesce(sa.column("result", sa.Integer), sa.literal_column("-1"))


def _columns() -> dict[str, list[Any]]:
    """Each index's columns, as 0010 and 0013 made them (engine.store.schema at this revision)."""
    tail: list[Any] = [sa.column("table_id"), sa.column("round_id")]
    return {
        "ix_rounds_wagered": [sa.column("wagered"), *tail],
        "ix_rounds_table_wagered": [sa.column("table_id"), sa.column("wagered"), sa.column("round_id")],
        "ix_rounds_result_wagered": [_result_key(), sa.column("wagered"), *tail],
    }


def _status(op_: str) -> sa.ColumnElement[bool]:
    # engine.store.schema.NOT_OPEN / OPEN: the value a literal, as the partial index's predicate is written
    return sa.literal_column(f"status {op_} 'open'", sa.Boolean)  # type: ignore[return-value]


def upgrade() -> None:
    for name, columns in _columns().items():
        op.drop_index(name, table_name="rounds")
        op.create_index(name, "rounds", columns, sqlite_where=_status("!="), postgresql_where=_status("!="))
    op.create_index(
        "ix_rounds_open",
        "rounds",
        ["table_id", "round_id"],
        sqlite_where=_status("="),
        postgresql_where=_status("="),
    )


def downgrade() -> None:
    op.drop_index("ix_rounds_open", table_name="rounds")
    for name, columns in _columns().items():
        op.drop_index(name, table_name="rounds")
        op.create_index(name, "rounds", columns)
