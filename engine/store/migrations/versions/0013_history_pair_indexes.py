"""rounds: an index per (filter, sort) pair of the history browser where a filter leaves a few percent

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 16:20:00

Over every table, "result = n", "bonus hit: yes" and "irregular only" leave 1–3% of a million rounds
(too many to sort for one page, too few to find quickly along another sort's index) and "lucky hit:
no" sorted by payout skips every large payout (they are all lucky hits): 120–712 ms a page on SQLite.
With these a page reads only matching rounds, in order. The expressions are engine.store.schema's
RESULT_KEY, BONUS_HIT and IRREGULAR (an index serves only a query that spells them the same way);
engine.floor.history_page.PAIRED says which index serves which pair.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def _result_key() -> sa.ColumnElement[int]:
    return sa.func.coalesce(sa.column("result", sa.Integer), sa.literal_column("-1"))


def _flags() -> dict[str, sa.ColumnElement[bool]]:
    irregularities = sa.column("irregularities", sa.Integer)
    manual = sa.column("manual", sa.Boolean)
    status = sa.column("status", sa.String)
    return {
        "bonus_hit": sa.column("bonus_hit", sa.Boolean).is_(True),
        "irregular": sa.or_(irregularities > 0, manual.is_(True), status == "void"),
    }


def _keys() -> dict[str, list[Any]]:
    return {
        "result": [_result_key()],
        "wagered": [sa.column("wagered")],
        "paid": [sa.column("paid")],
        "table": [],
    }


def _names() -> list[str]:
    return [
        "ix_rounds_result_opened",
        "ix_rounds_result_wagered",
        "ix_rounds_result_paid",
        "ix_rounds_lucky_paid",
        *(f"ix_rounds_{flag}_{sort}" for flag in _flags() for sort in _keys()),
    ]


def upgrade() -> None:
    tail: list[Any] = [sa.column("table_id"), sa.column("round_id")]
    for name, second in (("opened", "opened_at"), ("wagered", "wagered"), ("paid", "paid")):
        op.create_index(f"ix_rounds_result_{name}", "rounds", [_result_key(), sa.column(second), *tail])
    op.create_index("ix_rounds_lucky_paid", "rounds", ["lucky_hit", "paid", "table_id", "round_id"])
    for flag, where in _flags().items():
        for sort, key in _keys().items():
            op.create_index(
                f"ix_rounds_{flag}_{sort}",
                "rounds",
                [*key, *tail],
                sqlite_where=where,
                postgresql_where=where,
            )


def downgrade() -> None:
    for name in reversed(_names()):
        op.drop_index(name, table_name="rounds")
