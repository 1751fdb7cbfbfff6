"""The pit boss's history browser: filtered rounds in pages by keyset (no OFFSET), any size of history.

A page is the `limit` rounds after a cursor in the chosen order; the cursor is the last row's
(sort value, table, round id), so page 1,000 costs what page 1 costs, given the indexes on
`rounds` (table + opened_at). Sorting by another column scans the filtered rows once per page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.store import schema
from engine.store.canonical import format_time
from engine.store.projections import from_units, to_units

if TYPE_CHECKING:
    from engine.store.db import Store

SORTS = ("time", "table", "result", "wagered", "paid")
Cursor = tuple[Any, str, str]


@dataclass(frozen=True)
class HistoryQuery:
    """Filters and order of the history browser; None means "any"."""

    table: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    dealer: str | None = None
    result: int | None = None
    lucky_hit: bool | None = None
    bonus_hit: bool | None = None
    min_paid: Decimal | None = None
    irregular: bool = False
    round_id: str | None = None
    sort: str = "time"
    descending: bool = True

    def sort_column(self) -> Any:
        r = schema.rounds
        return {
            "time": r.c.opened_at,
            "table": r.c.table_id,
            "result": sa.func.coalesce(r.c.result, -1),
            "wagered": r.c.wagered,
            "paid": r.c.paid,
        }[self.sort]

    def where(self) -> list[Any]:
        r = schema.rounds
        clauses: list[Any] = []
        if self.table is not None:
            clauses.append(r.c.table_id == self.table)
        if self.since is not None:
            clauses.append(r.c.opened_at >= format_time(self.since))
        if self.until is not None:
            clauses.append(r.c.opened_at < format_time(self.until))
        if self.dealer:
            clauses.append(r.c.dealer == self.dealer)
        if self.result is not None:
            clauses.append(r.c.result == self.result)
        if self.lucky_hit is not None:
            clauses.append(r.c.lucky_hit.is_(self.lucky_hit))
        if self.bonus_hit is not None:
            clauses.append(r.c.bonus_hit.is_(self.bonus_hit))
        if self.min_paid is not None:
            clauses.append(r.c.paid >= to_units(self.min_paid, "minimum payout"))
        if self.irregular:
            clauses.append(schema.IRREGULAR)  # the partial indexes' own expression
        if self.round_id:
            clauses.append(r.c.round_id == self.round_id.strip())
        return clauses


@dataclass(frozen=True)
class HistoryRow:
    table: str
    round_id: str
    time: str
    status: str
    result: int | None
    lucky: tuple[int, ...]
    bonus_number: int | None
    lucky_hit: bool
    bonus_hit: bool
    wagered: Decimal
    paid: Decimal
    dealer: str | None
    manual: bool
    irregularities: int
    source: str

    @property
    def irregular(self) -> bool:
        return self.irregularities > 0 or self.manual or self.status == "void"


_COLUMNS = (
    "table_id", "round_id", "opened_at", "status", "result", "lucky", "bonus_number", "lucky_hit",
    "bonus_hit", "wagered", "paid", "dealer", "manual", "irregularities", "source",
)  # fmt: skip


def _row(row: Any) -> HistoryRow:
    return HistoryRow(
        row.table_id,
        row.round_id,
        row.opened_at,
        row.status,
        row.result,
        tuple(int(pair[0]) for pair in json.loads(row.lucky)) if row.lucky else (),
        row.bonus_number,
        bool(row.lucky_hit),
        bool(row.bonus_hit),
        from_units(row.wagered),
        from_units(row.paid),
        row.dealer,
        bool(row.manual),
        int(row.irregularities),
        row.source,
    )


def fetch_page(
    store: Store, query: HistoryQuery, after: Cursor | None = None, limit: int = 200
) -> tuple[list[HistoryRow], Cursor | None]:
    """Up to `limit` rounds after `after` in the query's order, and the cursor of the next page
    (None when this page is the last)."""
    r = schema.rounds
    key = query.sort_column()
    order = (key, r.c.table_id, r.c.round_id)
    select = sa.select(*(r.c[name] for name in _COLUMNS), key.label("sort_key")).where(*query.where())
    if after is not None:
        position = sa.tuple_(*order)
        bound = sa.tuple_(*(sa.literal(v) for v in after))
        select = select.where(position < bound if query.descending else position > bound)
    select = select.order_by(*(c.desc() if query.descending else c.asc() for c in order)).limit(limit + 1)
    with store.read() as conn:
        rows = conn.execute(select).all()
    more = len(rows) > limit
    rows = rows[:limit]
    cursor: Cursor | None = None
    if more and rows:
        last = rows[-1]
        cursor = (last.sort_key, last.table_id, last.round_id)
    return [_row(row) for row in rows], cursor


def dealers(store: Store, table: str | None = None) -> list[str]:
    r = schema.rounds
    query = sa.select(r.c.dealer).where(r.c.dealer.is_not(None)).distinct().order_by(r.c.dealer).limit(500)
    if table is not None:
        query = query.where(r.c.table_id == table)
    with store.read() as conn:
        return [d for d in conn.execute(query).scalars()]
