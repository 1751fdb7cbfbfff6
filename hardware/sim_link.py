"""The virtual wheel as an in-process wheel source (no pty): `open_wheel("sim")`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from hardware.link import WheelLink, utc_now
from hardware.protocol import LineFramer, Protocol
from hardware.virtual_wheel import VirtualWheel


class SimLink(WheelLink):
    """Bytes from a `VirtualWheel` go through the same framer and protocol as a serial port's."""

    def __init__(
        self,
        wheel: VirtualWheel,
        protocol: Protocol | str = "ss2",
        *,
        capture_dir: str | Path | None = None,
        silence_after: float | None = 3.0,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        super().__init__(protocol, source="sim", capture_dir=capture_dir, silence_after=silence_after)
        self.wheel = wheel
        self.now = now  # each line's time stamp (the protocol's grace periods are measured with it)
        self.protocol.time_scale = wheel.speed
        self._task: asyncio.Task[None] | None = None
        self._framer = LineFramer()

    async def _open(self) -> None:
        self._set_connected(True, f"virtual SS2 wheel at x{self.wheel.speed:g}")
        self._task = asyncio.create_task(self._pump(), name="sim-link")

    async def _pump(self) -> None:
        async for chunk in self.wheel.output():
            lines = self._framer.feed(chunk.encode("latin-1"))
            if lines:
                now = self.now()
                for line in lines:
                    self._line_received(line, now)

    async def _close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.wheel.stop()

    async def _write(self, data: bytes) -> None:
        self.wheel.receive(data)
