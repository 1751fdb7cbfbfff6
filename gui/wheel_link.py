"""The croupier station's wheel link (`WheelFeed`): the wheel's events to the table, the link's health to
the sensor indicator, the table's start orders to a commanded wheel, and what the table asks the wheel
beside the play — its identity at connect, its clock again every `wheel.clock_check_minutes`, its own
log reconciled at the close — through the one path `drr table run --headless` takes too
(hardware.wheel_session.WheelSession), each outcome shown to the croupier in words (`say`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

CLOSE_SHOWN_S = 4.0  # the reconciliation's outcome stays on the croupier's screen this long at close


class WheelFeed:
    """Feeds the wheel's events to the table (which decides what they mean for the round) and the
    link's health to the sensor indicator. Everything runs as tasks on the qasync loop, held in
    `tasks` because asyncio keeps only weak references to running tasks. `say(text)`: where the
    croupier reads what the wheel session found (the window's reason line; `said` keeps them all).
    """

    HEALTH_PERIOD_S = 0.5

    def __init__(
        self,
        table: Any,
        spec: str,
        speed: float = 1.0,
        settings: Any = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.table = table
        self.spec = spec
        self.speed = speed
        self.settings = settings
        self.tasks: set[asyncio.Task[Any]] = set()
        self.link: Any = None
        self.warnings: tuple[str, ...] = ()
        self.driver: Any = None
        self.session: Any = None
        self.said: list[str] = []
        self._say = say
        self.forwarding = True  # off at the close: the wheel powered down for its log is no fault

    def start(self) -> None:
        from hardware.wheel_source import open_wheel

        extra: dict[str, Any] = {}
        if self.settings is not None:
            # Every line to and from the wheel goes to the capture folder, as the settings say.
            extra = {
                "capture_dir": self.settings.effective_capture_dir,
                "protocol": self.settings.wheel_protocol,
                "silence_after": self.settings.wheel_silence_seconds,
            }
        self.link = open_wheel(self.spec, speed=self.speed, **extra)
        self._spawn(self._pump())
        self._spawn(self._health())
        self._drive()
        self._ask()

    def _drive(self) -> None:
        """A wheel the table starts gets the service's start orders (hardware.table_bridge)."""
        from engine.table.service import TableService
        from hardware.table_bridge import WheelDriver
        from hardware.wheel_source import commanded

        drive = self.settings.wheel_drive if self.settings is not None else "commanded"
        service = self.table.source
        if commanded(self.spec, drive) and isinstance(service, TableService):
            alternate = self.settings.alarm_alternate if self.settings is not None else True
            self.driver = WheelDriver(service, self.link, alternate=alternate)
            self.driver.attach()

    def _ask(self) -> None:
        """The wheel's identity once the link is up, then its clock now and then (hardware.wheel_session),
        journaled by the table service like the wheel's own messages."""
        from engine.table.service import TableService
        from hardware.wheel_session import CLOCK_EVERY_S, WheelSession

        service = self.table.source
        if not isinstance(service, TableService):
            return
        protocol = self.settings.wheel_protocol if self.settings is not None else "ss2"
        minutes = self.settings.wheel_clock_check_minutes if self.settings is not None else None
        every = CLOCK_EVERY_S if minutes is None else (minutes * 60.0 or None)
        self.session = WheelSession(
            self.link,
            service.wheel_event,
            spec=self.spec,
            protocol=protocol,
            clock_every_s=every,
            say=self.say,
        )
        self.session.start()

    def say(self, text: str) -> None:
        self.said.append(text)
        if self._say is not None:
            self._say(text)

    @property
    def reconciles(self) -> bool:
        """The close reads the wheel's log (the settings' wheel.reconcile_at_close, an SS2 wheel)."""
        wanted = self.settings.wheel_reconcile_at_close if self.settings is not None else True
        return bool(wanted) and self.session is not None and self.session.protocol == "ss2"

    async def close_table(self, store: Any, table_id: str, user: Any) -> Any:
        """The table's close at the station: no more start orders and no more wheel events to the table,
        then the wheel's log read and held against the journal (the outcome said in words); the
        `wheel.reconciled` entry, or None when it was not read."""
        if not self.reconciles:
            return None
        if self.driver is not None:
            await self.driver.close()
            self.driver = None
        self.forwarding = False
        service = self.table.source
        state = service.state
        in_play = state.round_id if state.in_play else None
        return await self.session.close(store, table_id, user, in_play=in_play)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.table.irregularity.emit(f"wheel link stopped: {task.exception()}")

    async def _pump(self) -> None:
        async with self.link as wheel:
            async for event in wheel.events():
                self.on_event(event)

    def on_event(self, event: Any) -> None:
        from engine.wheel_events import WheelEvent, WheelWarning

        if not self.forwarding:
            return
        if isinstance(event, WheelWarning) and not event.is_mismatch:
            self.warnings = event.warnings or ()
        if isinstance(event, WheelEvent):  # the link's own messages (replies, raw lines) are not the table's
            self.table.wheel_event(event)

    async def _health(self) -> None:
        from gui.widgets.status import SensorHealth

        while True:
            h = self.link.health
            warnings = self.warnings + (("wheel silent",) if h.silent else ())
            if not h.connected and h.detail:
                warnings += (
                    h.detail,
                )  # why the port is down (permission, busy, absent): not always the cable
            self.table.set_sensor_health(SensorHealth(h.connected, h.source, h.last_line_age, warnings))
            await asyncio.sleep(self.HEALTH_PERIOD_S)

    async def stop(self) -> None:
        from hardware.task_cancel import cancel_until_done

        if self.driver is not None:
            await self.driver.close()
        if self.session is not None:
            await self.session.stop()
        # Cancelled until each has ended, as the session's questions are (one cancel can be lost).
        await cancel_until_done(self.tasks)
