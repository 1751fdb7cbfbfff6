"""Issue 15: the durable append keeps its pace — each entry's SQL (the head, the entry, its projections,
the BEGIN) runs precompiled through the driver, and the hash is taken over the stored text — with the
same rows, hashes and verdicts as the reference definitions."""

from __future__ import annotations

import json
from decimal import Decimal
from enum import Enum
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine.bets import Wager, inside_bet
from engine.journal_types import write
from engine.round import RoundOpened, WagerPlaced
from engine.store import Store, open_store, schema
from engine.store.canonical import canonical_json, canonical_payload, entry_hash, entry_hash_of_text
from engine.store.projections import SqlRows
from engine.store.records import Entry, NewEvent
from engine.store.verify import verify
from tests.pg_schema import PG_URL, pg_schema_url


def _wager(n: int, amount: str = "25.00") -> Any:
    return write(
        WagerPlaced(Wager(f"w{n}", "p3", inside_bet([17, 20]), Decimal(amount))),
        table="T1",
        round_id="r-1",
        user="dana",
    )


def _opened(store: Store) -> None:
    store.journal.append_many([write(RoundOpened("r-1", "0" * 64), table="T1", round_id="r-1", user="dana")])


def test_a_wager_append_builds_no_sqlalchemy_statement(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    _opened(store)
    store.journal.append_many([_wager(0)])  # the first of each statement compiles it
    through_sqlalchemy: list[str] = []
    for name in ("_execute_clauseelement", "exec_driver_sql"):
        original = getattr(Connection, name)

        def counted(self: Connection, *a: Any, _name: str = name, _orig: Any = original, **kw: Any) -> Any:
            through_sqlalchemy.append(_name)
            return _orig(self, *a, **kw)

        monkeypatch.setattr(Connection, name, counted)
    for n in range(1, 6):
        store.journal.append_many([_wager(n)])
    assert through_sqlalchemy == []  # before: two per append (the round's read and update) and the BEGIN
    with store.read() as conn:
        wagered = conn.execute(sa.select(schema.rounds.c.wagered)).scalar_one()
    assert wagered == 6 * 25 * schema.MONEY_SCALE
    assert verify(store, "T1").ok


def _round_rows(store: Store) -> tuple[dict[str, Any], dict[str, Any]]:
    entry = Entry("T1", 1, "", None, "r-1", "round.wager_placed", "{}", "", "")
    with store.begin() as conn:
        fast = SqlRows(conn).round(entry)
        r = schema.rounds
        reference = dict(conn.execute(sa.select(r).where(r.c.round_id == "r-1")).one()._mapping)
    return fast, reference


def _check_round_read(store: Store) -> None:
    _opened(store)
    store.journal.append_many([_wager(1, "12.5")])
    fast, reference = _round_rows(store)
    assert fast == reference
    assert [type(fast[c]) for c in ("lucky_hit", "bonus_hit", "manual")] == [bool, bool, bool]


def test_the_fast_round_read_is_sqlalchemy_s_row(store: Store) -> None:
    _check_round_read(store)


@pytest.mark.skipif(PG_URL is None, reason="needs DRR_TEST_PG_URL")
def test_the_fast_round_read_is_sqlalchemy_s_row_on_postgresql() -> None:
    with pg_schema_url("drr_append") as url, open_store(url) as store:
        _check_round_read(store)


class _Colour(Enum):
    RED = "red"


@pytest.mark.parametrize(
    "payload",
    [
        {"id": "w1", "amount": "25.00", "numbers": [17, 20], "type": _Colour.RED},
        {"lucky": {17: "199", 5: "49", 30: "99"}},  # int keys: re-sorted as strings
        {"outer": [{"x": {2: 1, 10: 2}}]},
        {"text": 'é "quoted" \\ \n \u2028 \x00', "n": None, "f": 1.5, "b": True, "d": Decimal("0.10")},
        {"s": {3, 1, 2}, "t": (1, "a"), "e": {}},
        {},
    ],
)
def test_the_stored_text_and_hash_are_the_reference_s(payload: dict[str, Any]) -> None:
    reference_text = canonical_json(json.loads(canonical_json(payload)))
    text = canonical_payload(payload)
    assert text == reference_text
    for user, round_id, table in ((None, None, "T1"), ("dänä", 'r"1\\', "t.1-x")):
        fields = {"table": table, "seq": 1234, "time": "2026-12-01T16:00:00.000001Z"}
        fields |= {"user": user, "round_id": round_id, "type": "round.wager_placed", "prev_hash": "ab" * 32}
        assert entry_hash_of_text(payload_text=text, **fields) == entry_hash(  # type: ignore[arg-type]
            payload=json.loads(text),
            **fields,  # type: ignore[arg-type]
        )


def test_an_append_with_int_keys_stores_the_text_a_reader_re_encodes(store: Store) -> None:
    (entry,) = store.journal.append_many([NewEvent("T1", "test.note", {10: "a", 9: "b"}, None, None)])
    assert entry.payload_text == '{"10":"a","9":"b"}'  # as strings, "10" sorts first
    assert verify(store, "T1").ok


def test_a_raised_alert_moves_the_floor_chain_s_witness(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Appends inside a caller's own transaction (append_in) note the witness after the commit too:
    an alert raised on the store's signed floor chain moves its high water (it stayed behind before)."""
    from engine.floor.alerts import raise_alerts
    from engine.floor_events import AlertRaised
    from engine.store import keys
    from engine.store.users import add_user
    from engine.store.users_journal import FLOOR

    monkeypatch.setattr(keys, "WITNESS_EVERY", 0.0)
    add_user(store, "ada", "admin", "111111", by=None)  # keys the floor chain (SQLite)
    alert = AlertRaised("a-1", "T1", "critical", "wheel_fault", "the wheel stopped", entry="T1:7")
    assert raise_alerts(store, [alert])
    key = keys.load(store.where, FLOOR)
    assert key is not None and key.high_water == store.journal.head(FLOOR)
