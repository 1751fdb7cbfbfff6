"""The wheel as the table service takes it: engine wheel events, checked, and which make a spin doubtful.

A wheel event reaches `TableService.wheel_event` typed (engine/wheel_events.py; the wheel link
emits these directly, hardware/table_bridge.py passes them on) or, from tests, replays and the
CLI, in its plain mapping form::

    {"type": "result", "game": 151, "number": 24, "warnings": [], "time": "2026-11-29T15:00:01.123+00:00"}

`check_wheel_event` gives the typed event either way (a typed event checks itself when made;
`parse_wheel_event` reads the mapping). Unknown types and malformed fields raise DrrError naming
what is wrong. The types, their fields and their journal payloads are in engine/wheel_events.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.wheel_events import WheelEvent, parse_wheel_event

# Events that make the spin in progress doubtful: nothing may be settled on it until resolved.
DOUBTFUL: Final = frozenset(
    {
        EntryType.WHEEL_MISS_SPIN,
        EntryType.WHEEL_LAUNCH_FAILED,
        EntryType.WHEEL_BALL_NOT_DETECTED,
        EntryType.WHEEL_GAP,
        EntryType.WHEEL_RESTART,
        EntryType.WHEEL_CLOSED,
    }
)


def check_wheel_event(ev: WheelEvent | Mapping[str, Any]) -> WheelEvent:
    """The typed event of `ev` (typed: as it is; a mapping: parsed), or DrrError naming the bad field."""
    if isinstance(ev, WheelEvent):
        return ev
    if isinstance(ev, Mapping):
        return parse_wheel_event(ev)
    raise DrrError(f"a wheel event must be an engine wheel event or a mapping, not {type(ev).__name__}")
