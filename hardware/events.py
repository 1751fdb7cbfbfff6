"""Typed wheel events: what the wheel link tells the table, as frozen dataclasses and plain dicts.

Every event carries `game` (the wheel's own spin counter, 1..256, or None when the line that
caused it carries no counter) and `time` (aware UTC for a live link; the capture's own timestamp,
naive local time as written, when a capture is decoded or replayed).

The table service consumes events through an interface that must not import `hardware`, so each
event converts to a plain dict with `to_json()` (JSON-ready: strings, ints, lists, None). The dict
always holds `"type"`, `"game"` and `"time"` (ISO 8601, millisecond precision) plus the fields of
its type:

=====================  ===================================================================
type                   extra keys
=====================  ===================================================================
game_started           state (1 before game, 2 place your bets); repeats for the same game
                       when the wheel spins again after a miss-spin and *R
ball_launched          -
no_more_bets           -
result                 number (0..36; 37 = "00", 38 = "000", 39 = "0000"), pocket (label),
                       warnings (list of warning names present on the state-5 line),
                       number_line (the bare winning-number line seen just before, or None)
table_closed           -
ball_not_detected      reason ("state-7" or "no-ball-flag": flag 1 held 5 s in state 4)
warning_changed        flags (int), added / removed / active (lists of names), advice (str)
rotor_speed            rpm (string, exact decimal), direction ("cw" / "ccw")
game_number_gap        previous, expected
wheel_restart          previous
game_counter_wrapped   previous
miss_spin              -   (state 3 with flag 2: a void spin; the host should send *R)
launch_failed          seconds (how long flag 8 has persisted into state 3)
result_mismatch        number_line, status_number
command_reply          command (reply letters), text (the rest), status (ok/no/busy/value)
self_test              code, meaning
bonus_number           slot, value, licence_days
sensor                 kind ("ball-at-sensor" / "ball-in-pocket"), value
unreadable_line        raw, reason
link_state             state ("connected" / "disconnected" / "silent"), detail
=====================  ===================================================================

The table service's own vocabulary (`engine/table/wheel.py`: started, launched, result, gap, …)
is produced from these events by `hardware.table_bridge.to_table_event`.

Example: `{"type": "result", "game": 151, "number": 24, "pocket": "24", "warnings": [],
"number_line": 24, "time": "2025-09-24T05:51:40.504"}`. `from_json_type()` maps a type name
back to its class, for tests and tooling.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar, Literal

# Warning bits of the status line (guide § 4.1) and the names used in events and JSON.
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

Direction = Literal["cw", "ccw"]


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


def format_time(time: datetime) -> str:
    return time.isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class WheelEvent:
    """Base of every event. `type` is the dict tag; subclasses add their own fields."""

    type: ClassVar[str] = "event"
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

    def describe(self) -> str:
        """One human line for `drr wheel decode` without --json."""
        data = self.to_json()
        data.pop("type")
        data.pop("time")
        game = data.pop("game")
        details = " ".join(f"{k}={v}" for k, v in data.items())
        where = f"game {game:03d}" if game is not None else "game ---"
        return f"{format_time(self.time)}  {where}  {self.type:<20s} {details}".rstrip()


@dataclass(frozen=True, slots=True)
class GameStarted(WheelEvent):
    type: ClassVar[str] = "game_started"
    state: int = 2


@dataclass(frozen=True, slots=True)
class BallLaunched(WheelEvent):
    type: ClassVar[str] = "ball_launched"


@dataclass(frozen=True, slots=True)
class NoMoreBets(WheelEvent):
    type: ClassVar[str] = "no_more_bets"


@dataclass(frozen=True, slots=True)
class WheelResult(WheelEvent):
    type: ClassVar[str] = "result"
    number: int = 0
    warnings: tuple[str, ...] = ()
    number_line: int | None = None

    @property
    def pocket(self) -> str:
        return pocket_label(self.number)

    def to_json(self) -> dict[str, Any]:
        out = WheelEvent.to_json(self)
        out["pocket"] = self.pocket
        return out

    def result_line(self) -> dict[str, Any]:
        """The `drr wheel decode --results` contract: game, number, warnings, time — nothing else."""
        return {
            "game": self.game,
            "number": self.number,
            "warnings": list(self.warnings),
            "time": format_time(self.time),
        }


@dataclass(frozen=True, slots=True)
class TableClosed(WheelEvent):
    type: ClassVar[str] = "table_closed"


@dataclass(frozen=True, slots=True)
class BallNotDetected(WheelEvent):
    type: ClassVar[str] = "ball_not_detected"
    reason: str = "state-7"


@dataclass(frozen=True, slots=True)
class WarningChanged(WheelEvent):
    type: ClassVar[str] = "warning_changed"
    flags: int = 0
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    active: tuple[str, ...] = ()
    advice: str = ""


@dataclass(frozen=True, slots=True)
class RotorSpeed(WheelEvent):
    type: ClassVar[str] = "rotor_speed"
    rpm: Decimal = Decimal(0)
    direction: Direction = "cw"


@dataclass(frozen=True, slots=True)
class GameNumberGap(WheelEvent):
    """The counter moved by more than one: games were played while we were not listening."""

    type: ClassVar[str] = "game_number_gap"
    previous: int = 0
    expected: int = 0


@dataclass(frozen=True, slots=True)
class WheelRestart(WheelEvent):
    """The counter fell back to a low value (and the result field emptied): a power cycle."""

    type: ClassVar[str] = "wheel_restart"
    previous: int = 0


@dataclass(frozen=True, slots=True)
class GameCounterWrapped(WheelEvent):
    """256 -> 1: the wheel's counter wrapped; game numbers repeat from here on."""

    type: ClassVar[str] = "game_counter_wrapped"
    previous: int = 256


@dataclass(frozen=True, slots=True)
class MissSpin(WheelEvent):
    """State 3 with flag 2: the ball runs with the rotor. A void spin; the host should send *R."""

    type: ClassVar[str] = "miss_spin"


@dataclass(frozen=True, slots=True)
class LaunchFailed(WheelEvent):
    """Flag 8 persisted beyond the first 3 s of state 3: void or stop the game."""

    type: ClassVar[str] = "launch_failed"
    seconds: str = "3"


@dataclass(frozen=True, slots=True)
class ResultMismatch(WheelEvent):
    """The bare winning-number line and the state-5 status line disagree (the status line wins)."""

    type: ClassVar[str] = "result_mismatch"
    number_line: int = 0
    status_number: int = 0


@dataclass(frozen=True, slots=True)
class CommandReply(WheelEvent):
    type: ClassVar[str] = "command_reply"
    command: str = ""
    text: str = ""
    status: str = "value"

    def reply_key(self) -> str | None:
        return self.command


@dataclass(frozen=True, slots=True)
class SelfTest(WheelEvent):
    type: ClassVar[str] = "self_test"
    code: str = "0"
    meaning: str = ""

    def reply_key(self) -> str | None:
        return "F"


@dataclass(frozen=True, slots=True)
class BonusNumber(WheelEvent):
    type: ClassVar[str] = "bonus_number"
    slot: int = 0
    value: int = 0
    licence_days: int | None = None


@dataclass(frozen=True, slots=True)
class SensorEvent(WheelEvent):
    type: ClassVar[str] = "sensor"
    kind: str = ""
    value: int = 0


@dataclass(frozen=True, slots=True)
class UnreadableLine(WheelEvent):
    type: ClassVar[str] = "unreadable_line"
    raw: str = ""
    reason: str = ""


@dataclass(frozen=True, slots=True)
class LinkState(WheelEvent):
    type: ClassVar[str] = "link_state"
    state: str = "connected"
    detail: str = ""


EVENT_TYPES: dict[str, type[WheelEvent]] = {
    cls.type: cls
    for cls in (
        GameStarted,
        BallLaunched,
        NoMoreBets,
        WheelResult,
        TableClosed,
        BallNotDetected,
        WarningChanged,
        RotorSpeed,
        GameNumberGap,
        WheelRestart,
        GameCounterWrapped,
        MissSpin,
        LaunchFailed,
        ResultMismatch,
        CommandReply,
        SelfTest,
        BonusNumber,
        SensorEvent,
        UnreadableLine,
        LinkState,
    )
}


def from_json_type(name: str) -> type[WheelEvent]:
    return EVENT_TYPES[name]


__all__ = [
    "EVENT_TYPES",
    "WARNING_ADVICE",
    "WARNING_BITS",
    "BallLaunched",
    "BallNotDetected",
    "BonusNumber",
    "CommandReply",
    "Direction",
    "GameCounterWrapped",
    "GameNumberGap",
    "GameStarted",
    "LaunchFailed",
    "LinkState",
    "MissSpin",
    "NoMoreBets",
    "ResultMismatch",
    "SelfTest",
    "SensorEvent",
    "TableClosed",
    "UnreadableLine",
    "WarningChanged",
    "WheelEvent",
    "WheelRestart",
    "WheelResult",
    "decode_warnings",
    "pocket_label",
]
