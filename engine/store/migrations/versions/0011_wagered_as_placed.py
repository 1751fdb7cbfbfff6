"""rounds.wagered as placed for open, held and voided rounds; a void's returned is every stake

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 13:20:00

Before this revision a round's `wagered` was written only when it settled (0.00 while open or held)
and a void set it back to 0.00, so what the void handed back was invisible. The projection now keeps
the standing wagers from the first chip (engine.store.projections); this recomputes them for every
round that is not settled, from its own `round.wager_placed` / `round.wager_removed` entries, so the
stored rows are what `drr db rebuild` (and the audit's derived-table check) gives.
"""

from __future__ import annotations

import json
from decimal import Decimal

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

PLACED, REMOVED = "round.wager_placed", "round.wager_removed"
SCALE = 10_000  # engine.store.schema.MONEY_SCALE (a migration keeps its own copy of what it relies on)


def upgrade() -> None:
    conn = op.get_bind()
    rounds = sa.table(
        "rounds",
        sa.column("table_id"),
        sa.column("round_id"),
        sa.column("status"),
        sa.column("source"),
        sa.column("wagered"),
        sa.column("returned"),
    )
    journal = sa.table(
        "journal", sa.column("table_id"), sa.column("round_id"), sa.column("seq"), sa.column("type"),
        sa.column("payload"),
    )  # fmt: skip
    todo = conn.execute(
        sa.select(rounds.c.table_id, rounds.c.round_id, rounds.c.status).where(
            rounds.c.status != "settled", rounds.c.source == "table"
        )
    ).all()
    for table_id, round_id, status in todo:
        standing: dict[str, int] = {}
        for kind, payload in conn.execute(
            sa.select(journal.c.type, journal.c.payload)
            .where(
                journal.c.table_id == table_id,
                journal.c.round_id == round_id,
                journal.c.type.in_((PLACED, REMOVED)),
            )
            .order_by(journal.c.seq)
        ):
            w = json.loads(payload)
            if kind == PLACED:
                standing[str(w.get("id"))] = int(Decimal(str(w.get("amount", "0"))) * SCALE)
            else:
                standing.pop(str(w.get("wager_id")), None)
        wagered = sum(standing.values())
        values = {"wagered": wagered, "returned": wagered} if status == "void" else {"wagered": wagered}
        conn.execute(
            sa.update(rounds)
            .where(rounds.c.table_id == table_id, rounds.c.round_id == round_id)
            .values(**values)
        )


def downgrade() -> None:
    conn = op.get_bind()
    rounds = sa.table("rounds", sa.column("status"), sa.column("wagered"), sa.column("returned"))
    conn.execute(sa.update(rounds).where(rounds.c.status == "void").values(wagered=0, returned=0))
    conn.execute(sa.update(rounds).where(rounds.c.status != "settled").values(wagered=0))
