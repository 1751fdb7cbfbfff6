"""The wheel's rotor readings reach the journal throttled (for the surveillance rotor trend)."""

from __future__ import annotations

import asyncio
from typing import Any

from engine.floor.surveillance import JournalTail
from engine.store import Store
from engine.table.service import ROTOR_JOURNAL_S
from tests.table.helpers import make_service


def test_rotor_readings_are_journaled_at_most_every_few_seconds_and_on_a_direction_change(
    store: Store,
) -> None:
    now = [1000.0]

    async def go() -> None:
        svc = make_service(store, clock=lambda: now[0])
        await svc.start()

        async def rotor(rpm: str, direction: str) -> Any:
            return await svc.wheel_event({"type": "rotor", "rpm": rpm, "direction": direction})

        assert len(await rotor("25.1", "cw")) == 1
        now[0] += 1
        assert await rotor("25.0", "cw") == []  # within the throttle
        now[0] += 1
        assert len(await rotor("24.0", "ccw")) == 1  # the rotor reversed
        now[0] += ROTOR_JOURNAL_S
        assert len(await rotor("23.5", "ccw")) == 1
        await svc.close()

    asyncio.run(go())
    tail = JournalTail("T1")
    tail.update(store)
    assert [(rpm, d) for _, rpm, d in tail.rotor] == [(25.1, "cw"), (24.0, "ccw"), (23.5, "ccw")]
