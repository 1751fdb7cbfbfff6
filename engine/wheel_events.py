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
                                                                                   direction; the
                                                                                   rotor's rpm
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
wheel.identity         at connect: who the wheel is and its clock (`*K`, `*S`,     maker, firmware,
                       `*V`, `*v`, `*d g`), asked by the table                     version, fpga,
                                                                                   clock, offset
wheel.clock            the wheel's clock read again (`*d g`): every                clock, offset,
                       `wheel.clock_check_minutes` and at each reconciliation      occasion
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
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar, Final, Literal

from engine.codec import DECIMAL, PLAIN, Coder, Invalid, Record, fact
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


def format_time(time: datetime) -> str:
    """The payload's form of a time: ISO 8601 with milliseconds (offset kept when aware)."""
    return time.isoformat(timespec="milliseconds")


_WANT_NAMES: Final = "must be a list of names"


def _names(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(w, str) for w in value):
        raise Invalid(_WANT_NAMES)
    return tuple(value)


def _time(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise Invalid("is not an ISO 8601 time") from None


def _is_whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# How each kind of field is read and written, and what a constructed event's value must be (the
# wheel's own values are checked as strictly as a journal's: `WheelEvent.__post_init__`).
_INT: Final = Coder(check=_is_whole, want="is not a whole number")
_TEXT: Final = Coder(load=str, check=lambda v: isinstance(v, str), want="is not text")
_NAMES: Final = Coder(
    list,
    _names,
    lambda v: isinstance(v, tuple) and all(isinstance(w, str) for w in v),
    _WANT_NAMES,
)
_BOOL: Final = Coder(check=lambda v: isinstance(v, bool), want="is not true or false")
_DECIMAL: Final = Coder(
    str, DECIMAL.load, lambda v: isinstance(v, Decimal) and v.is_finite(), "is not a decimal number"
)
_DIRECTION: Final = Coder(check=lambda v: v in DIRECTIONS, want="must be 'cw' or 'ccw'")
_TIME: Final = Coder(format_time, _time, lambda v: isinstance(v, datetime), "is not a time")


def _field(coder: Coder, *, journal: bool = True) -> Any:
    return field(default=None, metadata=fact(coder=coder, journal=journal))


def wire_only(coder: Coder) -> Any:
    """A field the wheel reports that the journal does not keep (decode shows it)."""
    return _field(coder, journal=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelEvent(Record):
    """Base of every wheel event: the common fields (the JSON forms: engine.codec, see the module
    docstring). Reading a payload, keys this type does not have are ignored; bad values raise DrrError."""

    type: ClassVar[EntryType]
    game: int | None = field(default=None, metadata=fact(coder=PLAIN, null=True))  # always written
    time: datetime | None = field(default=None, metadata=fact(coder=_TIME))

    def __post_init__(self) -> None:
        game = self.game
        if game is not None and (isinstance(game, bool) or not isinstance(game, int) or game < 0):
            raise DrrError(f"wheel event {self.kind}: game {game!r} is not a game number")
        for s in self.specs():
            value = getattr(self, s.name)
            if value is not None and s.coder.check is not None and not s.coder.check(value):
                raise DrrError(f"wheel event {self.kind}: {s.name} {value!r} {s.coder.want}")

    @classmethod
    def _malformed(cls, why: str) -> Exception:
        return DrrError(f"wheel event {cls.type.removeprefix('wheel.')}: {why}")

    @property
    def kind(self) -> str:
        """The short name: "result" for wheel.result (the mapping form's "type")."""
        return self.type.removeprefix("wheel.")


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


def _accepted(result: WheelResult) -> bool:
    return bool(result.accepted)


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelResult(WheelEvent):
    """The winning number. `accepted`, `note` and `direction` are the table's verdict, set by the
    service when it journals the result (None on the wheel's own event); `direction` (the rotor's,
    possibly unknown) is in the payload exactly when the result was accepted."""

    type: ClassVar[EntryType] = EntryType.WHEEL_RESULT
    number: int = field(metadata=fact(coder=_INT))
    warnings: tuple[str, ...] | None = _field(_NAMES)  # warning names on the state-5 line
    note: str | None = _field(_TEXT)
    accepted: bool | None = _field(_BOOL)
    # In the payload exactly when accepted (even None: the rotor's direction was not known yet).
    direction: Direction | None = field(default=None, metadata=fact(coder=_DIRECTION, when=_accepted))
    # The rotor's speed the wheel last reported before the ball settled (issue 26: the game's physics,
    # watched by surveillance); left out when the wheel reported none (an old journal has none).
    rpm: Decimal | None = field(default=None, metadata=fact(coder=_DECIMAL))
    number_line: int | None = wire_only(_INT)  # the bare winning-number line seen just before

    def __post_init__(self) -> None:
        number = self.number
        if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 36:
            raise DrrError(f"wheel result {number!r} is not a number 0-36 (single-zero wheel)")
        WheelEvent.__post_init__(self)

    @property
    def pocket(self) -> str:
        return str(self.number)

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
    rpm: Decimal = field(metadata=fact(coder=_DECIMAL))
    direction: Direction = field(metadata=fact(coder=_DIRECTION))

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


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelIdentity(WheelEvent):
    """At connect (issue 26): the wheel's identity as it gives it — maker code (`*K`, asked only while
    idle: otherwise `*K` starts a game), firmware number (`*S`), full version (`*V`), FPGA and COPRO
    versions (`*v`) — and its clock (`*d g`, the wheel's local time to the second) with its offset from
    the table PC's local clock in seconds (wheel minus PC; None when the clock was not read)."""

    type: ClassVar[EntryType] = EntryType.WHEEL_IDENTITY
    maker: str | None = _field(_TEXT)
    firmware: str | None = _field(_TEXT)
    version: str | None = _field(_TEXT)
    fpga: str | None = _field(_TEXT)
    clock: str | None = _field(_TEXT)  # the wheel's clock as read, ISO 8601 (naive: its own local time)
    offset: Decimal | None = field(default=None, metadata=fact(coder=_DECIMAL))  # s, wheel minus PC


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelClock(WheelEvent):
    """The wheel's clock read again after the connect (`*d g`; issue 26): its drift from the table PC's
    is seen as it grows, not only at the next connect. `occasion`: "periodic" (every
    `wheel.clock_check_minutes`) or "reconcile" (read with the wheel's log); `clock` and `offset` as
    WheelIdentity's (the wheel's local time, naive ISO 8601; seconds, wheel minus PC)."""

    type: ClassVar[EntryType] = EntryType.WHEEL_CLOCK
    clock: str | None = _field(_TEXT)
    offset: Decimal | None = field(default=None, metadata=fact(coder=_DECIMAL))
    occasion: str | None = _field(_TEXT)


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
        WheelIdentity,
        WheelClock,
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
    result: WheelResult,
    *,
    accepted: bool,
    note: str | None,
    direction: Direction | None,
    rpm: Decimal | None = None,
) -> WheelResult:
    """The result as the table journals it: the wheel's event plus the table's verdict (and the rotor
    speed last reported before it, the game's physics)."""
    return dataclasses.replace(
        result, accepted=accepted, note=note, direction=direction if accepted else None, rpm=rpm
    )


@dataclass(frozen=True)
class ReconciledGame(Record):
    """One game of a reconciliation: the wheel's counter, the round it was the spin of, what the
    journal recorded and what the wheel's own log holds (None: that side has none)."""

    game: int = field(metadata=fact(coder=_INT))
    round_id: str | None = None
    journal: int | None = _field(_INT)
    wheel: int | None = _field(_INT)


def _games(value: Any) -> tuple[ReconciledGame, ...]:
    if not isinstance(value, list | tuple):
        raise Invalid("must be a list of games")
    return tuple(g if isinstance(g, ReconciledGame) else ReconciledGame.from_json(g) for g in value)


_GAMES: Final = Coder(lambda v: [g.to_json() for g in v], _games)


@dataclass(frozen=True)
class WheelReconciled(Record):
    """`wheel.reconciled`: the wheel's own log and tables held against the table's journal (issue 26;
    hardware.wheel_reconcile), at the table's close or on demand (`drr wheel reconcile`). The table's
    fact about the wheel, not a message the link emits (so not in WHEEL_EVENTS).

    `source`: where the log was read (a capture file, `serial:PORT`, the virtual wheel); `occasion`:
    "close" or "on demand"; `pages_used` the wheel's `*s t`, `pages_untrusted` the pages whose checksum
    failed (their entries not used); `wins_total` / `misfires_total` the sums of `*W` / `*M` when read."""

    type: ClassVar[EntryType] = EntryType.WHEEL_RECONCILED
    matched: int = field(metadata=fact(coder=_INT))
    misfires: int = field(metadata=fact(coder=_INT))
    journal_only: tuple[ReconciledGame, ...] = field(default=(), metadata=fact(coder=_GAMES))
    wheel_only: tuple[ReconciledGame, ...] = field(default=(), metadata=fact(coder=_GAMES))
    differ: tuple[ReconciledGame, ...] = field(default=(), metadata=fact(coder=_GAMES))
    source: str = ""
    occasion: str = "on demand"
    since: str | None = None
    pages_used: int | None = _field(_INT)
    pages_untrusted: tuple[int, ...] = ()
    wins_total: int | None = _field(_INT)
    misfires_total: int | None = _field(_INT)
    by: str | None = None

    @property
    def differs(self) -> bool:
        return bool(self.journal_only or self.wheel_only or self.differ)

    @classmethod
    def of(cls, figures: Mapping[str, Any], **facts: Any) -> WheelReconciled:
        """The entry of `hardware.wheel_reconcile.reconcile`'s figures, with the reading's facts."""
        return cls(
            matched=figures["matched"],
            misfires=figures["misfires"],
            journal_only=_games(figures["journal_only"]),
            wheel_only=_games(figures["wheel_only"]),
            differ=_games(figures["differ"]),
            **facts,
        )

    def figures(self) -> dict[str, Any]:
        """The figures as `drr wheel reconcile --json` prints them."""
        return {
            "matched": self.matched,
            "journal_only": [
                {"round_id": g.round_id, "game": g.game, "journal": g.journal} for g in self.journal_only
            ],
            "wheel_only": [{"game": g.game, "wheel": g.wheel} for g in self.wheel_only],
            "differ": [
                {"round_id": g.round_id, "game": g.game, "journal": g.journal, "wheel": g.wheel}
                for g in self.differ
            ],
            "misfires": self.misfires,
        }

    def summary(self) -> str:
        """One line in words (the reports', describe's, the command's)."""
        return (
            f"{self.matched} matched, {len(self.differ)} differ, {len(self.journal_only)} only in the "
            f"journal, {len(self.wheel_only)} only in the wheel's log, {self.misfires} misfires"
        )


__all__ = [
    "DIRECTIONS",
    "POCKET_LABELS",
    "RESULT_MISMATCH",
    "WHEEL_EVENTS",
    "Direction",
    "ReconciledGame",
    "WheelBallNotDetected",
    "WheelClock",
    "WheelClosed",
    "WheelEvent",
    "WheelGap",
    "WheelIdentity",
    "WheelLaunchFailed",
    "WheelLaunched",
    "WheelLinkState",
    "WheelMissSpin",
    "WheelNoMoreBets",
    "WheelReconciled",
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
