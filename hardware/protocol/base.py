"""What every wheel protocol provides, the byte-stream framer they share, and the registry by name.

A protocol turns framed text lines into wheel events and keeps whatever state it needs to do so
(an SS2 wheel repeats its result line for seconds; the protocol makes it one event). What the
table acts on it emits as the engine's own wheel events (engine/wheel_events.py: `WheelResult`
through `wheel_number`, `WheelNoMoreBets`, ...), which the table journals as they are; what only
the link cares about (replies, unreadable lines) as `hardware.events.LinkMessage`s. Adding
another vendor's wheel is one new module `hardware/protocol/<name>.py` defining a subclass with
`name = "<name>"` and decorated with `@register_protocol`; `get_protocol("<name>")` finds it
(and a name in BUILT_IN below for `protocol_names()` to list it without an import).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import datetime
from typing import ClassVar, Literal, TypeVar

from engine.errors import DrrError
from hardware.events import LinkEvent, UnreadableLine

log = logging.getLogger("hardware.protocol")

# Longest line any supported wheel sends is a `*s r` log page (~270 bytes); anything longer is
# garbage on the line (a wrong baud rate, a floating input) and is cut so memory stays bounded.
MAX_LINE_BYTES = 600


class LineFramer:
    """Splits a byte stream into lines ended by CR, LF or both; blank lines vanish.

    Bytes are decoded as Latin-1 so that no byte sequence can fail to decode: whatever arrived
    is kept verbatim for the capture file and the protocol judges whether it is readable.
    """

    def __init__(self, max_line: int = MAX_LINE_BYTES) -> None:
        self._buffer = bytearray()
        self._max_line = max_line

    def feed(self, data: bytes) -> list[str]:
        lines: list[str] = []
        start = 0
        for index, byte in enumerate(data):
            if byte in (0x0A, 0x0D):
                self._buffer += data[start:index]
                start = index + 1
                if self._buffer:
                    lines.append(self._buffer.decode("latin-1"))
                    self._buffer.clear()
        self._buffer += data[start:]
        while len(self._buffer) > self._max_line:
            lines.append(self._buffer[: self._max_line].decode("latin-1"))
            del self._buffer[: self._max_line]
        return lines

    @property
    def pending(self) -> str:
        """Bytes received since the last line end (a line still in flight, or a torn tail)."""
        return self._buffer.decode("latin-1")

    def clear(self) -> None:
        """Forget a partial line, e.g. after the port was lost mid-line."""
        self._buffer.clear()


class Protocol(ABC):
    """A stateful decoder of one wheel's line protocol (one instance per link)."""

    name: ClassVar[str] = ""
    #: Whether the wheel accepts host commands at all (a plain number sensor does not).
    accepts_commands: ClassVar[bool] = False

    def __init__(self) -> None:
        self.unreadable_count = 0
        self.line_count = 0
        # >1 when the wheel runs faster than real time (the virtual wheel at --speed X): the
        # protocol's timing rules (grace periods) shrink by the same factor.
        self.time_scale = 1.0
        # The wheel's state as its last status line reported it (SS2: 1-7), None before any (or for
        # a protocol without states): read through `WheelLink.wheel_state`.
        self.wheel_state: int | None = None

    def feed_line(self, raw: str, time: datetime) -> list[LinkEvent]:
        """Decode one received line (without its terminator). Never raises on any input."""
        self.line_count += 1
        try:
            return self._decode(raw, time)
        except Exception as exc:  # a decoder bug must not take the table's wheel link down
            log.exception("protocol %s failed on line %r", self.name, raw)
            return [self.unreadable(raw, f"decoder error: {type(exc).__name__}", time)]

    def unreadable(self, raw: str, reason: str, time: datetime, game: int | None = None) -> UnreadableLine:
        """Count and log a line (or fragment) that cannot be read, and make its event."""
        self.unreadable_count += 1
        log.warning("unreadable wheel line (%s): %r", reason, raw)
        return UnreadableLine(game=game, time=time, raw=raw, reason=reason)

    @abstractmethod
    def _decode(self, raw: str, time: datetime) -> list[LinkEvent]: ...

    def note_command(self, raw: str, time: datetime) -> None:  # noqa: B027 - optional hook
        """A command the host sent (live, or a TX line of a capture); lets replies be paired."""

    def reply_keys(self, command: str) -> tuple[str, ...]:
        """Reply keys (see `hardware.events.reply_key`) that answer `command`; () if none is expected."""
        return ()

    def answers(self, command: str, event: LinkEvent) -> bool:
        """Whether `event` (whose reply key fits `command`) can be the answer to `command`.

        Lets a link with two open commands of the same key (`*T S`, `*T R`) give each its own reply.
        """
        return True

    def frame_command(self, command: str) -> bytes:
        """The bytes to send for a command given as text (terminator added here)."""
        return command.encode("ascii") + b"\r\n"

    def start_command(self, direction: Literal["cw", "ccw"]) -> str:
        """The host command that starts a spin in `direction`: what a commanded wheel is sent for
        the table's start order (hardware.table_bridge.WheelDriver). A wheel that cannot be started
        by the host refuses in one line."""
        raise DrrError(f"the {self.name} protocol cannot be told to start a spin", 2)


ProtocolT = TypeVar("ProtocolT", bound=type[Protocol])

_REGISTRY: dict[str, Callable[[], Protocol]] = {}
BUILT_IN = ("ss2", "plain")


def register_protocol(cls: ProtocolT) -> ProtocolT:
    """Class decorator: make a protocol available to `get_protocol(cls.name)`."""
    if not cls.name:
        raise ValueError(f"{cls.__qualname__} has no protocol name")
    _REGISTRY[cls.name] = cls
    return cls


def protocol_names() -> list[str]:
    for name in BUILT_IN:
        _load(name)
    return sorted(_REGISTRY)


def _load(name: str) -> None:
    if name in _REGISTRY or not name.isidentifier():
        return
    with contextlib.suppress(ModuleNotFoundError):
        importlib.import_module(f"hardware.protocol.{name}")


def get_protocol(name: str) -> Protocol:
    """A fresh decoder for the protocol called `name` (e.g. "ss2", "plain")."""
    _load(name)
    factory = _REGISTRY.get(name)
    if factory is None:
        raise DrrError(f"unknown wheel protocol {name!r}; known: {', '.join(protocol_names())}", 2)
    return factory()
