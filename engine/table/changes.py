"""What a batch of journal entries changed, as a typed notice (like Anki's OpChanges); pure, no Qt.

Every service command returns the entries it journaled, and its subscribers get each durable
batch: `changes_of(entries)` names the parts of the table those entries touched, so a screen
redraws only what a notice names instead of diffing whole views. A notice may name more than
really moved (a pit boss's fact about an earlier round names the phase of the round on the
felt, which the fold then leaves alone); it never names less. The values themselves are read
from the table's state (or the screens' view of it), never from the notice.

    changes = changes_of(await service.confirm_result(croupier))
    changes.phase and changes.pay_lines       # True: the round is in RESULT, its winners are known
    changes.result                            # ResultNotice(17, confirmed=True, source="sensor")

Payloads are read through the registry (`engine.journal_types.parse`: typed, legacy spellings mapped).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engine import round as _round
from engine.journal_types import Unknown, parse, read
from engine.round import ResultSource
from engine.store.records import Entry
from engine.table_events import (
    AutoConfirmDue,
    BettingTime,
    DealerChanged,
    Irregularity,
    IrregularityResolved,
    ManualEntry,
    ManualEntryRejected,
    NextRound,
    PayoutApproved,
    PlayerBonusEvent,
    PresetSet,
    RngFault,
    RulesLoaded,
    SettingsChanged,
    TiltCleared,
    Tilted,
    TimerRestarted,
    WheelStartOrdered,
)
from engine.wheel_events import WheelEvent, WheelLaunched, WheelNoMoreBets, WheelResult

if TYPE_CHECKING:
    from engine.table.state import TableState


class EntryLike(Protocol):
    """What a notice reads of a journal entry (engine.store.journal.Entry has it)."""

    @property
    def type(self) -> str: ...

    @property
    def payload(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class ResultNotice:
    """A winning number arrived: from the wheel waiting for confirmation, or recorded in the round."""

    number: int
    confirmed: bool  # False: the wheel's result, waiting for the croupier's confirmation
    source: ResultSource  # "sensor" or "manual", as the journal says it (round.result_recorded)
    corrected: bool = False  # a pit boss corrected the recorded result


@dataclass(frozen=True)
class IrregularityNotice:
    """Something that stopped or cancelled the normal course of the round, with its reason."""

    kind: str  # the entry's fact: "irregularity", "result_before_close", "no_spin", "voided", "rng_fault"
    reason: str
    what: str = ""  # an irregularity's kind (miss_spin, gap, unexpected_game, ...); an RNG fault's test

    @property
    def text(self) -> str:
        """The one line a screen shows, e.g. "no spin: ball left the wheel"."""
        label = _LABELS.get(self.kind, self.kind.replace("_", " "))
        return f"{label}: {self.reason}".strip()


_LABELS = {"rng_fault": "RNG fault", "tilted": "table tilted"}


def rng_fault_text(fault: RngFault) -> str:
    """The one line every screen shows for an RNG fault (the notice's and the table view's)."""
    return IrregularityNotice("rng_fault", _rng_fault_reason(fault), fault.test).text


def _rng_fault_reason(fault: RngFault) -> str:
    return f"{fault.test} failed — play stopped, call the pit boss / technician"


@dataclass(frozen=True)
class Changes:
    """The parts of the table a batch of entries changed (see the module docstring)."""

    phase: bool = False  # the round's phase (opened, closed, result, bonus, settled, void, cleared)
    round_opened: bool = False  # a new round: everything of the last one is gone
    wagers: bool = False
    draw: bool = False  # the Lucky Numbers and the Bonus Number (made or cleared)
    result: ResultNotice | None = None  # the newest result of the batch
    result_cleared: bool = False  # a no-spin, a void or a new round took the result away
    pay_lines: bool = False  # the paying list (result, correction, bonus outcome, no-spin, void)
    approvals: bool = False  # which payouts wait for a pit boss's approval
    bonus: frozenset[str] = frozenset()  # players whose bonus game (or preset, or timer) changed
    hold: bool = False  # an irregularity (or an RNG fault) put the round on hold, or the hold was lifted
    irregularities: tuple[IrregularityNotice, ...] = ()
    manual_entry: bool = False  # step one of a manual result (entered, or rejected)
    history: bool = False  # a round was settled: the history of results grew
    rules: bool = False  # a Rules Submission was loaded (the next round opens under it)
    settings: bool = False  # the pit boss changed the table's settings (limits, dealer, ...)
    dealer: bool = False  # a croupier signed in or out: who deals (engine.table.dealer)
    wheel: bool = False  # the wheel said something (rotor, state, link)
    spin: bool = False  # the spin's step or countdown moved (engine.table.wheel_drive.wheel_phase)
    other: bool = False  # entries no screen of the round shows (logins, alerts, table.started)
    everything: bool = False  # a screen attached (or reconnected): redraw it all, every bonus game too

    def __or__(self, other: Changes) -> Changes:
        """Both notices in one (the later result wins)."""
        if other == _NOTHING:
            return self
        if self == _NOTHING:
            return other
        merged: dict[str, Any] = {}
        for name in _FIELDS:
            a, b = getattr(self, name), getattr(other, name)
            if name == "result":
                merged[name] = b if b is not None else a
            elif name == "irregularities":
                merged[name] = a + b
            else:
                merged[name] = a | b
        return Changes(**merged)

    @property
    def shown(self) -> bool:
        """True when the batch changed anything a round's screen shows (anything but `other`/`wheel`)."""
        return any(
            bool(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name not in ("other", "wheel")
        )

    def __bool__(self) -> bool:
        return any(bool(getattr(self, f.name)) for f in dataclasses.fields(self))


_NOTHING = Changes()  # (the empty notice: a batch of one entry needs no merging)
_FIELDS = tuple(f.name for f in dataclasses.fields(Changes))


# What a new round (or a cleared one) changes: everything of the last round is gone.
_ROUND_RESET = Changes(
    phase=True,
    round_opened=True,
    wagers=True,
    draw=True,
    result_cleared=True,
    pay_lines=True,
    approvals=True,
    hold=True,
    manual_entry=True,
)
# Everything: a screen that attaches (start, reconnect, restart) draws the whole table once.
EVERYTHING: Changes = _ROUND_RESET | Changes(
    everything=True, history=True, rules=True, settings=True, dealer=True, wheel=True, spin=True
)


def _reason(kind: str, reason: str, what: str = "") -> Changes:
    return Changes(hold=True, irregularities=(IrregularityNotice(kind, reason, what),))


def _wheel(p: WheelEvent) -> Changes:
    """A wheel message (engine.wheel_events); an accepted result waits for the croupier's confirmation."""
    if isinstance(p, WheelResult) and p.accepted:
        return Changes(wheel=True, spin=True, result=ResultNotice(p.number, False, "sensor"))
    if isinstance(p, WheelLaunched | WheelNoMoreBets):
        return Changes(wheel=True, spin=True)  # the ball is spinning
    return Changes(wheel=True)


def _one(p: Any) -> Changes:
    """The notice of one entry's typed payload (engine.journal_types)."""
    if isinstance(p, Unknown):
        return Changes(other=True)  # a type this build does not know: kept in the journal, shown nowhere
    if isinstance(p, _round.RoundOpened | NextRound):
        return _ROUND_RESET
    if isinstance(p, _round.WagerPlaced | _round.WagerRemoved):
        return Changes(wagers=True)
    if isinstance(p, _round.BetsClosed):
        return Changes(phase=True, draw=True)
    if isinstance(p, _round.ResultRecorded):
        return Changes(
            phase=True,
            result=ResultNotice(p.number, True, p.source),
            pay_lines=True,
            approvals=True,
            hold=True,  # a manual result entered by the pit boss lifts a hold
            manual_entry=True,
        )
    if isinstance(p, _round.ResultCorrected):
        return Changes(
            result=ResultNotice(p.new, True, "manual", corrected=True), pay_lines=True, approvals=True
        )
    if isinstance(p, _round.NoSpin):
        return _reason("no_spin", p.reason) | Changes(
            phase=True, result_cleared=True, pay_lines=True, approvals=True, manual_entry=True
        )
    if isinstance(p, _round.RoundVoided):
        return _reason("voided", p.reason) | Changes(
            phase=True, result_cleared=True, pay_lines=True, approvals=True
        )
    if isinstance(p, _round.ResultBeforeClose):
        return _reason("result_before_close", p.reason)
    if isinstance(p, Irregularity):
        return _reason("irregularity", p.reason, p.kind)
    if isinstance(p, IrregularityResolved):
        return Changes(hold=True)
    if isinstance(p, RngFault):  # the table is tilted (engine.table.gate) until a pit boss clears it
        return _reason("rng_fault", _rng_fault_reason(p), p.test)
    if isinstance(p, Tilted):
        return _reason("tilted", p.reason, p.cause)
    if isinstance(p, TiltCleared):  # play may go on: the screens redraw their step and reason line
        return Changes(hold=True)
    if isinstance(p, _round.BonusStarted):
        return Changes(phase=True, bonus=frozenset(p.players), pay_lines=True)
    if isinstance(p, _round.BonusOutcome):
        return Changes(bonus=frozenset({p.player}), pay_lines=True, approvals=True)
    if isinstance(p, _round.RoundSettled):
        return Changes(phase=True, history=True, approvals=True)
    if isinstance(p, PayoutApproved):
        return Changes(approvals=True)
    if isinstance(p, PlayerBonusEvent | PresetSet | TimerRestarted):
        return Changes(bonus=frozenset({p.player}))
    if isinstance(p, RulesLoaded):
        return Changes(rules=True)
    if isinstance(p, SettingsChanged):
        return Changes(settings=True, dealer="dealer" in p.changes)
    if isinstance(p, DealerChanged):
        return Changes(dealer=True)
    if isinstance(p, ManualEntry | ManualEntryRejected):
        return Changes(manual_entry=True)
    if isinstance(p, WheelEvent):
        return _wheel(p)
    if isinstance(p, BettingTime | WheelStartOrdered | AutoConfirmDue):
        return Changes(spin=True)  # a countdown started or ended (the phase strip)
    return Changes(other=True)


def changes_of(entries: Iterable[EntryLike], state: TableState | None = None) -> Changes:
    """The notice of a batch of entries (a command's return value, or what a subscriber was handed).

    `state`, the table's state with the batch folded in, for what an entry changes only in some
    rounds: with winning wagers only, a wager is entered after the result, so it changes what the
    round pays (its pay lines and approvals), not only the felt."""
    out = _NOTHING
    for entry in entries:
        # an Entry's typed payload is the one the fold already read (journal_types.read caches it)
        typed = read(entry) if isinstance(entry, Entry) else parse(entry.type, entry.payload)
        out = out | _one(typed)
    r = state.round if state is not None else None
    if out.wagers and r is not None and r.winning_only and r.phase is _round.Phase.RESULT:
        out = out | Changes(pay_lines=True, approvals=True)
    return out
