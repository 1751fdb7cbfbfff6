"""The wheel link's typed events in the table service's plain form (engine/table/wheel.py).

`engine/` never imports `hardware/`, so the table service takes wheel events as plain dicts. The
translation of names and fields lives with the table (`engine.table.wheel.check_wheel_event`, which
also accepts a link event's `to_json()` as it is); this module applies it to the link's events.
Events the table has no use for (command replies, self-tests, raw sensor lines) translate to None.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from engine.table.wheel import check_wheel_event
from hardware.events import WheelEvent
from hardware.link import WheelLink


def to_table_event(ev: WheelEvent) -> dict[str, Any] | None:
    """The table's form of `ev`, or None when the table does not need it."""
    plain = check_wheel_event(ev.to_json())
    return None if plain is None else dict(plain)


async def table_events(link: WheelLink) -> AsyncIterator[dict[str, Any]]:
    """The link's events in the table's form, as they arrive (those the table does not need skipped)."""
    async for ev in link.events():
        plain = to_table_event(ev)
        if plain is not None:
            yield plain
