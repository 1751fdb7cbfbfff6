"""The wheel's event types (engine/wheel_events.py): one per wheel.* entry type, and each reads and
writes exactly the payloads the table service has journaled (so old journals read as they are)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.wheel_events import (
    RESULT_MISMATCH,
    WHEEL_EVENTS,
    WheelBallNotDetected,
    WheelResult,
    WheelRotor,
    WheelStarted,
    WheelWarning,
    mapping_form,
    parse_wheel_event,
    with_verdict,
)

T = "2026-11-29T15:00:01.123+00:00"
# Payloads as the table service journaled them before the typed events (taken from a journal made
# by the old service from captures A and B, plus the hand-built shapes tests and replays send).
JOURNALED: list[tuple[str, dict[str, Any]]] = [
    ("wheel.started", {"game": 2, "time": "2025-09-16T06:44:46.581"}),
    ("wheel.started", {"game": 12}),
    ("wheel.launched", {"game": 2, "time": "2025-09-16T06:44:56.581"}),
    ("wheel.no_more_bets", {"game": 2, "time": "2025-09-16T06:44:59.078"}),
    (
        "wheel.result",
        {
            "accepted": True,
            "direction": "cw",
            "game": 2,
            "number": 28,
            "time": "2025-09-16T06:45:24.582",
            "warnings": [],
        },
    ),
    (
        "wheel.result",
        {
            "accepted": False,
            "game": 2,
            "note": "round already result",
            "number": 14,
            "time": "2025-09-23T07:26:06.884",
            "warnings": [],
        },
    ),
    ("wheel.result", {"game": 12, "number": 17, "accepted": True, "direction": None}),
    ("wheel.result", {"game": 3, "number": 5, "warnings": ["no_ball"], "accepted": False, "time": T}),
    ("wheel.result", {"game": None, "number": 0, "note": "no round in play", "accepted": False}),
    ("wheel.closed", {"game": 1, "time": "2025-09-10T06:19:42.188"}),
    ("wheel.ball_not_detected", {"game": 7, "reason": "no-ball-flag", "time": T}),
    (
        "wheel.ball_not_detected",
        {"game": 8, "reason": "pocket 000 is not on a single-zero wheel", "time": T, "warnings": ["no_ball"]},
    ),
    (
        "wheel.warning",
        {
            "advice": "ball runs with the rotor: in state 3 this is a miss-spin, lock bets and send *R",
            "game": 7,
            "time": "2025-09-23T07:46:19.993",
            "warnings": ["same_direction"],
        },
    ),
    ("wheel.warning", {"game": 5, "time": T, "warnings": [], "advice": ""}),
    (
        "wheel.warning",
        {"game": 5, "time": T, "warnings": ["result_mismatch"], "advice": "number line 13 vs status line 12"},
    ),
    ("wheel.miss_spin", {"game": 6, "time": T}),
    ("wheel.launch_failed", {"game": 6, "time": T}),
    ("wheel.gap", {"game": 2, "previous": 3, "time": "2025-09-23T07:25:28.384"}),
    ("wheel.restart", {"game": 1, "previous": 2, "time": "2025-09-23T05:43:11.298"}),
    ("wheel.rotor", {"direction": "ccw", "game": 2, "rpm": "14.6", "time": "2025-09-16T06:44:46.581"}),
    ("wheel.rotor", {"direction": "cw", "game": None, "rpm": "24.50"}),
    ("wheel.link", {"detail": "no line for 5 s", "game": None, "state": "silent", "time": T}),
    (
        "wheel.identity",
        {
            "clock": "2026-12-03T12:00:03",
            "firmware": "252",
            "fpga": "FPGA 1.07 COPRO 2.03",
            "game": None,
            "maker": "CAM",
            "offset": "3",
            "time": T,
            "version": "SS2 2.52",
        },
    ),
    ("wheel.identity", {"game": 4, "version": "SS2 2.52"}),
    ("wheel.clock", {"clock": "2026-12-03T13:00:40", "game": 9, "occasion": "reconcile", "offset": "-2"}),
]


def test_every_wheel_entry_type_has_its_event_class() -> None:
    # The table's reconciliation of the wheel's log is the table's fact, not a message the link emits.
    wheel_types = {t for t in EntryType if t.name.startswith("WHEEL_")} - {EntryType.WHEEL_RECONCILED}
    assert set(WHEEL_EVENTS) == wheel_types
    assert all(cls.type is t for t, cls in WHEEL_EVENTS.items())
    assert {t for t, _ in JOURNALED} == {t.value for t in wheel_types}  # every type is tried below


@pytest.mark.parametrize(("name", "payload"), JOURNALED)
def test_journaled_payloads_round_trip_exactly(name: str, payload: dict[str, Any]) -> None:
    cls = WHEEL_EVENTS[EntryType(name)]
    event = cls.from_json(payload)
    assert type(event) is cls and event.to_json() == payload
    assert cls.from_json(event.to_json()) == event
    # The mapping form (what tests and decode --json use) reads back to the same event.
    assert parse_wheel_event(mapping_form(event)) == event


def test_typed_fields() -> None:
    rotor = WheelRotor.from_json({"game": 2, "rpm": "14.6", "direction": "ccw", "time": T})
    assert rotor.rpm == Decimal("14.6") and rotor.time == datetime(2026, 11, 29, 15, 0, 1, 123000, tzinfo=UTC)
    result = WheelResult.from_json({"game": 3, "number": 5, "warnings": ["no_ball"]})
    assert result.warnings == ("no_ball",) and result.accepted is None
    verdict = with_verdict(result, accepted=False, note="late", direction="cw")
    assert verdict.to_json() == {
        "game": 3,
        "number": 5,
        "warnings": ["no_ball"],
        "note": "late",
        "accepted": False,
    }
    assert WheelWarning(warnings=(RESULT_MISMATCH,)).is_mismatch


def test_wire_detail_is_not_journaled() -> None:
    started = WheelStarted(game=3, state=2)
    assert started.to_json() == {"game": 3} and started.wire_json() == {"game": 3, "state": 2}
    result = WheelResult(game=1, number=9, warnings=(), number_line=9)
    assert result.to_json() == {"game": 1, "number": 9, "warnings": []}
    wire = {"type": "result", "game": 1, "number": 9, "warnings": [], "number_line": 9, "pocket": "9"}
    assert mapping_form(result) == wire


def test_a_pocket_a_single_zero_wheel_lacks_is_a_doubtful_spin() -> None:
    event = parse_wheel_event({"type": "result", "number": 37, "game": 10, "warnings": []})
    assert isinstance(event, WheelBallNotDetected)
    assert event.to_json() == {
        "game": 10,
        "reason": "pocket 00 is not on a single-zero wheel",
        "warnings": [],
    }


@pytest.mark.parametrize(
    ("mapping", "why"),
    [
        ({"type": "explode"}, "unknown wheel event type 'explode'"),
        ({"type": "result", "number": 40}, "not a number 0-36"),
        ({"type": "result", "number": 3, "game": "x"}, "game 'x' is not a game number"),
        ({"type": "result", "number": 3, "game": -1}, "not a game number"),
        (
            {"type": "result", "number": 3, "warnings": "no_ball"},
            "warnings 'no_ball' must be a list of names",
        ),
        ({"type": "rotor", "rpm": "24", "direction": "up"}, "direction 'up' must be 'cw' or 'ccw'"),
        ({"type": "rotor", "rpm": "fast", "direction": "cw"}, "rpm 'fast' is not a decimal number"),
        ({"type": "started", "time": "yesterday"}, "time 'yesterday' is not an ISO 8601 time"),
        ({"type": "command_reply"}, "unknown wheel event type"),
    ],
)
def test_bad_events_are_refused_naming_the_field(mapping: dict[str, Any], why: str) -> None:
    with pytest.raises(DrrError, match=why):
        parse_wheel_event(mapping)
