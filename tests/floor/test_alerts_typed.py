"""Alerts read each entry's typed payload (issue 22 item 2): another writer's shorter settled form,
the wheel layer's first names for a restart and the link, and an entry that cannot be read (skipped:
`drr audit verify` reports it; the scan goes on)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from engine.floor.alerts import AlertScanner, list_alerts
from engine.store import Store
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures
from tests.payloads import RULES_SHA

NOW = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)
WHEN = "2026-11-29T10:59:30.000000Z"


def _append(store: Store, kind: str, payload: dict[str, object], round_id: str | None = "r1") -> None:  # noqa: F811
    store.journal.append("T7", kind, payload, round_id=round_id, user="wheel", time=WHEN)


def test_a_short_settled_form_over_the_threshold_is_a_large_payout(store: Store) -> None:  # noqa: F811
    _append(store, "round.opened", {"round_id": "r1", "rules_sha256": RULES_SHA})
    _append(store, "round.settled", {"wagered": "10.00", "paid": "6000.00"})
    found = AlertScanner(payout_threshold=Decimal(5000)).scan(store, ["T7"], now=NOW)
    assert [(a.kind, a.message) for a in found] == [
        ("large payout", "round r1 paid 6000.00 (threshold 5000)")
    ]


def test_the_wheel_layers_first_names_are_sensor_faults(store: Store) -> None:  # noqa: F811
    _append(store, "wheel.wheel_restart", {"game": 12, "previous": 11}, round_id=None)
    _append(store, "wheel.link_state", {"game": None, "state": "disconnected", "detail": "no reply"}, None)
    AlertScanner().scan(store, ["T7"], now=NOW)
    (alert,) = list_alerts(store)  # the wheel's faults with no round in play: one alert per day
    assert (alert.kind, alert.severity) == ("sensor fault", "critical")
    assert [(severity, words) for _at, severity, words in alert.events] == [
        ("warning", "wheel restart on the table"),
        ("critical", "wheel link disconnected: no reply"),
    ]


def test_an_unreadable_entry_is_skipped_and_the_scan_goes_on(store: Store) -> None:  # noqa: F811
    _append(store, "round.opened", {"round_id": "r1", "rules_sha256": RULES_SHA})
    _append(store, "rng.fault", {"test": "repetition count test"})  # no generator, no counts: unreadable
    _append(store, "round.voided", {"reason": "table closed"})
    found = AlertScanner().scan(store, ["T7"], now=NOW)
    assert [(a.kind, a.message) for a in found] == [("void", "round r1 voided: table closed")]
