"""What a table asks its wheel beside the play, one path for every station that runs a table (issue 26):
the headless `drr table run` and the croupier station (gui.wheel_link) both use `WheelSession`.

- once the link is up: the wheel's identity and clock offset (`wheel.identity`, hardware.wheel_identity);
- then every `clock_every_s` (the settings' `wheel.clock_check_minutes`) and with each reconciliation:
  the wheel's clock again (`*d g`, journaled as `wheel.clock`), so a drift is seen as it grows and not
  only at the next connect (engine.floor.wheel_alarms' `wheel_clock` alarm reads both entries);
- at the table's close (`close`): the wheel powered down (`*P 0`), its own log read (a replay: the log
  replies its capture held, `LogRecorder`) and held against the journal (`wheel.reconciled`,
  hardware.wheel_reconcile). Not while a round is in play: powering the wheel down would void its
  spin, so the log is then left for `drr wheel reconcile`, and the words say so.

Each outcome is also handed to `say` in a croupier's words, what went wrong to `warn`, the identity at
connect and the close under way to `note` (the headless run prints the first two on stdout and stderr
and leaves the notes out; the croupier station shows them all on its reason line). What goes
into the journal goes through `journal` (the table service's `wheel_event`, as the wheel's own
messages do) and `reconcile_table`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine.errors import DrrError
from engine.floor.describe import describe_payload
from engine.wheel_events import WheelClock, WheelEvent, WheelIdentity, WheelReconciled
from hardware.link import WheelLink
from hardware.replay import ReplayLink
from hardware.task_cancel import cancel_until_done
from hardware.wheel_identity import ask_clock, ask_identity
from hardware.wheel_log import LogRecorder, read_log_at_close
from hardware.wheel_reconcile import reconcile_table

if TYPE_CHECKING:
    from engine.auth import User
    from engine.store.db import Store

log = logging.getLogger("hardware.session")

Journal = Callable[[WheelEvent], Awaitable[object]]
CLOCK_EVERY_S = 3600.0  # as engine.config's wheel.clock_check_minutes default (60)
CONNECT_POLL_S = 0.1


def _quiet(_text: str) -> None:
    return None


@dataclass
class WheelSession:
    """One table's wheel, asked beside the play (the module docstring). `start()` once the link is
    opened; `close(...)` at the table's close; `stop()` always at the end."""

    link: WheelLink
    journal: Journal
    spec: str = ""
    protocol: str = "ss2"
    clock_every_s: float | None = CLOCK_EVERY_S  # None or 0: the clock is read at connect and reconcile only
    say: Callable[[str], None] = _quiet
    warn: Callable[[str], None] | None = None  # what went wrong (None: said like the rest)
    # Who the wheel is at connect and that the close is under way (None: said like the rest); the
    # headless run leaves them out of its output (one line per round, the close, the summary).
    note: Callable[[str], None] | None = None
    now: Callable[[], datetime] = datetime.now  # the PC's local time (naive), as the wheel's clock is
    identity: WheelIdentity | None = None
    clocks: list[WheelClock] = field(default_factory=list)  # the re-reads journaled, oldest first
    recorder: LogRecorder | None = None
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    _stopped: bool = False

    @property
    def asks(self) -> bool:
        """The wheel answers the table's questions: an SS2 on a live link (a replayed capture cannot)."""
        return self.protocol == "ss2" and not isinstance(self.link, ReplayLink)

    def start(self) -> None:
        if isinstance(self.link, ReplayLink):
            self.recorder = LogRecorder(self.link)  # the log replies a replayed capture holds
        if self.asks:
            self._spawn(self._connected())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _connected(self) -> None:
        # The link retries a missing port by itself: the questions wait for it.
        while not self.link.connected:
            await asyncio.sleep(CONNECT_POLL_S)
        identity = await ask_identity(self.link, now=self.now)
        self.identity = identity
        await self.journal(identity)
        self._note(describe_payload(identity))
        every = self.clock_every_s
        while every and not self._stopped:
            await asyncio.sleep(every)
            if self.link.connected:
                await self.read_clock("periodic")

    async def read_clock(self, occasion: str) -> WheelClock | None:
        """The wheel's clock read now and journaled as `wheel.clock` (None: the wheel did not say)."""
        said = await ask_clock(self.link, now=self.now)
        if said is None:
            return None
        clock = WheelClock(clock=said[0].isoformat(), offset=said[1], occasion=occasion)
        self.clocks.append(clock)
        await self.journal(clock)
        return clock

    async def close(
        self, store: Store, table: str, user: User | None, *, in_play: str | None = None
    ) -> WheelReconciled | None:
        """The table's close: the wheel's log read and reconciled (None when it was not: said why).
        `in_play`: the round still in play, if any (then the wheel is not powered down)."""
        if self.protocol != "ss2":
            return None
        if in_play is not None and self.recorder is None:
            self._warn(
                f"the wheel's log was not read at close: round {in_play} is still in play (powering the "
                "wheel down would void its spin); read it later with `drr wheel reconcile`"
            )
            return None
        try:
            if self.recorder is not None:
                self.recorder.stop()
                record = self.recorder.record
                if record.pages_used is None:
                    return None  # a capture without the log's replies: nothing to hold the journal against
            else:
                self._note("closing: the wheel powers down and gives its own log…")
                record = await read_log_at_close(self.link)
                with contextlib.suppress(DrrError):
                    await self.read_clock("reconcile")
        except DrrError as exc:
            self._warn(f"the wheel's log was not read at close: {exc.message}")
            return None
        source = self.spec.split("@")[0]
        entry = reconcile_table(store, table, record, source=source, occasion="close", user=user)
        self.say(close_words(entry))
        return entry

    def _note(self, text: str) -> None:
        (self.note or self.say)(text)

    def _warn(self, text: str) -> None:
        (self.warn or self.say)(text)

    async def stop(self) -> None:
        # Stopped by a flag as well as cancelled, until each question has ended (hardware.task_cancel): a
        # cancel was seen lost here, and the questions then went on to wait an hour for the next clock
        # reading while the station's stop waited for them, until its 4 s watchdog killed it
        # (tests/gui/test_stop_signals.py).
        self._stopped = True
        await cancel_until_done(self._tasks)
        if self.recorder is not None:
            self.recorder.stop()


def close_words(entry: WheelReconciled) -> str:
    """The reconciliation at close in a croupier's words, the verdict first (the reason line shows two
    lines; the figures may be cut off there, the whole text is on hover)."""
    verdict = (
        "the wheel's log and the journal agree"
        if not (entry.differ or entry.journal_only or entry.wheel_only)
        else "they differ: surveillance is alerted"
    )
    return f"wheel log reconciled at close: {verdict} — {entry.summary()}"
