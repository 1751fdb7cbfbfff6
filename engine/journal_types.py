"""The registry of journal entry types: for each type its payload class, and how entries are read and written.

The names are engine.entry_types.EntryType (spelled only there); the payload classes are frozen
dataclasses, each with `type` (its EntryType), `to_json()` (the payload journaled) and
`from_json(mapping)`:

- `round.*`: engine.round's events (the state machine's vocabulary; their journal facts such as the
  dealer or the wheel's game number are optional fields the machine ignores), plus
  `round.irregularity` and `round.payout_approved` (engine.table_events);
- `bonus.*`: engine.bonus_game's events, each wrapped with its player
  (engine.table_events.PlayerBonusEvent), plus `bonus.preset_set` and `bonus.timer_restarted`;
- `table.*`: engine.table_events;
- `wheel.*`: engine.wheel_events' events (WHEEL_EVENTS, the wheel layer's own vocabulary; an old
  journal's `wheel.rotor_speed` reads as WheelRotor); `wheel.reconciled`, the table's reconciliation of
  the wheel's own log (engine.wheel_events.WheelReconciled, not a link message);
- `user.*`, `chain.*`, `alert.*`, `action.refused`, `floor.action`, `history.imported`: engine.floor_events.

Everyone reads and writes entries through two functions:

    payload = read(entry)        # the typed payload; old spellings (LEGACY) read as today's type;
                                 # DrrError naming the entry's seq and type if malformed;
                                 # Unknown(name, payload) for a type this build does not know
    event = write(payload, table="T1", round_id="T1-000001", user="dana")   # a NewEvent to append
    store.journal.append_many([event])

`parse(name, payload)` does what `read` does for a type and payload read from a row;
`entry_type(name)` is today's EntryType of a stored type name (None if unknown); `spellings(*types)`
every stored name of those types, today's and the legacy ones (for a query on the type column).
Stored entries are never rewritten: a legacy entry reads as today's payload, its stored text stays
as it was (the chain hashes it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, get_args

from engine import round as _round
from engine.bonus_game import (
    BoxesPlaced,
    BoxesRevealed,
    BoxPicked,
    CashedOut,
    GameEnded,
    GameStarted,
    TimerExpired,
)
from engine.entry_types import LEGACY, EntryType, entry_type
from engine.errors import DrrError
from engine.exact import parse_odds, parse_whole
from engine.floor_events import (
    ActionRefused,
    AlertAcknowledged,
    AlertRaised,
    AlertUpdated,
    ChainForwarded,
    ChainKeyed,
    FloorAction,
    HistoryImported,
    UserAdded,
    UserDisabled,
    UserEnabled,
    UserLockedOut,
    UserLogin,
    UserLoginFailed,
    UserPinChanged,
    UserRoleChanged,
    UserUnlocked,
    WriterEnrolled,
)
from engine.rng import Draw
from engine.round import RoundEvent
from engine.store.records import Entry, NewEvent
from engine.table_events import (
    AutoConfirmDue,
    BettingTime,
    BiasAlarm,
    DealerChanged,
    FloorActionTaken,
    Irregularity,
    IrregularityResolved,
    KeyRotated,
    ManualEntry,
    ManualEntryRejected,
    NewSoftware,
    NextRound,
    PayoutApproved,
    PlayerBonusEvent,
    PresetSet,
    Quarantined,
    RngFault,
    RulesLoaded,
    SettingsChanged,
    SoftwareApproved,
    StartupTested,
    TableStarted,
    TiltCleared,
    Tilted,
    TimerRestarted,
    WheelServiced,
    WheelStartOrdered,
)
from engine.wheel_events import WHEEL_EVENTS, WheelEvent, WheelReconciled

__all__ = [
    "PAYLOAD_CLASSES",
    "ROUND_EVENTS",
    "Payload",
    "Unknown",
    "entry_type",
    "parse",
    "payload_class",
    "read",
    "spellings",
    "typed",
    "write",
]


@dataclass(frozen=True)
class Unknown:
    """An entry of a type this build does not know (another writer's, a newer version's): kept as is."""

    name: str
    payload: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return dict(self.payload)


Payload = (
    RoundEvent
    | PlayerBonusEvent
    | TableStarted
    | KeyRotated
    | Quarantined
    | RulesLoaded
    | SettingsChanged
    | ManualEntry
    | ManualEntryRejected
    | IrregularityResolved
    | NextRound
    | DealerChanged
    | FloorActionTaken
    | RngFault
    | StartupTested
    | Tilted
    | TiltCleared
    | SoftwareApproved
    | NewSoftware
    | BiasAlarm
    | WheelServiced
    | Irregularity
    | PayoutApproved
    | PresetSet
    | TimerRestarted
    | BettingTime
    | WheelStartOrdered
    | AutoConfirmDue
    | WheelEvent
    | WheelReconciled
    | UserAdded
    | UserRoleChanged
    | UserPinChanged
    | UserDisabled
    | UserEnabled
    | UserLogin
    | UserLoginFailed
    | UserLockedOut
    | UserUnlocked
    | ChainKeyed
    | WriterEnrolled
    | FloorAction
    | ChainForwarded
    | AlertRaised
    | AlertUpdated
    | AlertAcknowledged
    | ActionRefused
    | HistoryImported
)

# The state machine's events (engine.round), each the payload of its `round.*` entry.
ROUND_EVENTS: Final = (
    _round.RoundOpened,
    _round.WagerPlaced,
    _round.WagerRemoved,
    _round.BetsClosed,
    _round.ResultRecorded,
    _round.ResultCorrected,
    _round.NoSpin,
    _round.ResultBeforeClose,
    _round.BonusStarted,
    _round.BonusOutcome,
    _round.RoundSettled,
    _round.RoundVoided,
)
_BONUS_EVENTS: Final = (
    GameStarted,
    BoxesPlaced,
    BoxesRevealed,
    BoxPicked,
    CashedOut,
    TimerExpired,
    GameEnded,
)
# The table's and the floor's own payloads (and the wheel's reconciliation): the rest of `Payload`,
# which spells them once.
_NOT_OWN: Final = (*ROUND_EVENTS, PlayerBonusEvent, WheelEvent, *WHEEL_EVENTS.values())
_OWN_CLASSES: Final = tuple(c for c in get_args(Payload) if c not in _NOT_OWN)

# The payload class of every entry type (bonus-game types: the player wrapper, whose event is
# engine.bonus_game's class of that type).
PAYLOAD_CLASSES: Final[dict[EntryType, type]] = {
    **{c.type: c for c in ROUND_EVENTS},
    **{c.type: PlayerBonusEvent for c in _BONUS_EVENTS},
    **{c.type: c for c in _OWN_CLASSES},
    **WHEEL_EVENTS,
}

_Reader = Callable[[Mapping[str, Any]], Payload]


def _bonus_reader(t: EntryType) -> _Reader:
    # Other writers may leave "type" out of the payload: the entry's type names the event.
    return lambda d: PlayerBonusEvent.from_json({**d, "type": t})


_READERS: dict[EntryType, _Reader] = {
    **{c.type: c.from_json for c in ROUND_EVENTS},
    **{c.type: _bonus_reader(c.type) for c in _BONUS_EVENTS},
    **{c.type: c.from_json for c in _OWN_CLASSES},
    **{t: c.from_json for t, c in WHEEL_EVENTS.items()},
}


def _bets_closed(d: Mapping[str, Any]) -> Payload:
    if "draw" in d:
        return _round.BetsClosed.from_json(d)
    # An early journal's `round.closed` (engine.entry_types.LEGACY): {"lucky": [[number, odds], ...],
    # "bonus_number"} without the draw record around it.
    lucky = {parse_whole(n): parse_odds(x) for n, x in d.get("lucky") or []}
    return _round.BetsClosed(Draw(lucky=lucky, bonus_number=parse_whole(d["bonus_number"])))


# Today's payload classes read old journals' shapes too: PayoutApproved.from_json the pit-boss
# station's {amount, by, ...} (its `payout.approved`), RulesLoaded.from_json `rules.changed`'s.
_READERS[EntryType.ROUND_BETS_CLOSED] = _bets_closed
assert set(PAYLOAD_CLASSES) == set(EntryType), "every entry type has a payload class"


def spellings(*types: EntryType) -> tuple[str, ...]:
    """Every stored type name of `types`: today's and an old journal's (for a query on the type column)."""
    return (*(t.value for t in types), *(name for name, t in LEGACY.items() if t in types))


def payload_class(t: EntryType) -> type:
    """The payload class registered for `t`."""
    return PAYLOAD_CLASSES[t]


def _why(exc: Exception) -> str:
    if isinstance(exc, DrrError):
        return exc.message
    if isinstance(exc, KeyError):
        return f"no {exc}"
    return str(exc) or type(exc).__name__


def _parse(name: str, payload: Mapping[str, Any]) -> Payload | Unknown:
    t = entry_type(name)
    if t is None:
        return Unknown(name, payload)
    return _READERS[t](payload)


_MALFORMED: Final = (KeyError, TypeError, ValueError, ArithmeticError, AttributeError, DrrError)


def parse(name: str, payload: Mapping[str, Any], *, where: str = "journal entry") -> Payload | Unknown:
    """The typed payload of a stored type name and payload (see `read`); a malformed payload raises
    DrrError "<where> (<name>) is malformed: <why>"."""
    try:
        return _parse(name, payload)
    except _MALFORMED as exc:
        raise DrrError(f"{where} ({name}) is malformed: {_why(exc)}") from None


_TYPED: Final = "journal_types.read"  # the key of an entry's typed payload in Entry.cache


def read(entry: Entry) -> Payload | Unknown:
    """The typed payload of a journal entry: legacy spellings read as today's type; a malformed
    payload raises DrrError naming the entry's seq, type and table; an unknown type gives Unknown.

    Typed once per entry: the payload is kept on the entry (Entry.cache), so the projections, the fold,
    the read model and describe reading the same entry share one parse and one from_json."""
    cache = entry.cache
    typed = cache.get(_TYPED)
    if typed is not None:
        return typed  # type: ignore[no-any-return]
    try:
        typed = _parse(entry.type, entry.payload)
    except _MALFORMED as exc:
        raise DrrError(
            f"journal entry {entry.seq} ({entry.type}) of table {entry.table} is malformed: {_why(exc)}"
        ) from None
    cache[_TYPED] = typed
    return typed


def typed(entry: Entry) -> Payload | Unknown | None:
    """`read`, None for a malformed payload: for a reader that passes over such an entry (the chain's
    own check, `drr audit verify`, reports it)."""
    try:
        return read(entry)
    except DrrError:
        return None


def write(
    payload: Payload,
    *,
    table: str,
    round_id: str | None = None,
    user: str | None = None,
    time: Any = None,
) -> NewEvent:
    """The NewEvent that journals `payload` (append it with Journal.append_many / append_in)."""
    if isinstance(payload, Unknown):
        raise DrrError(f"an entry of unknown type {payload.name!r} is not written by this build")
    return NewEvent(table, payload.type.value, payload.to_json(), round_id, user, time)
