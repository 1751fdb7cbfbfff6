"""The wheel capture format: read it, and append live traffic to rotating capture files.

One line per line seen on the serial link, tab separated (the format of the shared captures in
`shared/data/wheel-captures/`): `2025-09-16T06:44:46.581<TAB>RX<TAB>*X;2;002;31;0;146;1`.
Field 1 is the timestamp to the millisecond, field 2 `RX` (wheel -> host) or `TX` (host ->
wheel), field 3 the raw text without its CR/LF. Files this program writes use UTC timestamps
(named `wheel-<UTC start>.log`) so that an incident can be replayed with `drr wheel replay`.
Text is Latin-1 so that every byte received survives the round trip unchanged.
"""

from __future__ import annotations

import logging
import logging.handlers
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from engine.errors import DrrError

Direction = Literal["RX", "TX"]
CAPTURE_ENCODING = "latin-1"


@dataclass(frozen=True, slots=True)
class CaptureLine:
    time: datetime
    direction: Direction
    raw: str

    def format(self) -> str:
        return f"{format_capture_time(self.time)}\t{self.direction}\t{self.raw}"


def format_capture_time(time: datetime) -> str:
    if time.tzinfo is not None:
        time = time.astimezone(UTC).replace(tzinfo=None)
    return time.isoformat(timespec="milliseconds")


def parse_capture_line(text: str) -> CaptureLine | str:
    """One capture line (without its newline), or the reason it is not one."""
    parts = text.split("\t", 2)
    if len(parts) != 3:
        return "not three tab-separated fields"
    stamp, direction, raw = parts
    if direction not in ("RX", "TX"):
        return f"direction {direction!r} is neither RX nor TX"
    try:
        time = datetime.fromisoformat(stamp)
    except ValueError:
        return f"timestamp {stamp!r} is not ISO 8601"
    return CaptureLine(time, "RX" if direction == "RX" else "TX", raw)


def read_capture(
    path: str | Path, on_bad: Callable[[int, str, str], None] | None = None
) -> Iterator[CaptureLine]:
    """The lines of a capture file, in order. Malformed lines go to `on_bad(lineno, text, reason)`.

    Raises DrrError (exit 1) when the file cannot be opened or read at all.
    """
    try:
        handle = open(path, encoding=CAPTURE_ENCODING, newline="")  # noqa: SIM115 - generator owns it
    except OSError as exc:
        raise DrrError(f"cannot read capture {path}: {exc.strerror or exc}") from exc
    with handle:
        lineno = 0
        while True:
            try:
                text = handle.readline()
            except OSError as exc:
                raise DrrError(
                    f"cannot read capture {path} at line {lineno + 1}: {exc.strerror or exc}"
                ) from exc
            if not text:
                return
            lineno += 1
            text = text.rstrip("\r\n")
            if not text:
                continue
            parsed = parse_capture_line(text)
            if isinstance(parsed, str):
                if on_bad is not None:
                    on_bad(lineno, text, parsed)
                continue
            yield parsed


class CaptureWriter:
    """Appends every RX/TX line to `wheel-<start>.log` in `directory`, rotating by size.

    Thread-safe (the serial reader thread and the asyncio loop both write). Rotation is the
    standard library's RotatingFileHandler: `wheel-….log.1` … `.N` keep the older lines.
    """

    def __init__(self, directory: str | Path, *, max_bytes: int = 20_000_000, backups: int = 20) -> None:
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DrrError(
                f"cannot create capture directory {self.directory}: {exc.strerror or exc}"
            ) from exc
        started = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        self.path = self.directory / f"wheel-{started}.log"
        self._handler = logging.handlers.RotatingFileHandler(
            self.path, maxBytes=max_bytes, backupCount=backups, encoding=CAPTURE_ENCODING
        )
        self._handler.setFormatter(logging.Formatter("%(message)s"))
        self._lock = threading.Lock()

    def write(self, direction: Direction, raw: str, time: datetime) -> None:
        record = logging.makeLogRecord(
            {"msg": CaptureLine(time, direction, raw).format(), "levelno": logging.INFO}
        )
        with self._lock:
            self._handler.handle(record)

    def close(self) -> None:
        with self._lock:
            self._handler.close()
