"""What every wheel link shares: event fan-out, host commands with replies, health, capture.

A link owns one protocol decoder. Lines arrive (from a serial reader thread, a virtual wheel or
a capture replay) on the asyncio loop through `_line_received`; the decoder's events go to every
subscriber: `async for event in link.events()` or `link.subscribe(callback)`. Host commands are
`await link.command("*P 1", timeout=2)`, which resolves with the first reply the protocol pairs
with it (e.g. `*P OK`) or raises `WheelTimeout`. `link.health` is a snapshot for the GUI.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time as _time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from engine.errors import DrrError
from engine.wheel_events import WheelLinkState, WheelRotor
from hardware.capture import CaptureWriter
from hardware.events import LinkEvent, reply_key
from hardware.protocol import Protocol, get_protocol

log = logging.getLogger("hardware.link")

DEFAULT_COMMAND_TIMEOUT = 2.0
# Before anyone subscribes, keep this many events so a consumer that subscribes a moment after
# the link opened still sees the first status of the wheel.
BACKLOG = 1000


class WheelTimeout(DrrError):
    """The wheel did not answer a command in time."""


class WheelNotConnected(DrrError):
    """A command was sent while the link is down."""


@dataclass(frozen=True, slots=True)
class LinkHealth:
    """A snapshot for the croupier's sensor-health indicator."""

    source: str
    connected: bool
    silent: bool
    last_line_age: float | None  # seconds since the last line, None if none yet
    lines: int
    unreadable: int
    reconnects: int
    detail: str

    @property
    def ok(self) -> bool:
        return self.connected and not self.silent

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "connected": self.connected,
            "silent": self.silent,
            "ok": self.ok,
            "last_line_age": None if self.last_line_age is None else round(self.last_line_age, 3),
            "lines": self.lines,
            "unreadable": self.unreadable,
            "reconnects": self.reconnects,
            "detail": self.detail,
        }


def utc_now() -> datetime:
    return datetime.now(UTC)


def check_command_text(command: str) -> str:
    text = command.strip()
    if not text or not all(" " <= ch <= "~" for ch in text):
        raise DrrError(f"wheel command {command!r} must be printable ASCII on one line", 2)
    return text


class WheelLink(ABC):
    """Base of the serial, virtual and replay links (an async context manager)."""

    def __init__(
        self,
        protocol: Protocol | str = "ss2",
        *,
        source: str = "",
        capture_dir: str | Path | None = None,
        silence_after: float | None = 3.0,
    ) -> None:
        self.protocol = get_protocol(protocol) if isinstance(protocol, str) else protocol
        self.source = source
        self.capture = CaptureWriter(capture_dir) if capture_dir is not None else None
        self._silence_after = silence_after
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queues: list[asyncio.Queue[LinkEvent | None]] = []
        self._callbacks: list[Callable[[LinkEvent], None]] = []
        self._backlog: deque[LinkEvent] | None = deque(maxlen=BACKLOG)
        # Open commands, oldest first: (reply keys, command text, future of its reply).
        self._pending: list[tuple[tuple[str, ...], str, asyncio.Future[LinkEvent]]] = []
        self._connected = False
        self._silent = False
        self._detail = "not started"
        self._last_line: float | None = None
        self._ever_connected = False
        self.reconnects = 0
        self._watchdog: asyncio.Task[None] | None = None
        self._closed = False
        # The wheel's last report of its rotor turning (rpm above 0): which way it turns now, for the
        # start that reverses it (hardware.table_bridge.WheelDriver), whoever listened then.
        self.turning: WheelRotor | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    async def __aenter__(self) -> WheelLink:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self._silence_after is not None:
            self._watchdog = asyncio.create_task(self._watch_silence(), name=f"wheel-watchdog {self.source}")
        await self._open()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
        await self._close()
        for _, _, future in self._pending:
            if not future.done():
                future.set_exception(WheelNotConnected("wheel link closed"))
        for queue in self._queues:
            queue.put_nowait(None)
        if self.capture is not None:
            self.capture.close()

    @abstractmethod
    async def _open(self) -> None: ...

    @abstractmethod
    async def _close(self) -> None: ...

    @abstractmethod
    async def _write(self, data: bytes) -> None:
        """Send bytes to the wheel; raise WheelNotConnected when that is impossible."""

    # -- consumers -----------------------------------------------------------------------------

    def subscribe(self, callback: Callable[[LinkEvent], None]) -> Callable[[], None]:
        """Call `callback(event)` on the loop for every event; returns the unsubscribe function."""
        self._callbacks.append(callback)
        self._drain_backlog(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    async def events(self) -> AsyncIterator[LinkEvent]:
        """Every event from now on (plus the start-up backlog for the first consumer)."""
        queue: asyncio.Queue[LinkEvent | None] = asyncio.Queue()
        self._queues.append(queue)
        self._drain_backlog(queue.put_nowait)
        try:
            while True:
                event = await queue.get()
                if event is None:
                    return
                yield event
        finally:
            self._queues.remove(queue)

    def _drain_backlog(self, sink: Callable[[LinkEvent], None]) -> None:
        backlog, self._backlog = self._backlog, None
        for event in backlog or ():
            sink(event)

    def _dispatch(self, event: LinkEvent) -> None:
        if isinstance(event, WheelRotor) and event.rpm:
            self.turning = event
        if self._backlog is not None:
            self._backlog.append(event)
        for queue in self._queues:
            queue.put_nowait(event)
        for callback in list(self._callbacks):
            try:
                callback(event)
            except Exception:  # one broken listener must not starve the others
                log.exception("wheel event subscriber failed on %s", event.type)
        key = reply_key(event)
        if key is not None:
            for index, (keys, command, future) in enumerate(self._pending):
                if key in keys and not future.done() and self.protocol.answers(command, event):
                    future.set_result(event)
                    del self._pending[index]
                    break

    # -- the line path (always on the loop) -----------------------------------------------------

    def _line_received(self, raw: str, time: datetime, captured: bool = False) -> None:
        self._last_line = _time.monotonic()
        if self._silent:
            self._silent = False
            self._dispatch(WheelLinkState(game=None, time=time, state="connected", detail="lines again"))
        if self.capture is not None and not captured:
            self.capture.write("RX", raw, time)
        for event in self.protocol.feed_line(raw, time):
            self._dispatch(event)

    def _set_connected(self, connected: bool, detail: str) -> None:
        if connected == self._connected and detail == self._detail:
            return
        self._detail = detail
        if connected == self._connected:
            # Still down, for a new reason (the first failed open among them: the link starts down):
            # the log says why each time the reason changes, not at every retry.
            log.warning("wheel link %s not connected: %s", self.source, detail)
            return
        self._connected = connected
        if connected:
            if self._ever_connected:
                self.reconnects += 1
            self._ever_connected = True
            self._last_line = _time.monotonic()
            self._silent = False
        else:
            for _, _, future in self._pending:
                if not future.done():
                    future.set_exception(WheelNotConnected(f"wheel link lost: {detail}"))
            self._pending.clear()
        state = "connected" if connected else "disconnected"
        log.info("wheel link %s %s: %s", self.source, state, detail)
        self._dispatch(WheelLinkState(game=None, time=utc_now(), state=state, detail=detail))

    async def _watch_silence(self) -> None:
        assert self._silence_after is not None
        while True:
            await asyncio.sleep(min(0.5, self._silence_after / 4))
            if not self._connected or self._silent or self._last_line is None:
                continue
            age = _time.monotonic() - self._last_line
            if age > self._silence_after:
                self._silent = True
                detail = f"no line from the wheel for {age:.1f} s (cable pulled or wheel off?)"
                log.warning("wheel link %s silent: %s", self.source, detail)
                self._dispatch(WheelLinkState(game=None, time=utc_now(), state="silent", detail=detail))

    # -- host commands -----------------------------------------------------------------------

    async def command(self, command: str, timeout: float | None = None) -> LinkEvent | None:
        """Send a host command; return the reply event (None if the command expects no reply)."""
        if not self.protocol.accepts_commands:
            raise DrrError(f"the {self.protocol.name} protocol takes no commands", 2)
        text = check_command_text(command)
        if not self._connected:
            raise WheelNotConnected(f"cannot send {text!r}: wheel not connected ({self._detail})")
        loop = asyncio.get_running_loop()
        keys = self.protocol.reply_keys(text)
        future: asyncio.Future[LinkEvent] = loop.create_future()
        if keys:
            self._pending.append((keys, text, future))
        now = utc_now()
        self.protocol.note_command(text, now)
        if self.capture is not None:
            self.capture.write("TX", text, now)
        try:
            await self._write(self.protocol.frame_command(text))
            if not keys:
                return None
            limit = DEFAULT_COMMAND_TIMEOUT if timeout is None else timeout
            try:
                return await asyncio.wait_for(asyncio.shield(future), limit)
            except TimeoutError:
                raise WheelTimeout(f"no reply from the wheel to {text!r} within {limit:g} s") from None
        finally:
            self._pending = [entry for entry in self._pending if entry[2] is not future]

    # -- health ----------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def wheel_state(self) -> int | None:
        """The state the wheel's last status line reported (SS2: 6 idle, where the log is given), None
        before any: whoever listened then (a close asks for the log only after state 6)."""
        return self.protocol.wheel_state

    @property
    def health(self) -> LinkHealth:
        age = None if self._last_line is None else _time.monotonic() - self._last_line
        return LinkHealth(
            source=self.source,
            connected=self._connected,
            silent=self._silent,
            last_line_age=age,
            lines=self.protocol.line_count,
            unreadable=self.protocol.unreadable_count,
            reconnects=self.reconnects,
            detail=self._detail,
        )
