"""The pit boss's history pages by keyset equal plain OFFSET pages, for every sort, both directions and
every filter of the screen, whichever way a page is read (through the sort's index or the filter's),
on SQLite and on PostgreSQL; and the store's rounds reach every page exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from bench.scale_store import HISTORY_START, fill_history, history_filters
from engine.floor import history_page
from engine.floor.history_page import SORTS, HistoryQuery, fetch_page
from engine.store import Store, open_store, schema
from tests.pg_schema import PG_URL, pg_schema_url

ROUNDS = 1500
PAGE = 97
NOW = HISTORY_START + timedelta(days=365)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def history(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """1,500 varied rounds on 10 tables over a year (bench.scale_store.fill_history)."""
    if request.param == "postgresql" and PG_URL is not None:
        with pg_schema_url("drr_keyset") as url, open_store(url) as store:
            fill_history(store, ROUNDS)
            yield store
        return
    with open_store(str(tmp_path_factory.mktemp("keyset") / "h.sqlite")) as store:
        fill_history(store, ROUNDS)
        yield store


Pages = list[list[tuple[str, str]]]


@pytest.fixture(scope="module")
def reference(history: Store) -> dict[tuple[str, bool, str], Pages]:
    """Each query's OFFSET pages on `history`, read once for the module (they depend on neither PROBE
    nor PAIRED, which the keyset tests vary): the keyset tests compare against the same pages."""
    return {}


def _offset_pages(store: Store, query: HistoryQuery, size: int) -> Pages:
    """The same rounds in pages by LIMIT/OFFSET over the plain ORDER BY (the reference)."""
    r = schema.rounds
    key = query.sort_column()
    order = [key, r.c.table_id, r.c.round_id]
    directed = [c.desc() if query.descending else c.asc() for c in order]
    pages: Pages = []
    with store.read() as conn:
        while True:
            select = sa.select(r.c.table_id, r.c.round_id).where(*query.where()).order_by(*directed)
            rows = conn.execute(select.limit(size).offset(size * len(pages))).all()
            if rows:
                pages.append([(t, i) for t, i in rows])
            if len(rows) < size:
                return pages


def _keyset_pages(store: Store, query: HistoryQuery, size: int) -> Pages:
    pages: Pages = []
    cursor: Any = None
    while True:
        rows, cursor = fetch_page(store, query, cursor, size)
        if rows:
            pages.append([(row.table, row.round_id) for row in rows])
        if cursor is None:
            return pages


@pytest.mark.parametrize(
    ("probe", "paired"),
    [(10**9, False), (1, False), (1, True), (history_page.PROBE, True)],
    ids=["filters-index", "sort-index", "paired-index", "as-planned"],
)
def test_keyset_pages_equal_offset_pages(
    history: Store,
    reference: dict[tuple[str, bool, str], Pages],
    probe: int,
    paired: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without the (filter, sort) pairs' indexes a huge PROBE reads every filtered page through the
    # filter's index, PROBE 1 through the sort's; with them PROBE 1 walks the pair's index wherever
    # there is one (and the sort's elsewhere).
    monkeypatch.setattr(history_page, "PROBE", probe)
    if not paired:
        monkeypatch.setattr(history_page, "PAIRED", {})
    combos = history_filters(NOW)
    checked = 0
    for sort in SORTS:
        for descending in (True, False):
            for name, fields in combos.items():
                query = HistoryQuery(sort=sort, descending=descending, **fields)
                if (sort, descending, name) not in reference:
                    reference[sort, descending, name] = _offset_pages(history, query, PAGE)
                expected = reference[sort, descending, name]
                assert _keyset_pages(history, query, PAGE) == expected, f"{sort} {descending} {name}"
                checked += bool(expected)
    assert checked > len(SORTS) * 2 * len(combos) // 2  # most combinations find rounds at this size


def test_every_round_on_exactly_one_page(history: Store) -> None:
    pages = _keyset_pages(history, HistoryQuery(sort="paid", descending=True), 200)
    seen = [key for page in pages for key in page]
    assert len(seen) == len(set(seen)) == ROUNDS


def test_every_paired_index_is_declared_for_its_filter_and_sort() -> None:
    declared = {index.name for index in schema.rounds.indexes}
    for by_sort in history_page.PAIRED.values():
        assert set(by_sort) <= set(SORTS)
        assert set(by_sort.values()) <= declared


@pytest.mark.parametrize("table", [None, "T03"], ids=["every-table", "one-table"])
def test_a_filter_with_an_index_for_its_sort_walks_that_index(history: Store, table: str | None) -> None:
    # The combinations that took 120-712 ms at a million rounds over every table (docs/scale.md).
    filters = {"result": {"result": 17}, "bonus_hit": {"bonus_hit": True}, "irregular": {"irregular": True}}
    filters["lucky_hit"] = {"lucky_hit": False}
    with history.read() as conn:
        for name, by_sort in history_page.PAIRED.items():
            for sort, index in by_sort.items():
                query = HistoryQuery(table=table, sort=sort, **filters[name])
                if table is not None and name in history_page.EVERY_TABLE_ONLY:
                    # (The table's own payout index, through the planner's choice.)
                    assert history_page.plan(conn, query) == ("sort", None), (name, sort)
                else:
                    assert history_page.plan(conn, query) == ("paired", index), (name, sort)
        # A filter leaving fewer rounds than PROBE still reads them through its own index.
        few = HistoryQuery(result=17, round_id="T03-0000500", sort="paid")
        assert history_page.plan(conn, few) == ("few", "ix_rounds_round_id")


@pytest.mark.parametrize("descending", [True, False], ids=["desc", "asc"])
def test_a_result_sorted_page_after_a_cursor_seeks_the_index(tmp_path: Path, descending: bool) -> None:
    # On SQLite (coalesce(result, -1), table, round id) past a cursor is no range it seeks in an
    # expression index: such a page scanned the index from its start (page 1,000 cost 1,000 pages).
    statements: list[tuple[str, Any]] = []

    def seen(_c: Any, _cur: Any, statement: str, params: Any, _ctx: Any, _many: bool) -> None:
        statements.append((statement, params))

    with open_store(str(tmp_path / "h.sqlite")) as store:
        fill_history(store, ROUNDS)
        for query in (
            HistoryQuery(sort="result", descending=descending),
            HistoryQuery(sort="result", descending=descending, bonus_hit=True),
        ):
            _rows, cursor = fetch_page(store, query, None, 10)
            assert cursor is not None
            statements.clear()
            sa.event.listen(store.engine, "before_cursor_execute", seen)
            try:
                fetch_page(store, query, cursor, 50)
            finally:
                sa.event.remove(store.engine, "before_cursor_execute", seen)
            pages = [(s, p) for s, p in statements if "ORDER BY" in s]
            assert len(pages) == 2  # the rest of the cursor's result, then the results beyond it
            with store.read() as conn:
                for statement, params in pages:
                    explained = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params)
                    plans = [row[3] for row in explained]
                    assert not any(p.startswith("SCAN rounds") for p in plans), (statement, plans)
