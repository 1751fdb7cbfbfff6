"""The alert scan of many moved tables reads them together (a few queries, not several per table),
and the alerts list follows the floor's chain by folding in only its new entries, with the same
alerts as reading it afresh (issue 15: a hundred tables committing at once queued the station)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from engine.floor.alerts import AlertBook, AlertScanner, acknowledge_alerts, list_alerts
from engine.store import Store
from tests.floor.helpers import add_users, store, store_url  # noqa: F401 - fixtures
from tests.payloads import RULES_SHA

NOW = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)


@contextmanager
def statements(db: Store) -> Iterator[list[str]]:
    """The SQL statements run on `db` meanwhile."""
    seen: list[str] = []

    def note(_conn: object, _cursor: object, sql: str, *_args: object) -> None:
        seen.append(sql)

    sa.event.listen(db.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", note)


def _play(store: Store, table: str, minute: int) -> None:  # noqa: F811
    """An open round with a miss-spin and a manual result: two alerts, the round left open (silent)."""
    j = store.journal
    rid = f"{table}-r{minute}"
    when = f"2026-11-29T10:{minute:02d}:00.000000Z"
    j.append(
        table,
        "round.opened",
        {"round_id": rid, "rules_sha256": RULES_SHA},
        round_id=rid,
        user="dana",
        time=when,
    )
    j.append(table, "round.no_spin", {"reason": "ball jumped"}, round_id=rid, user="dana", time=when)
    j.append(table, "round.result", {"number": 7, "source": "manual", "reason": "sensor"}, round_id=rid,
             user="dana", time=when)  # fmt: skip


def _reads(sql: list[str]) -> int:
    return sum(1 for s in sql if s.lstrip().upper().startswith("SELECT"))


def test_scanning_many_moved_tables_reads_them_together(store: Store) -> None:  # noqa: F811
    tables = [f"T{i}" for i in range(1, 13)]
    for t in tables:
        _play(store, t, 0)
    one, many = AlertScanner(), AlertScanner()
    one.scan(store, ["T1"], now=NOW)  # both scanners past their first look (the lookback)
    many.scan(store, tables[1:], now=NOW)
    for t in tables:
        _play(store, t, 5)
    with statements(store) as sql_one:
        raised_one = one.scan(store, ["T1"], now=NOW)
    with statements(store) as sql_many:
        raised_many = many.scan(store, tables[1:], now=NOW)
    kinds = ["miss-spin", "manual result", "table silent"]
    assert [a.kind for a in raised_one] == kinds
    assert [a.kind for a in raised_many] == kinds * 11 and [a.table for a in raised_many[::3]] == tables[1:]
    # The same statements whether one table moved or eleven.
    assert _reads(sql_many) == _reads(sql_one), (sql_one, sql_many)


def test_the_alert_book_follows_the_floor_as_a_fresh_read_does(store: Store) -> None:  # noqa: F811
    users = add_users(store)
    scanner = AlertScanner(silent_after=timedelta(days=1))
    book = AlertBook(limit=4)
    book.load(store)
    assert book.latest() == list_alerts(store, limit=4) == []
    for minute in range(0, 30, 5):
        _play(store, "T1", minute)
        _play(store, "T2", minute)
        scanner.scan(store, ["T1", "T2"], now=NOW)
        if minute == 10:
            open_ids = [a.alert_id for a in list_alerts(store) if not a.acknowledged][:2]
            acknowledge_alerts(store, open_ids, users["surveillance"])
        book.fold(book.news(store))
        assert book.latest() == list_alerts(store, limit=4)
    with statements(store) as sql:
        assert book.news(store) == [] and not book.fold([])
    assert _reads(sql) == 1
