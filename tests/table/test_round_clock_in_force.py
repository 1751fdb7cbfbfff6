"""Issue 25 point 6: the pit boss's Table settings showed betting seconds, auto-confirm and entry mode
blank. The table station journals the round clock it starts with (`table.started`), and the tab shows
each value in force and where it comes from, a pit boss's later setting over it."""

from __future__ import annotations

import asyncio

from engine.floor.actions import change_settings
from engine.floor.settings_in_force import settings_in_force
from engine.store import Store
from tests.table.helpers import PITBOSS, make_service


def test_the_round_clock_and_entry_mode_in_force_are_shown(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store, betting_seconds=20.0, auto_confirm_seconds=5.0)
        await svc.start()
        await svc.close()

    asyncio.run(go())
    shown = settings_in_force(store, "T1")
    assert (shown["betting_seconds"].value, shown["auto_confirm_seconds"].value) == ("20", "5")
    assert "station" in shown["betting_seconds"].source
    assert shown["entry_mode"].value == "all" and "default" in shown["entry_mode"].source
    change_settings(store, "T1", {"entry_mode": "winning", "auto_confirm_seconds": "off"}, "busy", PITBOSS)
    shown = settings_in_force(store, "T1")
    assert shown["entry_mode"].value == "winning" and "pit boss" in shown["entry_mode"].source
    assert shown["auto_confirm_seconds"].value == "off"


def test_a_station_without_a_round_clock_says_off_and_what_that_means(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)  # no commanded wheel, no automatic confirmation
        await svc.start()
        await svc.close()

    asyncio.run(go())
    shown = settings_in_force(store, "T1")
    betting, confirm = shown["betting_seconds"], shown["auto_confirm_seconds"]
    assert betting.value == "off" and "no betting countdown" in betting.source
    assert confirm.value == "off" and "a person confirms" in confirm.source
