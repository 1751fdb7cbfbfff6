"""Serve a byte stream on a pseudo-terminal (POSIX), so the real serial link can connect to it.

The virtual wheel and the capture replayer write into the master side; the serial link opens the
slave device like any serial port. The slave is put in raw mode at once (no echo, no CR/LF
translation) and stays open here, so the device exists before a client opens it and survives a
client closing it. Output is dropped, as a wheel's is, when nobody reads and the buffer is full.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from engine.errors import DrrError


class PtyServer:
    """One pseudo-terminal pair. `write()` sends to the client; `on_input` gets what it sends."""

    def __init__(
        self, on_input: Callable[[bytes], None] | None = None, link: str | Path | None = None
    ) -> None:
        if os.name != "posix":
            raise DrrError("pseudo-terminals need Linux or macOS; on Windows use a null-modem pair (com0com)")
        import tty

        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self._slave)
        self.link = Path(link) if link is not None else None
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".tmp")
            try:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                tmp.symlink_to(self.path)
                tmp.replace(self.link)  # atomic: a client never sees the link missing
            except OSError as exc:
                for fd in (self.master, self._slave):
                    os.close(fd)
                reason = exc.strerror or exc
                raise DrrError(f"cannot make {self.link} point to {self.path}: {reason}") from None
        self._on_input = on_input
        self._loop: asyncio.AbstractEventLoop | None = None
        self.dropped = 0
        self.closed = False

    def start(self) -> None:
        if self._on_input is not None:
            self._loop = asyncio.get_running_loop()
            self._loop.add_reader(self.master, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""  # EIO: no client has the slave open right now
        if data and self._on_input is not None:
            self._on_input(data)

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        try:
            written = os.write(self.master, data)
        except (BlockingIOError, InterruptedError):
            written = 0
        except OSError:
            written = 0
        self.dropped += len(data) - written

    async def write_all(self, data: bytes) -> None:
        """Write everything, waiting while the client has not read the buffer (for replays)."""
        loop = asyncio.get_running_loop()
        view = memoryview(data)
        while view and not self.closed:
            try:
                view = view[os.write(self.master, view) :]
                continue
            except (BlockingIOError, InterruptedError):
                pass
            ready: asyncio.Future[None] = loop.create_future()
            loop.add_writer(self.master, _resolve, ready)
            try:
                await ready
            finally:
                loop.remove_writer(self.master)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._loop is not None:
            self._loop.remove_reader(self.master)
        for fd in (self.master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.link is not None:
            with contextlib.suppress(OSError):
                if os.readlink(self.link) == self.path:  # a newer server may own the link by now
                    self.link.unlink()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
