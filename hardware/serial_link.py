"""The wheel on a serial port (pyserial): a reader thread feeding the asyncio loop, with reconnect.

pyserial-asyncio is unmaintained, so one plain thread per port blocks in `read()` and hands each
complete line to the loop with `call_soon_threadsafe` the moment its terminator arrives (the
line's timestamp is taken in the thread, so loop load never skews it). The port is opened
exclusively; when it vanishes (USB unplugged, pty closed) the thread reports the link down and
retries with exponential back-off until it is back. Every raw line goes to the capture file.
Works on Linux and Windows (nothing here is POSIX-only).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import threading
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import serial
import serial.tools.list_ports

from engine.errors import DrrError
from hardware.link import WheelLink, WheelNotConnected
from hardware.protocol import LineFramer, Protocol

PARITIES = {"N": serial.PARITY_NONE, "E": serial.PARITY_EVEN, "O": serial.PARITY_ODD, "M": serial.PARITY_MARK,
            "S": serial.PARITY_SPACE}  # fmt: skip
STOPBITS = {"1": serial.STOPBITS_ONE, "1.5": serial.STOPBITS_ONE_POINT_FIVE, "2": serial.STOPBITS_TWO}


def why_not_open(port: str, exc: BaseException) -> str:
    """Why `port` would not open, in the words that say what to do: a port the user may not open is not
    a cable problem (pyserial's exceptions carry the OS's errno)."""
    code = getattr(exc, "errno", None)
    if code in (errno.EACCES, errno.EPERM):
        return (
            f"cannot open {port}: permission denied (this user is not allowed to open it: add the user "
            "to the dialout group with `sudo usermod -aG dialout $USER`, then log in again)"
        )
    if code in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK):
        return f"cannot open {port}: the port is busy (another program has it open: close that program)"
    if code in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
        return (
            f"cannot open {port}: no such port (check the cable and the USB adapter; `drr wheel ports` "
            "lists the ports this PC has)"
        )
    return f"cannot open {port}: {exc}"


@dataclass(frozen=True, slots=True)
class SerialSettings:
    """Line settings; the SS2 guide's defaults are 9600 8N1 without flow control."""

    baudrate: int = 9600
    bytesize: int = 8
    parity: str = "N"
    stopbits: str = "1"
    rtscts: bool = False
    xonxoff: bool = False
    dsrdtr: bool = False
    exclusive: bool = True

    @classmethod
    def parse(cls, text: str) -> SerialSettings:
        """`9600,8N1,rtscts` style: baud rate, frame (bits parity stop), flow-control words."""
        settings = cls()
        for word in filter(None, (w.strip() for w in text.split(","))):
            lower = word.lower()
            if word.isdigit():
                settings = replace(settings, baudrate=int(word))
            elif (
                len(word) >= 3 and word[0] in "5678" and word[1].upper() in PARITIES and word[2:] in STOPBITS
            ):
                settings = replace(settings, bytesize=int(word[0]), parity=word[1].upper(), stopbits=word[2:])
            elif lower == "rtscts":
                settings = replace(settings, rtscts=True)
            elif lower == "xonxoff":
                settings = replace(settings, xonxoff=True)
            elif lower == "dsrdtr":
                settings = replace(settings, dsrdtr=True)
            elif lower == "shared":
                settings = replace(settings, exclusive=False)
            else:
                raise DrrError(f"serial setting {word!r} not understood (e.g. 9600,8N1,rtscts)", 2)
        return settings

    def serial_kwargs(self) -> dict[str, Any]:
        out = asdict(self)
        out["parity"] = PARITIES[self.parity]
        out["stopbits"] = STOPBITS[self.stopbits]
        return out


def list_ports() -> list[dict[str, str]]:
    """Serial ports the OS knows (`drr wheel ports`)."""
    return [
        {"device": p.device, "description": p.description or "", "hwid": p.hwid or ""}
        for p in sorted(serial.tools.list_ports.comports(), key=lambda p: p.device)
    ]


class SerialLink(WheelLink):
    """An SS2 (or other protocol) wheel on a serial port, reconnecting by itself."""

    def __init__(
        self,
        port: str,
        protocol: Protocol | str = "ss2",
        *,
        settings: SerialSettings | None = None,
        capture_dir: str | Path | None = None,
        silence_after: float | None = 3.0,
        reconnect_min: float = 0.1,
        reconnect_max: float = 5.0,
    ) -> None:
        super().__init__(
            protocol, source=f"serial:{port}", capture_dir=capture_dir, silence_after=silence_after
        )
        self.port = port
        self.settings = settings or SerialSettings()
        self._reconnect_min = reconnect_min
        self._reconnect_max = reconnect_max
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._serial: serial.Serial | None = None
        self._write_lock = threading.Lock()

    async def _open(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"wheel-reader {self.port}", daemon=True)
        self._thread.start()

    async def _close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 2.0)

    async def _write(self, data: bytes) -> None:
        port = self._serial
        if port is None:
            raise WheelNotConnected(f"wheel on {self.port} is not connected")
        try:
            await asyncio.get_running_loop().run_in_executor(None, self._write_blocking, port, data)
        except (serial.SerialException, OSError) as exc:
            raise WheelNotConnected(f"cannot write to {self.port}: {exc}") from exc

    def _write_blocking(self, port: serial.Serial, data: bytes) -> None:
        with self._write_lock:
            port.write(data)
            port.flush()

    # -- the reader thread -----------------------------------------------------------------------

    def _post(self, callback: Any, *args: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed between the check and the call
                loop.call_soon_threadsafe(callback, *args)

    def _run(self) -> None:
        backoff = self._reconnect_min
        framer = LineFramer()
        while not self._stop.is_set():
            try:
                port = serial.Serial(
                    self.port, timeout=0.1, write_timeout=2.0, **self.settings.serial_kwargs()
                )
            except (serial.SerialException, OSError, ValueError) as exc:
                self._post(self._set_connected, False, why_not_open(self.port, exc))
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self._reconnect_max)
                continue
            self._serial = port
            self._post(self._set_connected, True, f"{self.port} open at {self.settings.baudrate} baud")
            backoff = self._reconnect_min
            try:
                self._read_until_lost(port, framer)
            except (serial.SerialException, OSError) as exc:
                tail = framer.pending
                if tail.strip():
                    # The half line the loss cut off is data too: judged (as unreadable, unless
                    # it happens to be whole) and captured like any other line.
                    self._post(self._line_received, tail, datetime.now(UTC))
                if not self._stop.is_set():
                    self._post(self._set_connected, False, f"{self.port} lost: {exc}")
            finally:
                self._serial = None
                framer.clear()  # a half line from before the loss would glue onto the next one
                with contextlib.suppress(serial.SerialException, OSError):
                    port.close()
            if not self._stop.is_set():
                self._stop.wait(backoff)
        self._post(self._set_connected, False, "closed")

    def _read_until_lost(self, port: serial.Serial, framer: LineFramer) -> None:
        capture = self.capture
        while not self._stop.is_set():
            data = port.read(1)
            if not data:
                continue
            waiting = port.in_waiting
            if waiting:
                data += port.read(waiting)
            lines = framer.feed(data)
            if not lines:
                continue
            now = datetime.now(UTC)
            for line in lines:
                self._post(self._line_received, line, now, True)
            if capture is not None:
                for line in lines:
                    capture.write("RX", line, now)
