"""One alert per fact (issue 12: two held rounds raised 47 alerts in 45 minutes): a held round is one
alert, updated with each further irregularity of it; a restarted scanner adds nothing; several alerts
are acknowledged at once, one journaled acknowledgement each."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from engine.auth import PermissionDenied
from engine.errors import DrrError
from engine.floor.alerts import AlertScanner, acknowledge_alerts, list_alerts
from engine.store import Store, schema
from engine.store.users import FLOOR
from tests.floor.helpers import add_users, store, store_url  # noqa: F401 - fixtures
from tests.payloads import RULES_SHA

NOW = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)


def _held_round(store: Store, round_id: str, spins: int, minute: int) -> None:  # noqa: F811
    j = store.journal
    j.append("T5", "round.opened", {"round_id": round_id, "rules_sha256": RULES_SHA},
             round_id=round_id, user="dana",
             time=f"2026-11-29T10:{minute:02d}:00.000000Z")  # fmt: skip
    for i in range(spins):  # the wheel keeps spinning while the round waits for the pit boss
        when = f"2026-11-29T10:{minute + i // 2:02d}:{(i % 2) * 30:02d}.500000Z"
        j.append("T5", "wheel.miss_spin", {"game": 100 + i}, round_id=round_id, user="wheel", time=when)
        j.append("T5", "round.irregularity",
                 {"kind": "doubtful_result", "reason": f"result {i % 37} while 'miss_spin' is unresolved"},
                 round_id=round_id, user="wheel", time=when)  # fmt: skip


def _floor_types(store: Store) -> list[str]:  # noqa: F811
    j = schema.journal
    with store.read() as conn:
        query = sa.select(j.c.type).where(j.c.table_id == FLOOR).order_by(j.c.seq)
        return list(conn.execute(query).scalars())


def test_two_held_rounds_are_two_alerts_updated(store: Store) -> None:  # noqa: F811
    _held_round(store, "r1", 12, 0)
    scanner = AlertScanner()
    first = scanner.scan(store, ["T5"], now=NOW)
    assert [a.alert_id for a in first if a.kind != "table silent"] == ["T5:r1:held"]
    _held_round(store, "r2", 11, 20)
    again = scanner.scan(store, ["T5"], now=NOW)
    assert [a.alert_id for a in again if a.kind != "table silent"] == ["T5:r2:held"]
    alerts = [a for a in list_alerts(store) if a.table == "T5" and a.kind != "table silent"]
    assert sorted(a.alert_id for a in alerts) == ["T5:r1:held", "T5:r2:held"]
    r1 = {a.alert_id: a for a in alerts}["T5:r1:held"]
    assert r1.count == 24 and r1.round_id == "r1"  # 12 wheel faults, 12 irregularities: one alert
    assert "unresolved" in r1.message and r1.first_at < (r1.at or "")
    # A restarted station (a new scanner) reads the same entries again: nothing new, no update twice.
    before = _floor_types(store)
    assert AlertScanner().scan(store, ["T5"], now=NOW) == []
    assert _floor_types(store) == before
    assert before.count("alert.updated") == 23 + 21


def test_bulk_acknowledge_journals_one_acknowledgement_each(store: Store) -> None:  # noqa: F811
    users = add_users(store)
    _held_round(store, "r1", 2, 0)
    _held_round(store, "r2", 2, 20)
    AlertScanner().scan(store, ["T5"], now=NOW)
    ids = [a.alert_id for a in list_alerts(store) if not a.acknowledged]
    assert len(ids) >= 2
    with pytest.raises(PermissionDenied):
        acknowledge_alerts(store, ids, users["croupier"])
    with pytest.raises(DrrError, match="no alert nope"):
        acknowledge_alerts(store, [*ids, "nope"], users["surveillance"])  # all or none
    assert not any(a.acknowledged for a in list_alerts(store))
    assert acknowledge_alerts(store, ids, users["surveillance"], "seen on camera") == len(ids)
    assert _floor_types(store).count("alert.acknowledged") == len(ids)
    assert all(a.acknowledged_by == "sam" for a in list_alerts(store))
    # A further irregularity of an acknowledged held round updates it; the acknowledgement stands.
    store.journal.append("T5", "round.irregularity", {"kind": "doubtful_result", "reason": "again"},
                         round_id="r1", user="wheel", time="2026-11-29T10:59:00.000000Z")  # fmt: skip
    AlertScanner().scan(store, ["T5"], now=NOW)
    r1 = {a.alert_id: a for a in list_alerts(store)}["T5:r1:held"]
    assert r1.acknowledged and r1.since_acknowledged == 1 and r1.message.endswith("(again)")
