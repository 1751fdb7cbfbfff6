"""The table drives the wheel (issue 12 points 2 and 3) on the virtual SS2 wheel through the real link:
commanded, the wheel spins only on the table's start command and never while a round waits; free-running,
its later spins never turn an accepted result into a hold."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.floor.wheel_alarms import TableWatch, WatchSettings
from engine.journal_types import read
from engine.rng import SeededRng
from engine.store import open_store
from engine.table.service import TableService
from hardware.table_bridge import WheelDriver, table_events
from hardware.virtual_wheel import MODE_COMMANDED, VirtualWheel
from hardware.wheel_source import commanded, open_wheel
from tests.table.helpers import CROUPIER

SPEED = 20.0  # the 39 s cycle in about 2 s


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def until(condition: Callable[[], bool], seconds: float = 15.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


def test_the_virtual_wheel_is_commanded_by_default_and_free_on_request() -> None:
    """Before: `sim` (make run's wheel) ran its own 39 s cycle whatever the croupier did."""
    link = open_wheel("sim")
    assert link.wheel.mode == MODE_COMMANDED  # type: ignore[attr-defined]
    assert commanded("sim") and commanded("sim:miss@2")
    free = open_wheel("sim:free,miss@2")
    assert free.wheel.mode & 2 == 0 and free.wheel.faults.for_game(2) == {"miss"}  # type: ignore[attr-defined]
    assert not commanded("sim:free") and not commanded("replay:x.log")
    assert commanded("serial:/dev/ttyS0") and not commanded("serial:/dev/ttyS0", "free")


def test_a_commanded_wheel_waits_in_state_2_until_told_to_start() -> None:
    async def go() -> None:
        wheel = VirtualWheel(speed=SPEED, seed=4, mode=MODE_COMMANDED)
        lines: list[str] = []

        async def read() -> None:
            async for line in wheel.lines():
                lines.append(line)

        reader = asyncio.create_task(read())
        await asyncio.sleep(3.0)  # a minute and more of wheel time
        assert wheel.state == 2 and wheel.results_played == 0
        wheel.receive(b"*u 1\r\n")
        await until(lambda: wheel.results_played == 1)
        assert "*u OK" in lines
        await until(lambda: wheel.state == 2)
        await asyncio.sleep(2.0)
        assert wheel.results_played == 1  # the next game waits for its own start
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader

    run(go())


async def _table(
    tmp_path: Path, spec: str, speed: float = SPEED, **kw: Any
) -> tuple[Any, TableService, Any, list[asyncio.Task[Any]]]:
    store = open_store(str(tmp_path / "t.sqlite"), table="T1")
    svc = TableService(store, "T1", rng=SeededRng(5), allow_seeded_rng=True, claim=False, **kw)
    await svc.start()
    link = open_wheel(spec, speed=speed, seed=9)
    await link.__aenter__()

    async def pump() -> None:
        async for ev in table_events(link):
            await svc.wheel_event(ev)

    return store, svc, link, [asyncio.create_task(pump())]


async def _close(store: Any, svc: TableService, link: Any, tasks: list[asyncio.Task[Any]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await link.__aexit__(None, None, None)
    await svc.close()
    store.close()


def _started(store: Any) -> bool:
    return any(e.type == E.WHEEL_STARTED for e in store.journal.entries("T1"))


def test_the_table_starts_each_spin_and_no_win_is_lost(tmp_path: Path) -> None:
    async def go() -> None:
        store, svc, link, tasks = await _table(tmp_path, "sim", betting_seconds=0.5, auto_confirm_seconds=0.3)
        driver = WheelDriver(svc, link)
        driver.attach()
        try:
            await until(lambda: _started(store))
            await svc.open_bets(CROUPIER)
            await svc.place_wager(CROUPIER, "anna", inside_bet([33]), Decimal(5))
            await until(lambda: svc.phase == "result")  # the wheel spun when told; nobody confirmed
            wheel = link.wheel
            assert driver.sent == 1 and wheel.results_played == 1
            assert svc.round is not None and svc.round.result == wheel.history[-1][1]
            [auto] = [e for e in store.journal.entries("T1") if e.type == E.ROUND_RESULT]
            assert auto.user == "timer" and auto.payload["auto_confirmed_after"] == 0.3
            await asyncio.sleep(4.0)  # two wheel cycles: the round waits (for settlement), so no spin
            assert wheel.results_played == 1 and svc.state.hold is None and svc.phase == "result"
            await svc.settle(CROUPIER)
            await svc.next_round(CROUPIER)
            await svc.open_bets(CROUPIER)
            await until(lambda: svc.phase == "result")
            assert driver.sent == 2 and wheel.results_played == 2
            whys = [e.payload["why"] for e in store.journal.entries("T1") if e.type == E.TABLE_WHEEL_START]
            assert whys == ["betting time over", "betting time over"]
        finally:
            await driver.close()
            await _close(store, svc, link, tasks)

    run(go())


def test_a_free_running_wheels_next_spin_does_not_hold_the_accepted_result(tmp_path: Path) -> None:
    """Round 15 of the issue on the wire: the accepted result waits, the wheel spins again ~40 s later."""

    async def go() -> None:
        store, svc, link, tasks = await _table(tmp_path, "sim:free")
        try:
            await until(lambda: _started(store))
            await svc.open_bets(CROUPIER)
            await until(lambda: svc.state.pending_result is not None)
            first = svc.state.pending_result
            assert first is not None
            wheel = link.wheel
            await until(lambda: wheel.results_played >= 2)
            await asyncio.sleep(0.3)
            assert svc.state.hold is None and svc.state.pending_result == first
            await svc.confirm_result(CROUPIER)
            assert svc.round is not None and svc.round.result == first.number
        finally:
            await _close(store, svc, link, tasks)

    run(go())


def test_a_refused_start_is_sent_again_until_the_wheel_takes_it(tmp_path: Path) -> None:
    """Bets opened while the wheel is still in state 1 (power-up): `*u NO`, then sent again until it
    launches; an order journaled before the driver listened (a restart) is sent when it attaches."""

    async def go() -> None:
        store, svc, link, tasks = await _table(tmp_path, "sim", speed=2.0, betting_seconds=0.0)
        driver = WheelDriver(svc, link, retry_s=0.05)
        try:
            await until(lambda: _started(store))
            assert link.wheel.state == 1
            await svc.open_bets(CROUPIER)
            await until(lambda: svc.state.drive.spin_ordered)
            driver.attach()
            await until(lambda: svc.phase == "closed")
            assert driver.sent == 1 and driver.refused and "NO" in driver.refused[0]
        finally:
            await driver.close()
            await _close(store, svc, link, tasks)

    run(go())


def test_a_restarted_driver_reverses_the_way_the_wheel_turns(tmp_path: Path) -> None:
    """The station restarted against a wheel that kept running (a real one, or the virtual wheel on a
    pty): the new driver's first start reverses the rotor as the wheel last reported it, not its own
    count of starts. Before, each driver began with `*u 1`: after an odd number of games, the game
    after the restart turned the same way as the one before it, a false direction alarm."""

    async def round_played(svc: TableService) -> None:
        await svc.open_bets(CROUPIER)
        await until(lambda: svc.phase == "result")
        await svc.settle(CROUPIER)
        await svc.next_round(CROUPIER)

    async def go() -> None:
        store, svc, link, tasks = await _table(tmp_path, "sim", betting_seconds=0.2, auto_confirm_seconds=0.1)
        first = WheelDriver(svc, link)
        first.attach()
        try:
            await until(lambda: _started(store))
            await round_played(svc)
        finally:
            await first.close()  # the station stops; the wheel goes on turning
        second = WheelDriver(svc, link)
        second.attach()
        try:
            for _ in range(2):
                await round_played(svc)
            assert (first.sent, second.sent) == (1, 2)
        finally:
            await second.close()
            await _close(store, svc, link, tasks)

    run(go())
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
        entries = list(store.journal.entries("T1"))
    watch = TableWatch(WatchSettings(games_per_hour=0))
    said = [a for e in entries for a in watch.feed(read(e), e.time)]
    assert [g.game for g in watch.games] == [1, 2, 3]
    directions = [g.direction for g in watch.games]
    assert all(a != b for a, b in itertools.pairwise(directions)), directions
    assert said == []
