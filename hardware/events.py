"""What the wheel link yields: the engine's wheel events (engine/wheel_events.py) and its own messages.

Everything the table acts on is an engine wheel event (`WheelResult`, `WheelNoMoreBets`, ...):
the protocols build those directly and the table service journals them as they are. The link's
own messages, which mean nothing to the table, are `LinkMessage`s defined here:

=====================  ===================================================================
type                   extra keys
=====================  ===================================================================
game_counter_wrapped   previous (256 -> 1: game numbers repeat from here on)
command_reply          command (reply letters), text (the rest), status (ok/no/busy/value)
self_test              code, meaning
bonus_number           slot, value, licence_days (the wheel's own bonus number, not the table's)
sensor                 kind ("ball-at-sensor" / "ball-in-pocket"), value
unreadable_line        raw, reason
=====================  ===================================================================

Every event carries `game` (the wheel's own spin counter, 1..256, or None when the line that
caused it carries no counter) and `time` (aware UTC for a live link; the capture's own timestamp,
naive local time as written, when a capture is decoded or replayed).

`event_json(event)` is one JSON line of `drr wheel decode --json`: `{"type": ..., "game": ...,
"time": ..., ...}`, the short kind of an engine event ("result", "closed", "gap", ...) with its
payload and the wheel's detail (`wire_json`), or a message's own type and fields. Example:
`{"type": "result", "game": 151, "time": "2025-09-24T05:51:40.504", "number": 24, "warnings": [],
"number_line": 24, "pocket": "24"}`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar

from engine.wheel_events import RESULT_MISMATCH, WheelEvent, WheelWarning, format_time, mapping_form

# Warning bits of the SS2 status line (guide § 4.1) and the names used in events and JSON.
WARNING_BITS: dict[int, str] = {
    1: "no_ball",
    2: "same_direction",
    4: "component_fault",
    8: "launch_failed",
}

WARNING_ADVICE: dict[str, str] = {
    "no_ball": "ball not detected: ignore for 5 s in state 4, then void or stop the game",
    "same_direction": "ball runs with the rotor: in state 3 this is a miss-spin, lock bets and send *R",
    "component_fault": "sensor, motor or encoder fault: stop the game; run *F once the wheel is idle",
    "launch_failed": "launch failed, the wheel is retrying: ignore for 3 s of state 3, then void",
}


def decode_warnings(flags: int) -> tuple[str, ...]:
    """Names of the warning bits set in `flags`, lowest bit first; unknown bits as `bit<n>`."""
    names = []
    for bit in range(4):
        value = 1 << bit
        if flags & value:
            names.append(WARNING_BITS.get(value, f"bit{value}"))
    return tuple(names)


def pocket_label(number: int) -> str:
    """The pocket's printed name: 37, 38 and 39 are the wheel's codes for 00, 000 and 0000."""
    return {37: "00", 38: "000", 39: "0000"}.get(number, str(number))


def result_mismatch(game: int | None, time: datetime, number_line: int, status_number: int) -> WheelWarning:
    """The bare winning-number line and the state-5 status line disagree (the status line wins):
    a wheel.warning naming RESULT_MISMATCH, as the table has always journaled it."""
    advice = f"number line {number_line} vs status line {status_number}"
    return WheelWarning(game=game, time=time, warnings=(RESULT_MISMATCH,), advice=advice)


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkMessage:
    """Base of the link's own messages (not journaled). `type` is the JSON tag."""

    type: ClassVar[str] = "message"
    game: int | None
    time: datetime

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, datetime):
                value = format_time(value)
            elif isinstance(value, Decimal):
                value = str(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    def reply_key(self) -> str | None:
        """For replies to host commands: the key a pending command waits for; else None."""
        return None


# What a link yields: an engine wheel event (the table acts on it) or one of the link's messages.
LinkEvent = WheelEvent | LinkMessage


@dataclass(frozen=True, slots=True, kw_only=True)
class GameCounterWrapped(LinkMessage):
    """256 -> 1: the wheel's counter wrapped; game numbers repeat from here on."""

    type: ClassVar[str] = "game_counter_wrapped"
    previous: int = 256


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandReply(LinkMessage):
    type: ClassVar[str] = "command_reply"
    command: str = ""
    text: str = ""
    status: str = "value"

    def reply_key(self) -> str | None:
        return self.command


@dataclass(frozen=True, slots=True, kw_only=True)
class SelfTest(LinkMessage):
    type: ClassVar[str] = "self_test"
    code: str = "0"
    meaning: str = ""

    def reply_key(self) -> str | None:
        return "F"


@dataclass(frozen=True, slots=True, kw_only=True)
class BonusNumber(LinkMessage):
    type: ClassVar[str] = "bonus_number"
    slot: int = 0
    value: int = 0
    licence_days: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SensorEvent(LinkMessage):
    type: ClassVar[str] = "sensor"
    kind: str = ""
    value: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class UnreadableLine(LinkMessage):
    type: ClassVar[str] = "unreadable_line"
    raw: str = ""
    reason: str = ""


MESSAGE_TYPES: dict[str, type[LinkMessage]] = {
    cls.type: cls
    for cls in (GameCounterWrapped, CommandReply, SelfTest, BonusNumber, SensorEvent, UnreadableLine)
}


def type_name(event: LinkEvent) -> str:
    """The event's name in decode output: an engine event's short kind, or a message's type."""
    return event.kind if isinstance(event, WheelEvent) else event.type


def event_json(event: LinkEvent) -> dict[str, Any]:
    """One line of `drr wheel decode --json` (see the module docstring)."""
    return mapping_form(event) if isinstance(event, WheelEvent) else event.to_json()


def reply_key(event: LinkEvent) -> str | None:
    """The key a pending host command waits for (replies and self-tests only)."""
    return event.reply_key() if isinstance(event, LinkMessage) else None


def describe(event: LinkEvent) -> str:
    """One human line for `drr wheel decode` without --json."""
    data = event_json(event)
    data.pop("type")
    time = data.pop("time", None)
    game = data.pop("game")
    details = " ".join(f"{k}={v}" for k, v in data.items())
    where = f"game {game:03d}" if game is not None else "game ---"
    when = format_time(event.time) if event.time is not None else str(time)
    return f"{when}  {where}  {type_name(event):<20s} {details}".rstrip()


__all__ = [
    "MESSAGE_TYPES",
    "WARNING_ADVICE",
    "WARNING_BITS",
    "BonusNumber",
    "CommandReply",
    "GameCounterWrapped",
    "LinkEvent",
    "LinkMessage",
    "SelfTest",
    "SensorEvent",
    "UnreadableLine",
    "decode_warnings",
    "describe",
    "event_json",
    "pocket_label",
    "reply_key",
    "result_mismatch",
    "type_name",
]
