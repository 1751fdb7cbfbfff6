"""Serve a byte stream on a pseudo-terminal (POSIX), so the real serial link can connect to it.

The virtual wheel and the capture replayer write into the master side; the serial link opens the
slave device like any serial port. The slave is put in raw mode at once (no echo, no CR/LF
translation). The virtual wheel keeps it open here (`hold_slave=True`), so reading the master
never sees a hang-up and the wheel's output is dropped, as a real wheel's is, when nobody reads
and the buffer is full. The replayer lets it go (`hold_slave=False`): then the master reports a
hang-up exactly while no client has the device open, which is how `wait_for_client()` knows when
to start (on Linux; where poll() cannot tell, a client is assumed).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
from collections.abc import Callable
from pathlib import Path

from engine.errors import DrrError


class PtyServer:
    """One pseudo-terminal pair. `write()` sends to the client; `on_input` gets what it sends."""

    def __init__(
        self,
        on_input: Callable[[bytes], None] | None = None,
        link: str | Path | None = None,
        *,
        hold_slave: bool = True,
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
        if not hold_slave:
            os.close(self._slave)
            self._slave = -1
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

    def client_connected(self) -> bool:
        """Whether some process has the device open (always True while this server holds it)."""
        if self._slave >= 0 or self.closed or not hasattr(select, "poll"):
            return not self.closed
        poller = select.poll()
        poller.register(self.master, select.POLLHUP)
        return not any(mask & select.POLLHUP for _, mask in poller.poll(0))

    async def wait_for_client(self, poll_every: float = 0.05) -> None:
        """Return once a client has opened the device."""
        while not self.client_connected():
            await asyncio.sleep(poll_every)

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
        """Write everything, waiting while the client has not read the buffer (for replays).

        With no client on the device nothing is written: a client's open flushes whatever was
        queued for it, so the replay pauses until the next one instead of losing those lines.
        """
        loop = asyncio.get_running_loop()
        view = memoryview(data)
        while view and not self.closed:
            if not self.client_connected():
                await self.wait_for_client()
                continue
            try:
                view = view[os.write(self.master, view) :]
                continue
            except (BlockingIOError, InterruptedError):
                pass
            if not self.client_connected():
                # With nobody on the device the master reads as hung up, which a selector reports
                # as writable forever: wait for a client instead of spinning.
                continue
            ready: asyncio.Future[None] = loop.create_future()
            loop.add_writer(self.master, _resolve, ready)
            try:
                await ready
            finally:
                loop.remove_writer(self.master)

    async def drain(self, timeout: float = 10.0, settle: float = 0.5, poll_every: float = 0.05) -> None:
        """Wait until the client has read what was written (or left, or `timeout` passed)."""
        import fcntl
        import struct
        import termios

        if not self.client_connected():
            return
        try:
            probe = os.open(self.path, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            empty_since: float | None = None
            while loop.time() < deadline:
                waiting = struct.unpack("i", fcntl.ioctl(probe, termios.FIONREAD, b"\0" * 4))[0]
                now = loop.time()
                if waiting:
                    empty_since = None
                elif empty_since is None:
                    empty_since = now
                elif now - empty_since >= settle:
                    # Empty for a while: bytes still in the kernel's flip buffer, not yet counted
                    # by FIONREAD, have had time to arrive and be read too.
                    return
                await asyncio.sleep(poll_every)
        except OSError:
            return
        finally:
            os.close(probe)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._loop is not None:
            self._loop.remove_reader(self.master)
        for fd in (self.master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        if self.link is not None:
            with contextlib.suppress(OSError):
                if os.readlink(self.link) == self.path:  # a newer server may own the link by now
                    self.link.unlink()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
