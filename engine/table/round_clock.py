"""The table service's one timer for the round's countdowns (betting time, auto-confirmation).

`RoundTimer(due, tick, clock)` keeps a single asyncio task asleep until `due()` (a time on the
service's clock, or None: nothing counts down) and then awaits `tick()` (TableService.tick_clock,
which decides on the journal's state what, if anything, is due: engine.table.wheel_drive). The
service calls `schedule()` after every batch it journals, so a new round, a result or a dispute
moves the timer; `stop()` on close. Nothing is decided here: a tick that finds nothing due does
nothing, so a timer woken early or late is harmless.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from engine.errors import DrrError

log = logging.getLogger("drr.table")

# A little past the deadline, so the tick's own clock reading is at or after it.
LATE_S = 0.01


class RoundTimer:
    """One task, due at `due()`, that awaits `tick()` (see the module docstring)."""

    def __init__(
        self,
        due: Callable[[], float | None],
        tick: Callable[[], Awaitable[object]],
        clock: Callable[[], float],
    ) -> None:
        self._due = due
        self._tick = tick
        self._clock = clock
        self._task: asyncio.Task[None] | None = None
        self._target: float | None = None
        self._ticking = False

    def schedule(self) -> None:
        """Move the timer to `due()` (the loop re-reads it after a tick that is under way)."""
        if self._ticking:
            return
        when = self._due()
        if self._task is not None and not self._task.done():
            if when == self._target:
                return
            self._task.cancel()
        self._task, self._target = None, when
        if when is not None:
            self._task = asyncio.get_running_loop().create_task(self._run(when), name="round-clock")

    async def _run(self, when: float | None) -> None:
        while when is not None:
            await asyncio.sleep(max(0.0, when - self._clock()) + LATE_S)
            self._ticking = True
            try:
                await self._tick()
            except DrrError:
                log.exception("round clock tick")
                return
            finally:
                self._ticking = False
            later = self._due()
            if later is not None and later == when and later <= self._clock():
                return  # the tick found nothing to do at this deadline: do not spin on it
            when = self._target = later

    def cancel(self) -> None:
        """Stop the task now (it may be left sleeping; `schedule()` starts a fresh one)."""
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        self._task, self._target = None, None

    async def stop(self) -> None:
        task, self._task, self._target = self._task, None, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
