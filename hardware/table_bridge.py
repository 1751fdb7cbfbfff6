"""The wheel link's typed events in the table service's plain form (engine/table/wheel.py).

`engine/` never imports `hardware/`, so the table service takes wheel events as plain dicts; this is
the one translation between the two vocabularies. Events the table has no use for (command replies,
self-tests, raw sensor lines, unreadable lines) translate to None.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from hardware.events import (
    BallNotDetected,
    LinkState,
    RotorSpeed,
    WarningChanged,
    WheelEvent,
    WheelResult,
    format_time,
    pocket_label,
)
from hardware.link import WheelLink

_TYPES = {
    "game_started": "started",
    "ball_launched": "launched",
    "no_more_bets": "no_more_bets",
    "result": "result",
    "table_closed": "closed",
    "ball_not_detected": "ball_not_detected",
    "warning_changed": "warning",
    "miss_spin": "miss_spin",
    "launch_failed": "launch_failed",
    "game_number_gap": "gap",
    "wheel_restart": "restart",
    "rotor_speed": "rotor",
    "link_state": "link",
    "result_mismatch": "warning",
}


def to_table_event(ev: WheelEvent) -> dict[str, Any] | None:
    """The table's form of `ev`, or None when the table does not need it."""
    kind = _TYPES.get(ev.type)
    if kind is None:
        return None
    out: dict[str, Any] = {"type": kind, "game": ev.game, "time": format_time(ev.time)}
    if isinstance(ev, WheelResult):
        if ev.number > 36:
            # 00/000/0000 cannot come from a single-zero wheel: a misconfigured or faulty sensor.
            return {
                **out,
                "type": "ball_not_detected",
                "reason": f"pocket {pocket_label(ev.number)} is not on a single-zero wheel",
            }
        out["number"] = ev.number
        out["warnings"] = list(ev.warnings)
    elif isinstance(ev, WarningChanged):
        out["warnings"] = list(ev.active)
        out["advice"] = ev.advice
    elif isinstance(ev, RotorSpeed):
        out["rpm"] = str(ev.rpm)
        out["direction"] = ev.direction
    elif isinstance(ev, BallNotDetected):
        out["reason"] = ev.reason
    elif isinstance(ev, LinkState):
        out["state"] = ev.state
        out["detail"] = ev.detail
    elif ev.type == "result_mismatch":
        data = ev.to_json()
        out["warnings"] = ["result_mismatch"]
        out["advice"] = f"number line {data['number_line']} vs status line {data['status_number']}"
    elif ev.type in ("game_number_gap", "wheel_restart"):
        out["previous"] = ev.to_json()["previous"]
    return out


async def table_events(link: WheelLink) -> AsyncIterator[dict[str, Any]]:
    """The link's events in the table's form, as they arrive (those the table does not need skipped)."""
    async for ev in link.events():
        plain = to_table_event(ev)
        if plain is not None:
            yield plain
