"""The pit boss's history browser: filtered rounds in pages by keyset (no OFFSET), any size of history.

A page is the `limit` rounds after a cursor in the chosen order; the cursor is the last row's
(sort value, table, round id), so page 1,000 costs what page 1 costs. Each sort has an index that
starts with its key, and one that starts with the table (engine.store.schema, migrations 0005 and
0010). Which way a page is read depends on how many rounds the filters leave (`PROBE`, counted
through the filters' own indexes, never more than PROBE rows): many, and the page walks the sort's
index, skipping the rounds the filters refuse (at least one in every ~50 matches, since they are
at least PROBE of the store's rounds); few, and they are taken through the filters' indexes and
sorted (at most PROBE of them). Either way a page reads a few thousand rows, not the history.
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
            "result": schema.RESULT_KEY,
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
        if self.result is not None:  # the result sort's expression, so its index finds them too
            clauses.append(self.result == schema.RESULT_KEY)
        if self.lucky_hit is not None:
            clauses.append(r.c.lucky_hit.is_(self.lucky_hit))
        if self.bonus_hit:
            clauses.append(schema.BONUS_HIT)  # the partial index's own expression
        elif self.bonus_hit is not None:
            clauses.append(r.c.bonus_hit.is_(False))
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


PROBE = 15_000  # an indexed filter leaving fewer rounds than this drives the page through its index


def _drivers(query: HistoryQuery) -> list[tuple[Any, str]]:
    """The selective filters that have an index of their own: (clause, index name), with the table
    filter's variant when one table is chosen (engine.store.schema, migrations 0005 and 0010)."""
    r = schema.rounds
    one = query.table is not None
    found: list[tuple[Any, str]] = []
    if query.round_id:
        found.append((r.c.round_id == query.round_id.strip(), "ix_rounds_round_id"))
    if query.since is not None or query.until is not None:
        span = []
        if query.since is not None:
            span.append(r.c.opened_at >= format_time(query.since))
        if query.until is not None:
            span.append(r.c.opened_at < format_time(query.until))
        found.append((sa.and_(*span), "ix_rounds_table_opened" if one else "ix_rounds_time_table_round"))
    if query.irregular:
        found.append((schema.IRREGULAR, "ix_rounds_table_irregular" if one else "ix_rounds_irregular"))
    if query.min_paid is not None:
        floor = r.c.paid >= to_units(query.min_paid, "minimum payout")
        found.append((floor, "ix_rounds_table_paid" if one else "ix_rounds_paid"))
    if query.result is not None:
        found.append(
            (query.result == schema.RESULT_KEY, "ix_rounds_table_result" if one else "ix_rounds_result")
        )
    if query.bonus_hit:
        found.append((schema.BONUS_HIT, "ix_rounds_table_bonus_hit" if one else "ix_rounds_bonus_hit"))
    return found


def fetch_page(
    store: Store, query: HistoryQuery, after: Cursor | None = None, limit: int = 200
) -> tuple[list[HistoryRow], Cursor | None]:
    """Up to `limit` rounds after `after` in the query's order, and the cursor of the next page
    (None when this page is the last)."""
    r = schema.rounds
    key = query.sort_column()
    # The table sort's key is the table itself: ordered by (table, round id), the primary key.
    order = (key, r.c.round_id) if query.sort == "table" else (key, r.c.table_id, r.c.round_id)
    clauses = query.where()
    with store.read() as conn:
        driver = _fewest(conn, query)
        if driver is not None:
            rows = _page_of_few(conn, query, clauses, driver, after, limit)
        else:
            select = sa.select(*(r.c[name] for name in _COLUMNS), key.label("sort_key")).where(*clauses)
            if after is not None:
                select = select.where(_past(order, after, query))
            directed = (c.desc() if query.descending else c.asc() for c in order)
            rows = list(conn.execute(select.order_by(*directed).limit(limit + 1)).all())
    more = len(rows) > limit
    rows = rows[:limit]
    cursor: Cursor | None = None
    if more and rows:
        last = rows[-1]
        cursor = (last.sort_key, last.table_id, last.round_id)
    return [_row(row) for row in rows], cursor


def _past(order: tuple[Any, ...], after: Cursor, query: HistoryQuery) -> Any:
    """The rows after the cursor in the query's order (a row-value comparison an index serves)."""
    values = (after[0], after[2]) if len(order) == 2 else after
    position = sa.tuple_(*order)
    bound = sa.tuple_(*(sa.literal(v) for v in values))
    return position < bound if query.descending else position > bound


def _fewest(conn: Any, query: HistoryQuery) -> str | None:
    """The index of an indexed filter that leaves fewer than PROBE rounds (with the table filter),
    None if none does. Each count reads at most PROBE entries of that index, never the rounds."""
    r = schema.rounds
    table = [r.c.table_id == query.table] if query.table is not None else []
    for clause, index in _drivers(query):
        probe = sa.select(sa.literal(1)).select_from(r).where(clause, *table).limit(PROBE).subquery()
        if int(_execute(conn, sa.select(sa.func.count()).select_from(probe), index)[0][0]) < PROBE:
            return index
    return None


def _page_of_few(
    conn: Any, query: HistoryQuery, clauses: list[Any], index: str, after: Cursor | None, limit: int
) -> list[Any]:
    """The page from the (fewer than PROBE) rounds an indexed filter leaves, taken through that index
    and then sorted (the best `limit` kept as they come). SQLite is told the index (INDEXED BY);
    on PostgreSQL a MATERIALIZED common table expression keeps the planner from walking the sort's
    index instead, and its statistics pick the filter's index."""
    r = schema.rounds
    found = sa.select(*(r.c[name] for name in _COLUMNS), query.sort_column().label("sort_key")).where(
        *clauses
    )
    if conn.dialect.name == "sqlite":
        key = query.sort_column()
        order: tuple[Any, ...] = (
            (key, r.c.round_id) if query.sort == "table" else (key, r.c.table_id, r.c.round_id)
        )
        select = found
    else:
        cte = found.cte("found").prefix_with("MATERIALIZED")
        c = cte.c
        order = (c.sort_key, c.round_id) if query.sort == "table" else (c.sort_key, c.table_id, c.round_id)
        select = sa.select(cte)
    if after is not None:
        select = select.where(_past(order, after, query))
    directed = (col.desc() if query.descending else col.asc() for col in order)
    return _execute(conn, select.order_by(*directed).limit(limit + 1), index)


def _execute(conn: Any, select: Any, index: str) -> list[Any]:
    """Run `select`, on SQLite reading `rounds` through `index` (INDEXED BY, which SQLAlchemy does not
    write for SQLite): its planner, offered an ORDER BY … LIMIT, would walk the sort's index instead."""
    if conn.dialect.name != "sqlite":
        return list(conn.execute(select).all())
    # Values written in (quoted by SQLAlchemy's literal processors): SQLite uses a partial index only
    # when the query's own text implies its predicate, which a bound parameter never does.
    compiled = select.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True})
    sql = compiled.string.replace("FROM rounds", f"FROM rounds INDEXED BY {index}", 1)
    return list(conn.exec_driver_sql(sql).all())


def dealers(store: Store, table: str | None = None) -> list[str]:
    r = schema.rounds
    query = sa.select(r.c.dealer).where(r.c.dealer.is_not(None)).distinct().order_by(r.c.dealer).limit(500)
    if table is not None:
        query = query.where(r.c.table_id == table)
    with store.read() as conn:
        return [d for d in conn.execute(query).scalars()]
