"""Replaying a capture file (the shared format): into the table in-process, or onto a pty.

Only RX lines are played (they are what the wheel sent); TX lines are shown to the decoder as the
host's commands so replies pair up as they did. Gaps between lines follow the capture's
timestamps divided by `speed` (0 = no waiting), each gap capped at `max_gap` capture seconds so
that a capture spanning weeks replays in minutes. In-process, events carry the capture's
timestamps, so a replay through the table reproduces the incident's timing rules exactly.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from engine.errors import DrrError
from hardware.capture import CaptureLine, read_capture
from hardware.link import WheelLink
from hardware.protocol import Protocol

MAX_GAP = 5.0


async def timed_lines(
    path: str | Path, *, speed: float = 1.0, max_gap: float = MAX_GAP
) -> AsyncIterator[CaptureLine]:
    """The capture's lines (RX and TX) at the capture's pace, scaled by `speed`."""
    if speed < 0:
        raise DrrError("replay speed must be >= 0", 2)
    previous = None
    for count, line in enumerate(read_capture(path)):
        if previous is not None and speed > 0:
            gap = min(max((line.time - previous).total_seconds(), 0.0), max_gap)
            if gap > 0:
                await asyncio.sleep(gap / speed)
        elif count % 200 == 0:
            await asyncio.sleep(0)  # as fast as possible, but let the loop breathe
        previous = line.time
        yield line


class ReplayLink(WheelLink):
    """A capture file as a wheel source: events with the capture's timestamps; no commands."""

    def __init__(
        self,
        path: str | Path,
        protocol: Protocol | str = "ss2",
        *,
        speed: float = 1.0,
        max_gap: float = MAX_GAP,
    ) -> None:
        super().__init__(protocol, source=f"replay:{path}", silence_after=None)
        self.path = Path(path)
        self.speed = speed
        self.max_gap = max_gap
        self._task: asyncio.Task[None] | None = None
        self.finished = asyncio.Event()

    async def _open(self) -> None:
        if not self.path.is_file():
            raise DrrError(f"cannot read capture {self.path}: no such file")
        self._set_connected(True, f"replaying {self.path.name} at x{self.speed:g}")
        self._task = asyncio.create_task(self._run(), name=f"replay {self.path.name}")

    async def _run(self) -> None:
        try:
            async for line in timed_lines(self.path, speed=self.speed, max_gap=self.max_gap):
                if line.direction == "TX":
                    self.protocol.note_command(line.raw, line.time)
                else:
                    self._line_received(line.raw, line.time)
        except DrrError as exc:
            self._set_connected(False, exc.message)
        else:
            self._set_connected(False, "end of capture")
        finally:
            self.finished.set()

    async def _close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _write(self, data: bytes) -> None:
        raise DrrError("a capture replay does not answer commands", 2)

    async def command(self, command: str, timeout: float | None = None) -> None:
        raise DrrError("a capture replay does not answer commands", 2)


async def replay_to_pty(
    path: str | Path, *, speed: float = 1.0, link: str | None = None, delay: float = 0.2
) -> int:
    """`drr wheel replay --pty`: the capture's RX lines written into a pseudo-terminal.

    Playback starts when a client (the table's serial link) has opened the device, plus `delay`
    seconds for it to set the line up, so the first line reaches it however late it connects.
    Lines are never dropped: when the reader falls behind or goes away, the replay waits for it.
    """
    from hardware.pty_server import PtyServer

    _first_line(path)  # fail fast on an unreadable file, before printing a device path
    server = PtyServer(link=link, hold_slave=False)
    print(f"replaying {path} on {server.path}" + (f" (also {link})" if link else ""), flush=True)
    try:
        await server.wait_for_client()
        print("client connected: playing", flush=True)
        await asyncio.sleep(delay)
        async for line in timed_lines(path, speed=speed):
            if line.direction == "RX":
                await server.write_all(line.raw.encode("latin-1") + b"\r\n")
        await server.drain()  # let the reader take the last lines before the device goes away
    finally:
        server.close()
    return 0


async def replay_print(path: str | Path, *, speed: float = 1.0) -> int:
    """`drr wheel replay` without --pty: the capture re-timed on stdout."""
    async for line in timed_lines(path, speed=speed):
        sys.stdout.write(line.format() + "\n")
        sys.stdout.flush()
    return 0


def _first_line(path: str | Path) -> list[CaptureLine]:
    for line in read_capture(path):
        return [line]
    return []
