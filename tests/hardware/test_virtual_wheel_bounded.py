"""What the virtual wheel keeps stays bounded over many games: its log, its history, its tasks (issue 28)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from hardware.events import LinkEvent, SelfTest
from hardware.protocol.ss2_log import PAGE_BYTES, WheelLog
from hardware.sim_link import SimLink
from hardware.virtual_wheel import HISTORY_KEPT, MODE_FREE, VirtualWheel
from hardware.wheel_log import ask_wheel_log

PAGES = 2  # a small ring, so that it fills and turns over more than once
GAMES = 3 * PAGE_BYTES + 10
SELF_TESTS = 12


async def _until(check: Callable[[], bool]) -> None:
    while not check():  # bounded by the test run's own timeout, not by a time asserted
        await asyncio.sleep(0.001)


def test_the_log_is_a_ring_of_pages_and_the_history_and_tasks_stay_bounded() -> None:
    """GAMES results (three rings' worth) fill a log of PAGES pages: it keeps whole pages, the last
    results, and `*s t`/`*s r` still give them (what `drr wheel log`/`reconcile` read); the history
    keeps HISTORY_KEPT games; self-tests that ended leave no task behind."""

    async def go() -> tuple[VirtualWheel, WheelLog, int]:
        wheel = VirtualWheel(speed=100_000, seed=7, mode=MODE_FREE, log_pages=PAGES)
        async with SimLink(wheel, silence_after=None) as link:
            await _until(lambda: wheel.results_played >= GAMES)
            await link.command("*P 0")
            await _until(lambda: wheel.state == 6)
            record = await ask_wheel_log(link)
            answered: list[LinkEvent] = []
            link.subscribe(lambda e: answered.append(e) if isinstance(e, SelfTest) else None)
            for _ in range(SELF_TESTS):
                wheel.handle_command("*F")
            await _until(lambda: len(answered) >= SELF_TESTS)
            tasks = len(wheel._tasks)
        return wheel, record, tasks

    wheel, record, tasks = asyncio.run(go())
    played = wheel.results_played
    assert played >= GAMES and sum(wheel.wins) == played  # the per-pocket counts count every game
    kept = wheel.log
    assert PAGE_BYTES < len(kept) <= PAGES * PAGE_BYTES  # whole pages dropped, never the last one
    assert len(kept) % PAGE_BYTES == played % PAGE_BYTES  # the oldest pages went whole
    assert record.pages_used == PAGES and all(page.checksum_ok for page in record.pages.values())
    assert record.entries() == kept  # the pages give what the ring holds, oldest first
    assert len(wheel.history) == HISTORY_KEPT
    assert [e.pocket for e in kept][-HISTORY_KEPT:] == [n for _, n in wheel.history]  # the last games
    assert tasks == 1  # the status ticker only: the power-down and the self-tests ended and left
