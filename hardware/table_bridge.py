"""What connects a table service and a wheel link: the link's events the table acts on, and the
table's start orders sent to a commanded wheel (`WheelDriver`).

The protocols emit the engine's wheel events (engine/wheel_events.py) directly, so nothing is
translated here: `table_events` only skips what the table has no use for (command replies,
self-tests, raw sensor lines, unreadable lines, counter wraps, the wheel's own bonus number).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Literal

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.store.records import Entry
from engine.table import wheel_drive
from engine.table.service import TableService
from engine.wheel_events import WheelEvent, WheelRotor
from hardware.commands import WheelCommands
from hardware.events import LinkEvent
from hardware.link import WheelLink

log = logging.getLogger("hardware.bridge")

RETRY_S = 1.0  # a refused start is sent again this often while the table's order stands


def for_table(ev: LinkEvent) -> WheelEvent | None:
    """`ev` when the table acts on it (an engine wheel event), else None."""
    return ev if isinstance(ev, WheelEvent) else None


async def table_events(link: WheelLink) -> AsyncIterator[WheelEvent]:
    """The link's engine wheel events, as they arrive (its own messages skipped)."""
    async for ev in link.events():
        if isinstance(ev, WheelEvent):
            yield ev


class WheelDriver:
    """Sends the table's start orders to a commanded wheel (SS2 user start, the virtual wheel's default;
    the command is the link protocol's `start_command`, so any commanded protocol is driven alike).

    The decision is the engine's (engine.table.wheel_drive: the service journals `table.wheel_start`
    when the betting time is over and nothing holds the round); this only carries it to the cable:
    on that entry, and again whenever the wheel reports it is waiting in state 2 (`wheel.started`)
    while the order is outstanding, it sends the start (SS2: `*u 1` / `*u 3`). A refusal (`*u NO`:
    the wheel is not waiting yet, e.g. still in state 1 after power-up, or it is free-running) is
    logged once and the start is sent again every `retry_s` while the order stays outstanding (the
    wheel launching, or the round no longer needing the spin, ends it). The wheel's own messages go
    on reaching the table through the link as before. With `alternate` (the default) each start
    turns the rotor the other way from the way the wheel last reported it turning (`*u 1`, `*u 3`,
    `*u 1`, …; before any report, the other way from the start sent before): a wheel in user start
    turns the way the host says, and surveillance expects it to reverse every game
    (engine.floor.wheel_alarms' direction alarm). The wheel's own report decides, not a count of
    the starts sent, because the wheel outlives the driver: a station restarted against a running
    wheel, a start whose reply was lost, or a game the wheel played before the table listened would
    otherwise send the same way twice and raise a false direction alarm.

        driver = WheelDriver(service, link)
        stop = driver.attach()     # subscribes to the service's batches
        ...
        await driver.close()
    """

    def __init__(
        self,
        service: TableService,
        link: WheelLink,
        *,
        direction: Literal["cw", "ccw"] = "cw",
        retry_s: float = RETRY_S,
        alternate: bool = True,
    ) -> None:
        self.service = service
        self.alternate = alternate
        self.retry_s = retry_s
        self.commands = WheelCommands(link)
        self.direction: Literal["cw", "ccw"] = direction
        self.sent = 0
        self.refused: list[str] = []
        self.link = link
        self._turning_at_start: WheelRotor | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe: Callable[[], None] | None = None

    def attach(self) -> Callable[[], None]:
        self._unsubscribe = self.service.subscribe_batches(self._on_batch)
        if wheel_drive.order_outstanding(self.service.state):  # a restart while the order stood
            self._send()
        return self.detach

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def next_direction(self) -> Literal["cw", "ccw"]:
        """The way the next start turns the rotor: alternating, the other way from the wheel's last
        report of its rotor turning (`WheelLink.turning`) when one came since the last start taken,
        else the driver's own next."""
        turning = self.link.turning
        if self.alternate and turning is not None and turning is not self._turning_at_start:
            return "ccw" if turning.direction == "cw" else "cw"
        return self.direction

    def _on_batch(self, entries: list[Entry], _changes: object, _view: object) -> None:
        # Runs under the service's command lock: the command goes out as a task, never awaited here.
        types = {e.type for e in entries}
        ordered = EntryType.TABLE_WHEEL_START in types
        waiting = EntryType.WHEEL_STARTED in types and wheel_drive.order_outstanding(self.service.state)
        if ordered or waiting:
            self._send()

    def _send(self) -> None:
        if self._tasks:
            return  # a start is on its way (or being retried)
        task = asyncio.get_running_loop().create_task(self._start(), name="wheel-start")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start(self) -> None:
        while True:
            direction = self.next_direction()
            try:
                await self.commands.start_game(direction)
            except DrrError as exc:
                if not self.refused or self.refused[-1] != exc.message:
                    log.warning("the wheel did not take the start command: %s (trying again)", exc.message)
                self.refused.append(exc.message)
            else:
                self.sent += 1
                self.direction = direction
                # The report heard before this start says the game before's way: the next start
                # reverses a newer one, or else this start's own.
                self._turning_at_start = self.link.turning
                if self.alternate:
                    self.direction = "ccw" if direction == "cw" else "cw"
                return
            await asyncio.sleep(self.retry_s)
            if not wheel_drive.order_outstanding(self.service.state):
                return

    async def close(self) -> None:
        self.detach()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
