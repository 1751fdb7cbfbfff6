"""The wheel link's events the table acts on: its engine wheel events, the link's own messages left out.

The protocols emit the engine's wheel events (engine/wheel_events.py) directly, so nothing is
translated here: `table_events` only skips what the table has no use for (command replies,
self-tests, raw sensor lines, unreadable lines, counter wraps, the wheel's own bonus number).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from engine.wheel_events import WheelEvent
from hardware.events import LinkEvent
from hardware.link import WheelLink


def for_table(ev: LinkEvent) -> WheelEvent | None:
    """`ev` when the table acts on it (an engine wheel event), else None."""
    return ev if isinstance(ev, WheelEvent) else None


async def table_events(link: WheelLink) -> AsyncIterator[WheelEvent]:
    """The link's engine wheel events, as they arrive (its own messages skipped)."""
    async for ev in link.events():
        if isinstance(ev, WheelEvent):
            yield ev
