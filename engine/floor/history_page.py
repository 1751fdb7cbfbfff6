"""The pit boss's history browser: filtered rounds in pages by keyset (no OFFSET), any size of history.

A page is the `limit` rounds after a cursor in the chosen order; the cursor is the last row's
(sort value, table, round id), so page 1,000 costs what page 1 costs. Each sort has an index that
starts with its key, and one that starts with the table (engine.store.schema, migrations 0005 and
0010). A page is read one of three ways (`plan`):

- few: an indexed filter leaves fewer than `PROBE` rounds (counted through the filter's own index,
  never more than PROBE rows): they are taken through that index and sorted;
- paired: the filter a few percent of the rounds pass (a result, bonus hit, irregular only, lucky
  hit with the payout sort) has an index of its own for this sort (`PAIRED`, migration 0013): the
  page walks it and reads only matching rounds, in order (unless another filter leaves fewer than
  PROBE, which is then fewer rounds to read);
- sort: otherwise the page walks the sort's index, skipping the rounds the filters refuse (at
  least one in every ~50 matches, since each indexed filter keeps at least PROBE of them).

Every way gives the same rows in the same order (ties broken by table, then round id). The wagered
sort's indexes hold only the rounds no longer open (an open round's `wagered` changes at every chip,
and a wager's append would rewrite them: migration 0015): a page walked along them has the open
rounds that belong on it merged in (`_wagered_walk`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.store import schema
from engine.store.canonical import format_time
from engine.store.history import RoundRecord
from engine.store.projections import to_units

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
        """Every filter's clause: the indexed ones as `_drivers` writes them (the expressions their
        indexes are built on: the result sort's key, the partial indexes' predicates), then the rest."""
        r = schema.rounds
        clauses = [clause for _name, clause, _index in _drivers(self)]
        if self.table is not None:
            clauses.append(r.c.table_id == self.table)
        if self.dealer:
            clauses.append(r.c.dealer == self.dealer)
        if self.lucky_hit is not None:
            clauses.append(r.c.lucky_hit.is_(self.lucky_hit))
        if self.bonus_hit is False:
            clauses.append(r.c.bonus_hit.is_(False))
        return clauses


PROBE = 15_000  # an indexed filter leaving fewer rounds than this drives the page through its index


# The indexes that serve a (filter, sort) pair: the filter's value or predicate first, then the sort's
# key, table and round id (engine.store.schema, migrations 0005, 0010 and 0013). Over every table these
# filters keep too many rounds to sort for one page and too few to find quickly along the sort's index.
PAIRED: dict[str, dict[str, str]] = {
    "irregular": {
        "time": "ix_rounds_irregular",
        "table": "ix_rounds_irregular_table",
        "result": "ix_rounds_irregular_result",
        "wagered": "ix_rounds_irregular_wagered",
        "paid": "ix_rounds_irregular_paid",
    },
    "bonus_hit": {
        "time": "ix_rounds_bonus_hit",
        "table": "ix_rounds_bonus_hit_table",
        "result": "ix_rounds_bonus_hit_result",
        "wagered": "ix_rounds_bonus_hit_wagered",
        "paid": "ix_rounds_bonus_hit_paid",
    },
    "result": {
        "time": "ix_rounds_result_opened",
        "result": "ix_rounds_result",
        "wagered": "ix_rounds_result_wagered",
        "paid": "ix_rounds_result_paid",
    },
    "lucky_hit": {"paid": "ix_rounds_lucky_paid"},
}
# Lucky hit keeps a tenth of the rounds (or nine tenths): with one table chosen, that table's own
# payout index (table, paid, round id) reads fewer entries than the pair's, where the table's rounds
# lie among every table's (at a payout of 0, after all those of the tables before it).
EVERY_TABLE_ONLY = frozenset({"lucky_hit"})


def _set(query: HistoryQuery, name: str) -> bool:
    """Whether the filter `name` of PAIRED narrows the query (bonus hit: only "yes" has an index)."""
    value = getattr(query, name)
    return value is True if name in ("irregular", "bonus_hit") else value is not None


def _paired(query: HistoryQuery) -> tuple[str, str] | None:
    """(filter, index) of the query's first filter in PAIRED with an index for its sort, else None."""
    for name, by_sort in PAIRED.items():
        one = query.table is not None and name in EVERY_TABLE_ONLY
        if _set(query, name) and query.sort in by_sort and not one:
            return name, by_sort[query.sort]
    return None


def _drivers(query: HistoryQuery) -> list[tuple[str, Any, str]]:
    """The selective filters that have an index of their own: (filter, clause, index name), with the
    table filter's variant when one table is chosen (engine.store.schema, migrations 0005 and 0010)."""
    r = schema.rounds
    one = query.table is not None
    found: list[tuple[str, Any, str]] = []
    if query.round_id:
        found.append(("round_id", r.c.round_id == query.round_id.strip(), "ix_rounds_round_id"))
    if query.since is not None or query.until is not None:
        span = []
        if query.since is not None:
            span.append(r.c.opened_at >= format_time(query.since))
        if query.until is not None:
            span.append(r.c.opened_at < format_time(query.until))
        index = "ix_rounds_table_opened" if one else "ix_rounds_time_table_round"
        found.append(("period", sa.and_(*span), index))
    if query.irregular:
        index = "ix_rounds_table_irregular" if one else "ix_rounds_irregular"
        found.append(("irregular", schema.IRREGULAR, index))
    if query.min_paid is not None:
        floor = r.c.paid >= to_units(query.min_paid, "minimum payout")
        found.append(("min_paid", floor, "ix_rounds_table_paid" if one else "ix_rounds_paid"))
    if query.result is not None:
        index = "ix_rounds_table_result" if one else "ix_rounds_result"
        found.append(("result", query.result == schema.RESULT_KEY, index))
    if query.bonus_hit:
        index = "ix_rounds_table_bonus_hit" if one else "ix_rounds_bonus_hit"
        found.append(("bonus_hit", schema.BONUS_HIT, index))
    return found


def plan(conn: Any, query: HistoryQuery) -> tuple[str, str | None]:
    """How a page of `query` is read: ("few", the filter's index), ("paired", the pair's index) or
    ("sort", None) (the module's docstring says when)."""
    paired = _paired(query)
    few = _fewest(conn, query, skip=paired[0] if paired else None)
    if few is not None:
        return "few", few
    if paired is not None:
        return "paired", paired[1]
    return "sort", None


def fetch_page(
    store: Store, query: HistoryQuery, after: Cursor | None = None, limit: int = 200
) -> tuple[list[RoundRecord], Cursor | None]:
    """Up to `limit` rounds after `after` in the query's order, and the cursor of the next page
    (None when this page is the last)."""
    clauses = query.where()
    with store.read() as conn:
        way, index = plan(conn, query)
        if way == "few":
            assert index is not None
            rows = _page_of_few(conn, query, clauses, index, after, limit)
        elif query.sort == "wagered":
            rows = _wagered_walk(conn, query, clauses, index, after, limit)
        else:
            rows = _walk(conn, query, clauses, index, after, limit)
    more = len(rows) > limit
    rows = rows[:limit]
    cursor: Cursor | None = None
    if more and rows:
        last = rows[-1]
        cursor = (last.sort_key, last.table_id, last.round_id)
    return [RoundRecord.of(row) for row in rows], cursor


def _walk(
    conn: Any, query: HistoryQuery, clauses: list[Any], index: str | None, after: Cursor | None, limit: int
) -> list[Any]:
    """The page read along an index in the query's order: the pair's `index` (named on SQLite, whose
    planner, without statistics for a new index, may sort the filter's rounds instead; PostgreSQL's
    planner picks it by itself), or with None the sort's index (the planner's choice)."""
    r = schema.rounds
    key = query.sort_column()
    select = sa.select(r, key.label("sort_key")).where(*clauses)
    whole: tuple[Any, ...] = (key, r.c.table_id, r.c.round_id)
    if query.sort == "table" or (query.sort == "result" and query.result is not None):
        # The key is the table (the primary key orders the rows) or one result for every row: what
        # orders them is (table, round id), which follows the key in its index.
        page = select.where(_past((r.c.table_id, r.c.round_id), after[1:], query)) if after else select
        return _run(conn, _ordered(page, whole[1:], query, limit), index)
    if after is None:
        return _run(conn, _ordered(select, whole, query, limit), index)
    if query.sort != "result" or conn.dialect.name != "sqlite":
        return _run(conn, _ordered(select.where(_past(whole, after, query)), whole, query, limit), index)
    # SQLite does not seek an index on an expression by a row value: (coalesce(result, -1), table,
    # round id) past the cursor would scan from the index's start. So the page is read as two ranges
    # it seeks, the rest of the cursor's own result (ordered by (table, round id): SQLite would sort
    # the whole result to order by an expression it holds constant), then, if the page is not full,
    # the results beyond it.
    same = select.where(key == after[0], _past(whole[1:], after[1:], query))
    rows = _run(conn, _ordered(same, whole[1:], query, limit), index)
    if len(rows) > limit:
        return rows
    beyond = select.where(key < after[0] if query.descending else key > after[0])
    return rows + _run(conn, _ordered(beyond, whole, query, limit - len(rows)), index)


def _wagered_walk(
    conn: Any, query: HistoryQuery, clauses: list[Any], index: str | None, after: Cursor | None, limit: int
) -> list[Any]:
    """`_walk` for the sort by wagered, whose indexes hold only the rounds no longer open (an open
    round's `wagered` changes at every chip: engine.store.schema.NOT_OPEN, migration 0015): the page
    walked along the sort's (or the pair's) index, and the open rounds (a table's one taking bets,
    found through ix_rounds_open) that belong on it, merged and ordered by the database."""
    r = schema.rounds
    whole: tuple[Any, ...] = (r.c.wagered, r.c.table_id, r.c.round_id)

    def part(which: Any) -> Any:
        select = sa.select(r, r.c.wagered.label("sort_key"))
        select = select.where(*clauses, which)
        if after is not None:
            select = select.where(_past(whole, after, query))
        return _ordered(select, whole, query, limit)

    closed, opened = part(schema.NOT_OPEN), part(schema.OPEN)
    if conn.dialect.name != "sqlite":
        both = sa.union_all(closed.subquery().select(), opened.subquery().select()).subquery()
        merged = _ordered(sa.select(both), (both.c.sort_key, both.c.table_id, both.c.round_id), query, limit)
        return list(conn.execute(merged).all())
    way = "DESC" if query.descending else "ASC"
    sql = (
        f"SELECT * FROM ({_sqlite_text(conn, closed, index)}) UNION ALL SELECT * FROM "
        f"({_sqlite_text(conn, opened, 'ix_rounds_open')}) "
        f"ORDER BY sort_key {way}, table_id {way}, round_id {way} LIMIT {limit + 1}"
    )
    return list(conn.exec_driver_sql(sql).all())


def _ordered(select: Any, order: tuple[Any, ...], query: HistoryQuery, limit: int) -> Any:
    """`select` in the query's direction by `order`, the first `limit` + 1 (one more: is there a next)."""
    directed = (c.desc() if query.descending else c.asc() for c in order)
    return select.order_by(*directed).limit(limit + 1)


def _run(conn: Any, select: Any, index: str | None) -> list[Any]:
    return list(conn.execute(select).all()) if index is None else _execute(conn, select, index)


def _past(order: tuple[Any, ...], after: tuple[Any, ...], query: HistoryQuery) -> Any:
    """The rows after the cursor's `after` values in the query's order (a row-value comparison an
    index serves)."""
    position = sa.tuple_(*order)
    bound = sa.tuple_(*(sa.literal(v) for v in after))
    return position < bound if query.descending else position > bound


def _fewest(conn: Any, query: HistoryQuery, skip: str | None = None) -> str | None:
    """The index of an indexed filter (but `skip`) that leaves fewer than PROBE rounds (with the table
    filter), None if none does. Each count reads at most PROBE entries of that index, never the rounds."""
    r = schema.rounds
    table = [r.c.table_id == query.table] if query.table is not None else []
    for name, clause, index in _drivers(query):
        if name == skip:
            continue
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
    found = sa.select(r, query.sort_column().label("sort_key")).where(*clauses)
    # (With the table sort the key is the table: ordered by (table, table, round id), the same order.)
    if conn.dialect.name == "sqlite":
        order: tuple[Any, ...] = (query.sort_column(), r.c.table_id, r.c.round_id)
        select = found
    else:
        cte = found.cte("found").prefix_with("MATERIALIZED")
        order = (cte.c.sort_key, cte.c.table_id, cte.c.round_id)
        select = sa.select(cte)
    if after is not None:
        select = select.where(_past(order, after, query))
    return _execute(conn, _ordered(select, order, query, limit), index)


def _execute(conn: Any, select: Any, index: str) -> list[Any]:
    """Run `select`, on SQLite reading `rounds` through `index` (INDEXED BY, which SQLAlchemy does not
    write for SQLite): its planner, offered an ORDER BY … LIMIT, would walk the sort's index instead."""
    if conn.dialect.name != "sqlite":
        return list(conn.execute(select).all())
    return list(conn.exec_driver_sql(_sqlite_text(conn, select, index)).all())


def _sqlite_text(conn: Any, select: Any, index: str | None) -> str:
    """`select` as SQLite text reading `rounds` through `index` (None: the planner's choice)."""
    # Values written in (quoted by SQLAlchemy's literal processors): SQLite uses a partial index only
    # when the query's own text implies its predicate, which a bound parameter never does.
    compiled = select.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True})
    if index is None:
        return str(compiled.string)
    return str(compiled.string).replace("FROM rounds", f"FROM rounds INDEXED BY {index}")  # (every part)


def dealers(store: Store, table: str | None = None) -> list[str]:
    r = schema.rounds
    query = sa.select(r.c.dealer).where(r.c.dealer.is_not(None)).distinct().order_by(r.c.dealer).limit(500)
    if table is not None:
        query = query.where(r.c.table_id == table)
    with store.read() as conn:
        return [d for d in conn.execute(query).scalars()]
