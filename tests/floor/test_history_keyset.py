"""The pit boss's history pages by keyset equal plain OFFSET pages, for every sort, both directions and
every filter of the screen, whichever way a page is read (through the sort's index or the filter's),
on SQLite and on PostgreSQL; and the store's rounds reach every page exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from engine.floor import history_page
from engine.floor.history_page import SORTS, HistoryQuery, fetch_page
from engine.store import Store, open_store, schema
from engine.store.bench_scale import HISTORY_START, fill_history, history_filters
from tests.pg_schema import PG_URL, pg_schema_url

ROUNDS = 1500
NOW = HISTORY_START + timedelta(days=365)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def history(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """1,500 varied rounds on 10 tables over a year (engine.store.bench_scale.fill_history)."""
    if request.param == "postgresql" and PG_URL is not None:
        with pg_schema_url("drr_keyset") as url, open_store(url) as store:
            fill_history(store, ROUNDS)
            yield store
        return
    with open_store(str(tmp_path_factory.mktemp("keyset") / "h.sqlite")) as store:
        fill_history(store, ROUNDS)
        yield store


def _offset_pages(store: Store, query: HistoryQuery, size: int) -> list[list[tuple[str, str]]]:
    """The same rounds in pages by LIMIT/OFFSET over the plain ORDER BY (the reference)."""
    r = schema.rounds
    key = query.sort_column()
    order = [key, r.c.table_id, r.c.round_id]
    directed = [c.desc() if query.descending else c.asc() for c in order]
    pages: list[list[tuple[str, str]]] = []
    with store.read() as conn:
        while True:
            select = sa.select(r.c.table_id, r.c.round_id).where(*query.where()).order_by(*directed)
            rows = conn.execute(select.limit(size).offset(size * len(pages))).all()
            if rows:
                pages.append([(t, i) for t, i in rows])
            if len(rows) < size:
                return pages


def _keyset_pages(store: Store, query: HistoryQuery, size: int) -> list[list[tuple[str, str]]]:
    pages: list[list[tuple[str, str]]] = []
    cursor: Any = None
    while True:
        rows, cursor = fetch_page(store, query, cursor, size)
        if rows:
            pages.append([(row.table, row.round_id) for row in rows])
        if cursor is None:
            return pages


@pytest.mark.parametrize("probe", [10**9, 1], ids=["filters-index", "sort-index"])
def test_keyset_pages_equal_offset_pages(history: Store, probe: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # A huge PROBE reads every filtered page through the filter's index, PROBE 1 through the sort's.
    monkeypatch.setattr(history_page, "PROBE", probe)
    combos = history_filters(NOW)
    checked = 0
    for sort in SORTS:
        for descending in (True, False):
            for name, fields in combos.items():
                query = HistoryQuery(sort=sort, descending=descending, **fields)
                expected = _offset_pages(history, query, 97)
                assert _keyset_pages(history, query, 97) == expected, f"{sort} {descending} {name}"
                checked += bool(expected)
    assert checked > len(SORTS) * 2 * len(combos) // 2  # most combinations find rounds at this size


def test_every_round_on_exactly_one_page(history: Store) -> None:
    pages = _keyset_pages(history, HistoryQuery(sort="paid", descending=True), 200)
    seen = [key for page in pages for key in page]
    assert len(seen) == len(set(seen)) == ROUNDS
