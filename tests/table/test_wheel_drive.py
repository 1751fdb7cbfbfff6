"""The table drives the wheel (issue 12 point 2): with a commanded wheel the betting time is the
settings' figure, counted on the service's clock from open bets, and the service orders the spin
(`table.wheel_start`) only when the round is ready; it never orders one while the round waits."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.errors import DrrError
from engine.journal_types import write
from engine.store import Store
from engine.table import wheel_drive
from engine.table.service import TableService
from engine.table_events import SettingsChanged
from tests.table.helpers import CROUPIER, Clock, make_service, run, spin, wheel


def orders(store: Store) -> list[str]:
    return [e.payload["why"] for e in store.journal.entries("T1") if e.type == E.TABLE_WHEEL_START]


async def opened(store: Store, clock: Clock, **kw: Any) -> TableService:
    svc = make_service(store, clock=clock, betting_seconds=20, **kw)
    await svc.start()
    await wheel(svc, {"type": "started", "game": 3})  # a commanded wheel waits in state 2
    await svc.open_bets(CROUPIER)
    await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
    return svc


def test_the_spin_is_ordered_when_the_betting_time_is_over(store: Store) -> None:
    async def go() -> None:
        clock = Clock(2_000_000.0)
        svc = await opened(store, clock)
        [betting] = [e for e in store.journal.entries("T1") if e.type == E.TABLE_BETTING_TIME]
        assert betting.payload == {"seconds": 20.0, "deadline": clock.now + 20}
        assert wheel_drive.countdown(svc.state, clock.now + 5) == ("betting", 15.0)
        clock.now += 19.9
        assert await svc.tick_clock() == [] and orders(store) == []
        clock.now += 0.2
        assert [e.type for e in await svc.tick_clock()] == [E.TABLE_WHEEL_START]
        assert orders(store) == ["betting time over"] and svc.state.drive.order_outstanding
        assert await svc.tick_clock() == []  # one order per spin
        assert svc.phase == "open"  # bets stay open until the wheel's "no more bets"
        await wheel(svc, {"type": "launched", "game": 3})
        assert not svc.state.drive.order_outstanding
        await wheel(svc, {"type": "no_more_bets", "game": 3})
        assert svc.phase == "closed"
        await svc.close()

    run(go())


def test_the_croupier_closing_early_orders_the_spin_at_once(store: Store) -> None:
    async def go() -> None:
        clock = Clock(2_000_000.0)
        svc = await opened(store, clock)
        await svc.no_more_bets(CROUPIER)
        assert [e.type for e in await svc.tick_clock()] == [E.TABLE_WHEEL_START]
        assert orders(store) == ["bets closed by the croupier"]
        await svc.close()

    run(go())


def test_no_spin_is_ordered_while_the_round_waits_and_a_no_spin_orders_the_re_spin(store: Store) -> None:
    async def go() -> None:
        clock = Clock(2_000_000.0)
        svc = await opened(store, clock)
        clock.now += 21
        await svc.tick_clock()
        await wheel(svc, {"type": "launched", "game": 3}, {"type": "miss_spin", "game": 3})
        assert svc.state.hold is not None
        clock.now += 100
        assert await svc.tick_clock() == []  # on hold: nothing is started
        await wheel(svc, {"type": "no_more_bets", "game": 3})
        await svc.no_spin(CROUPIER, "ball ran with the rotor")
        assert [e.type for e in await svc.tick_clock()] == [E.TABLE_WHEEL_START]
        assert orders(store) == ["betting time over", "re-spin after a no-spin"]
        await wheel(svc, *spin(4, 12))
        assert svc.state.pending_result is not None
        clock.now += 100
        assert await svc.tick_clock() == []  # a result waits for confirmation: nothing is started
        await svc.close()

    run(go())


def test_the_pit_bosss_settings_give_the_betting_time(store: Store) -> None:
    async def go() -> None:
        clock = Clock(2_000_000.0)
        svc = make_service(store, clock=clock, betting_seconds=20)
        await svc.start()
        change = SettingsChanged({"betting_seconds": "45"}, "busy table", "pete", "pitboss", "next round")
        store.journal.append_many([write(change, table="T1", user="pete")])
        await svc.open_bets(CROUPIER)
        [betting] = [e for e in store.journal.entries("T1") if e.type == E.TABLE_BETTING_TIME]
        assert betting.payload["seconds"] == 45.0
        await svc.close()

    run(go())


def test_a_free_running_wheel_gets_no_orders(store: Store) -> None:
    async def go() -> None:
        clock = Clock(2_000_000.0)
        svc = make_service(store, clock=clock)  # betting_seconds None: the wheel runs on its own
        await svc.start()
        await svc.open_bets(CROUPIER)
        clock.now += 1000
        assert await svc.tick_clock() == []
        assert E.TABLE_BETTING_TIME not in [e.type for e in store.journal.entries("T1")]
        await wheel(svc, *spin(1, 5))
        assert svc.state.pending_result is not None
        await svc.close()

    run(go())


def test_a_bad_time_is_refused(store: Store) -> None:
    with pytest.raises(DrrError, match=r"betting time must be 0\.\.600 seconds"):
        make_service(store, betting_seconds=-1)


def test_a_pit_boss_sets_the_tables_times_and_bad_ones_are_refused(store: Store) -> None:
    from engine.floor.actions import change_settings
    from tests.table.helpers import PITBOSS

    for bad in ("3", "601", "abc", "1e3"):
        with pytest.raises(DrrError, match="betting_seconds must be seconds 5-600"):
            change_settings(store, "T1", {"betting_seconds": bad}, "busy", PITBOSS)
    with pytest.raises(DrrError, match="auto_confirm_seconds must be seconds 0-600 or off"):
        change_settings(store, "T1", {"auto_confirm_seconds": "-1"}, "busy", PITBOSS)
    change_settings(store, "T1", {"betting_seconds": "30", "auto_confirm_seconds": "off"}, "busy", PITBOSS)

    async def go() -> None:
        clock = Clock(2_000_000.0)
        svc = make_service(store, clock=clock, betting_seconds=20, auto_confirm_seconds=5)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 1})
        await svc.open_bets(CROUPIER)
        [betting] = [e for e in store.journal.entries("T1") if e.type == E.TABLE_BETTING_TIME]
        assert betting.payload["seconds"] == 30.0
        await wheel(svc, *spin(1, 5))
        assert svc.state.pending_result is not None and svc.state.drive.confirm is None  # off
        await svc.close()

    run(go())


def test_a_spin_launched_before_a_restart_is_ordered_again(store: Store) -> None:
    """Killed while the ball of the round's ordered spin was in the rim: the new process has a new wheel
    link (the virtual wheel starts over and waits in state 2), so the order stands again and the
    driver re-sends it; before, the restarted table waited for a launch that never came."""

    async def go() -> None:
        clock = Clock(2_000_000.0)
        svc = await opened(store, clock)
        clock.now += 21
        await svc.tick_clock()
        await wheel(svc, {"type": "launched", "game": 3})
        assert not svc.state.drive.order_outstanding  # launched: nothing to send
        await svc.close()
        again = make_service(store, clock=clock, betting_seconds=20)
        await again.start()
        assert again.state.drive.order_outstanding, "the restarted table must order the spin again"
        await again.close()

    run(go())
