"""The wheel's messages: one typed, frozen event per `wheel.*` journal entry type, emitted by the link.

`hardware/` (the protocols, the link, replays, the virtual wheel) builds these events and the table
service journals them as they are: `event.type` is the entry's type (`EntryType.WHEEL_RESULT`, ...)
and `event.to_json()` its payload, exactly as journals have always held it. There is no second
vocabulary and no renaming between the wire and the journal.

=====================  ==========================================================  ==================
type                   meaning                                                     journal fields
=====================  ==========================================================  ==================
wheel.started          a game starts: place your bets (wheel state 1/2)            -
wheel.launched         the ball is launched (state 3); bets still open             -
wheel.no_more_bets     state 4: the service closes bets (draw) if open             -
wheel.result           the winning number (state 5)                                number, warnings;
                                                                                   the table's verdict:
                                                                                   accepted, note,
                                                                                   direction
wheel.closed           the wheel is off (state 6)                                  -
wheel.ball_not_detected  no ball in state 4/7, or a pocket a single-zero wheel     reason, warnings
                       does not have: the spin is doubtful
wheel.warning          the wheel's warning flags changed (or RESULT_MISMATCH:      warnings, advice
                       the number line and the status line disagreed; or
                       RESULT_CONFLICT: a second, different result for a game)
wheel.miss_spin        the ball ran with the rotor: a void spin                    -
wheel.launch_failed    the launch failed                                           -
wheel.gap              game counter jumped: games were played unseen               previous
wheel.restart          the wheel was power-cycled                                  previous
wheel.rotor            rotor speed and direction (journaled at most every 10 s)    rpm, direction
wheel.link             the link to the wheel went up, down or silent               state, detail
=====================  ==========================================================  ==================

Every event has `game` (the wheel's counter, or None; always in the payload) and `time` (when the
wheel said it: aware UTC live, the capture's naive local time when replayed; in the payload as ISO
8601 text with milliseconds, left out when None). An optional field that is None is left out of the
payload, so a payload read with `from_json` gives back the same payload with `to_json`.

Some fields are the wheel's detail that the journal does not keep (`wire_only`: the SS2 state 1/2 of
a start, the bare number line of a result, the flags of a warning, ...): `drr wheel decode` shows
them, `to_json` leaves them out.

The plain mapping form `{"type": "result", "game": 12, "number": 17}` (the short kind, or the full
type name, plus the payload) is what tests, replays and `drr wheel decode --json` use;
`parse_wheel_event` turns it into the typed event. Bad fields raise DrrError naming what is wrong.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar, Final, Literal, Self

from engine.entry_types import EntryType, entry_type
from engine.errors import DrrError

Direction = Literal["cw", "ccw"]
DIRECTIONS: Final = ("cw", "ccw")
# The warning name a wheel.warning carries when the bare number line and the state-5 status line
# disagree (the status line wins; the event says so for the croupier and surveillance).
RESULT_MISMATCH: Final = "result_mismatch"
# A second state-5 result, with another number, under a game counter already reported (issue 26).
RESULT_CONFLICT: Final = "result_conflict"
# The wheel's codes for pockets a single-zero wheel does not have.
POCKET_LABELS: Final = {37: "00", 38: "000", 39: "0000"}

# How each field is read from and written to JSON (field metadata "json"), and whether the journal
# keeps it (metadata "journal"; False: the wheel's detail, shown by decode only).
_INT, _TEXT, _NAMES, _BOOL, _DECIMAL, _DIRECTION = "int", "text", "names", "bool", "decimal", "direction"


def _field(kind: str, default: Any = None, *, journal: bool = True) -> Any:
    return field(default=default, metadata={"json": kind, "journal": journal})


def wire_only(kind: str, default: Any = None) -> Any:
    """A field the wheel reports that the journal does not keep (decode shows it)."""
    return _field(kind, default, journal=False)


def format_time(time: datetime) -> str:
    """The payload's form of a time: ISO 8601 with milliseconds (offset kept when aware)."""
    return time.isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelEvent:
    """Base of every wheel event: the common fields and the JSON forms (see the module docstring)."""

    type: ClassVar[EntryType]
    game: int | None = None
    time: datetime | None = None

    def __post_init__(self) -> None:
        game = self.game
        if game is not None and (isinstance(game, bool) or not isinstance(game, int) or game < 0):
            raise DrrError(f"wheel event {self.kind}: game {game!r} is not a game number")
        if self.time is not None and not isinstance(self.time, datetime):
            raise DrrError(f"wheel event {self.kind}: time {self.time!r} is not a time")
        for f in fields(self):
            kind = f.metadata.get("json")
            value = getattr(self, f.name)
            if kind is None or value is None:
                continue
            if not _valid(kind, value):
                raise DrrError(f"wheel event {self.kind}: {f.name} {value!r} {_WANT[kind]}")

    @property
    def kind(self) -> str:
        """The short name: "result" for wheel.result (the mapping form's "type")."""
        return self.type.removeprefix("wheel.")

    def to_json(self) -> dict[str, Any]:
        """The journal payload: `game` always, every other journal field unless it is None."""
        out: dict[str, Any] = {"game": self.game}
        if self.time is not None:
            out["time"] = format_time(self.time)
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("journal") and value is not None:
                out[f.name] = _to_json(value)
        return out

    def wire_json(self) -> dict[str, Any]:
        """`to_json()` plus the wheel's detail the journal does not keep (for decode and tooling)."""
        out = self.to_json()
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("journal") is False and value is not None:
                out[f.name] = _to_json(value)
        return out

    @classmethod
    def from_json(cls, payload: Mapping[str, Any]) -> Self:
        """The event of a journal payload (or a decode line without its "type"). Keys this type does
        not have are ignored; bad values raise DrrError."""
        if not isinstance(payload, Mapping):
            raise DrrError(f"a wheel event must be a mapping, not {type(payload).__name__}")
        kind = cls.type.removeprefix("wheel.")
        args: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in payload:
                continue
            value = payload[f.name]
            if f.name == "time":
                args["time"] = _read_time(kind, value)
            elif value is None or f.name == "game":
                args[f.name] = value
            else:
                args[f.name] = _read(f.metadata.get("json", ""), value, kind, f.name)
        return cls(**args)


_WANT: Final = {
    _INT: "is not a whole number",
    _TEXT: "is not text",
    _NAMES: "must be a list of names",
    _BOOL: "is not true or false",
    _DECIMAL: "is not a decimal number",
    _DIRECTION: "must be 'cw' or 'ccw'",
}


def _valid(kind: str, value: Any) -> bool:
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _TEXT:
        return isinstance(value, str)
    if kind == _NAMES:
        return isinstance(value, tuple) and all(isinstance(w, str) for w in value)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _DECIMAL:
        return isinstance(value, Decimal) and value.is_finite()
    if kind == _DIRECTION:
        return value in DIRECTIONS
    return True


def _read(kind: str, value: Any, event: str, name: str) -> Any:
    """A JSON value in the field's Python form (what `_valid` then checks)."""
    if kind == _NAMES:
        if not isinstance(value, list | tuple) or not all(isinstance(w, str) for w in value):
            raise DrrError(f"wheel event {event}: {name} {value!r} must be a list of names")
        return tuple(value)
    if kind == _DECIMAL:
        try:
            return Decimal(str(value))
        except InvalidOperation:
            raise DrrError(f"wheel event {event}: {name} {value!r} is not a decimal number") from None
    if kind == _TEXT:
        return str(value)
    return value


def _read_time(event: str, value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise DrrError(f"wheel event {event}: time {value!r} is not an ISO 8601 time") from None


def _to_json(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelStarted(WheelEvent):
    """A game starts (bets open); repeats for the same game when the wheel spins again after a miss-spin."""

    type: ClassVar[EntryType] = EntryType.WHEEL_STARTED
    state: int | None = wire_only(_INT)  # SS2: 1 before the game, 2 place your bets


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelLaunched(WheelEvent):
    type: ClassVar[EntryType] = EntryType.WHEEL_LAUNCHED


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelNoMoreBets(WheelEvent):
    type: ClassVar[EntryType] = EntryType.WHEEL_NO_MORE_BETS


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelResult(WheelEvent):
    """The winning number. `accepted`, `note` and `direction` are the table's verdict, set by the
    service when it journals the result (None on the wheel's own event); `direction` (the rotor's,
    possibly unknown) is in the payload exactly when the result was accepted."""

    type: ClassVar[EntryType] = EntryType.WHEEL_RESULT
    number: int = field(metadata={"json": _INT, "journal": True})
    warnings: tuple[str, ...] | None = _field(_NAMES)  # warning names on the state-5 line
    note: str | None = _field(_TEXT)
    accepted: bool | None = _field(_BOOL)
    # In the payload exactly when accepted (even None: the rotor's direction was not known yet).
    direction: Direction | None = field(default=None, metadata={"json": _DIRECTION, "journal": None})
    number_line: int | None = wire_only(_INT)  # the bare winning-number line seen just before

    def __post_init__(self) -> None:
        number = self.number
        if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 36:
            raise DrrError(f"wheel result {number!r} is not a number 0-36 (single-zero wheel)")
        WheelEvent.__post_init__(self)

    @property
    def pocket(self) -> str:
        return str(self.number)

    def to_json(self) -> dict[str, Any]:
        out = WheelEvent.to_json(self)
        if self.accepted:
            out["direction"] = self.direction
        return out

    def wire_json(self) -> dict[str, Any]:
        out = WheelEvent.wire_json(self)
        out["pocket"] = self.pocket
        return out

    def result_line(self) -> dict[str, Any]:
        """The `drr wheel decode --results` contract: game, number, warnings, time — nothing else."""
        return {
            "game": self.game,
            "number": self.number,
            "warnings": list(self.warnings or ()),
            "time": None if self.time is None else format_time(self.time),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelClosed(WheelEvent):
    type: ClassVar[EntryType] = EntryType.WHEEL_CLOSED


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelBallNotDetected(WheelEvent):
    """No ball (SS2: "state-7", or "no-ball-flag" held 5 s in state 4), or an impossible pocket."""

    type: ClassVar[EntryType] = EntryType.WHEEL_BALL_NOT_DETECTED
    reason: str | None = _field(_TEXT)
    warnings: tuple[str, ...] | None = _field(_NAMES)


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelWarning(WheelEvent):
    """The wheel's active warnings changed (or RESULT_MISMATCH alone: number line vs status line)."""

    type: ClassVar[EntryType] = EntryType.WHEEL_WARNING
    warnings: tuple[str, ...] | None = _field(_NAMES)  # the warnings active now
    advice: str | None = _field(_TEXT)
    flags: int | None = wire_only(_INT)  # the raw flag bits
    added: tuple[str, ...] | None = wire_only(_NAMES)
    removed: tuple[str, ...] | None = wire_only(_NAMES)

    @property
    def is_mismatch(self) -> bool:
        """A number-line/status-line disagreement (or a second, different result for a game already
        reported): the number is doubtful; not a change of the wheel's warning flags."""
        names = self.warnings or ()
        return RESULT_MISMATCH in names or RESULT_CONFLICT in names


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelMissSpin(WheelEvent):
    """The ball runs with the rotor (SS2: state 3 with flag 2): a void spin; the host should send *R."""

    type: ClassVar[EntryType] = EntryType.WHEEL_MISS_SPIN


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelLaunchFailed(WheelEvent):
    type: ClassVar[EntryType] = EntryType.WHEEL_LAUNCH_FAILED
    seconds: str | None = wire_only(_TEXT)  # how long the launch-failed flag had persisted


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelGap(WheelEvent):
    """The counter moved by more than one: games were played while we were not listening."""

    type: ClassVar[EntryType] = EntryType.WHEEL_GAP
    previous: int | None = _field(_INT)
    expected: int | None = wire_only(_INT)


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelRestart(WheelEvent):
    """The counter fell back to a low value (and the result field emptied): a power cycle."""

    type: ClassVar[EntryType] = EntryType.WHEEL_RESTART
    previous: int | None = _field(_INT)


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelRotor(WheelEvent):
    type: ClassVar[EntryType] = EntryType.WHEEL_ROTOR
    rpm: Decimal = field(metadata={"json": _DECIMAL, "journal": True})
    direction: Direction = field(metadata={"json": _DIRECTION, "journal": True})

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:  # the message the table has always given
            raise DrrError(f"wheel rotor direction {self.direction!r} must be 'cw' or 'ccw'")
        WheelEvent.__post_init__(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelLinkState(WheelEvent):
    """The link itself: state "connected", "disconnected" or "silent", with a human detail."""

    type: ClassVar[EntryType] = EntryType.WHEEL_LINK
    state: str | None = _field(_TEXT)
    detail: str | None = _field(_TEXT)


WHEEL_EVENTS: Final[dict[EntryType, type[WheelEvent]]] = {
    cls.type: cls
    for cls in (
        WheelStarted,
        WheelLaunched,
        WheelNoMoreBets,
        WheelResult,
        WheelClosed,
        WheelBallNotDetected,
        WheelWarning,
        WheelMissSpin,
        WheelLaunchFailed,
        WheelGap,
        WheelRestart,
        WheelRotor,
        WheelLinkState,
    )
}
_BY_KIND: Final = {t.removeprefix("wheel."): cls for t, cls in WHEEL_EVENTS.items()}


def wheel_number(
    number: int,
    *,
    game: int | None,
    time: datetime | None,
    warnings: tuple[str, ...] | None = (),
    number_line: int | None = None,
) -> WheelResult | WheelBallNotDetected:
    """The event for a number the wheel reports: a result, or for 37-39 (the wheel's codes for 00,
    000, 0000, which a single-zero wheel does not have: a misconfigured or faulty sensor) a doubtful
    spin. Every protocol reports its numbers through here."""
    label = POCKET_LABELS.get(number)
    if label is not None:
        reason = f"pocket {label} is not on a single-zero wheel"
        return WheelBallNotDetected(game=game, time=time, reason=reason, warnings=warnings)
    return WheelResult(game=game, time=time, number=number, warnings=warnings, number_line=number_line)


def wheel_event_type(name: object) -> EntryType:
    """The entry type a mapping's "type" names: the short kind ("result") or the full name."""
    if isinstance(name, str):
        cls = _BY_KIND.get(name)
        if cls is not None:
            return cls.type
        found = entry_type(name)  # the full name, or an old journal's spelling (wheel.rotor_speed)
        if found is not None and found in WHEEL_EVENTS:
            return found
    raise DrrError(f"unknown wheel event type {name!r}; known: {', '.join(_BY_KIND)}")


def parse_wheel_event(ev: Mapping[str, Any]) -> WheelEvent:
    """The typed event of a mapping form `{"type": ..., **payload}` (a result of 37-39 is the doubtful
    spin `wheel_number` makes of it). DrrError names a bad type or field."""
    if not isinstance(ev, Mapping):
        raise DrrError(f"a wheel event must be a mapping, not {type(ev).__name__}")
    entry_type = wheel_event_type(ev.get("type"))
    payload = {k: v for k, v in ev.items() if k != "type"}
    if entry_type is EntryType.WHEEL_RESULT and payload.get("number") in POCKET_LABELS:
        seen = WheelBallNotDetected.from_json({k: v for k, v in payload.items() if k != "number"})
        return wheel_number(payload["number"], game=seen.game, time=seen.time, warnings=seen.warnings)
    return WHEEL_EVENTS[entry_type].from_json(payload)


def mapping_form(event: WheelEvent) -> dict[str, Any]:
    """`{"type": <short kind>, **wire_json()}`: what `parse_wheel_event` reads back."""
    return {"type": event.kind, **event.wire_json()}


def with_verdict(
    result: WheelResult, *, accepted: bool, note: str | None, direction: Direction | None
) -> WheelResult:
    """The result as the table journals it: the wheel's event plus the table's verdict."""
    return dataclasses.replace(
        result, accepted=accepted, note=note, direction=direction if accepted else None
    )


__all__ = [
    "DIRECTIONS",
    "POCKET_LABELS",
    "RESULT_MISMATCH",
    "WHEEL_EVENTS",
    "Direction",
    "WheelBallNotDetected",
    "WheelClosed",
    "WheelEvent",
    "WheelGap",
    "WheelLaunchFailed",
    "WheelLaunched",
    "WheelLinkState",
    "WheelMissSpin",
    "WheelNoMoreBets",
    "WheelRestart",
    "WheelResult",
    "WheelRotor",
    "WheelStarted",
    "WheelWarning",
    "format_time",
    "mapping_form",
    "parse_wheel_event",
    "wheel_event_type",
    "wheel_number",
    "with_verdict",
]
