"""The round state machine: pure, event-sourced, replayable (§ 617b.12(d), (e), (g); Chapter 617a).

Phases::

    NEW -> OPEN -> CLOSED -> RESULT -> [BONUS] -> SETTLED
            |        ^  |       |                     (any phase before SETTLED) -> VOID
            |        +--+-------+  no-spin / re-spin: same wagers, same draw, spin again
            +-- result before close: recorded as an irregularity, the round stays OPEN

- OPEN: wagers are placed and removed (limits of the Rules Submission enforced).
- CLOSED: "no more bets"; the Lucky/Bonus draw is part of the BetsClosed event, because
  § 617b.12(e) has the RNG run after all wagers are placed.
- RESULT: the ball's number (from the sensor, or entered by hand with a reason); a misread
  is corrected with ResultCorrected (old, new, reason) before any bonus game or settlement.
- BONUS: only when someone won on the Bonus Number with an inside wager; one BonusOutcome
  per such player (the outcome of their bonus game, see engine.bonus_game).
- SETTLED: the RoundSettled event carries the totals; replay recomputes and checks them.
  `total_paid` is what the wagers won (stakes not included, as in `drr settle`);
  `total_returned` adds the stakes of winning wagers (what goes back to the players).
- VOID: cancelled with a reason; every wager is returned.

Public API (for the table service, the journal and recall)::

    state = RoundState.initial(rules)
    state = apply(state, RoundOpened("r-1", rules.sha256))
    state = apply(state, WagerPlaced(wager))          # IllegalWager (exit 2) if over a limit
    state = apply(state, close_bets(state, rng))      # BetsClosed with the draw
    state = apply(state, ResultRecorded(17))
    state = apply(state, settle(state))               # RoundSettled (or BonusStarted first)
    replay(rules, events) == state                    # the same events, the same state
    journal_types.parse(e.type, e.to_json()) == e     # the registry reads every event's payload

Illegal transitions raise IllegalTransition (a DrrError) naming the event and the phase.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from engine.bets import Bet, Wager, bet_from_wire, check_amount, inside_bet
from engine.codec import Coder, Record, fact, maybe_whole
from engine.entry_types import EntryType
from engine.errors import IllegalTransition, IllegalWager
from engine.exact import format_odds
from engine.rng import Draw, Rng, draw_lucky_and_bonus
from engine.settlement import (
    BONUS,
    RoundSettlement,
    check_bonus_outcome,
    players_needing_bonus,
    settle_round,
)

if TYPE_CHECKING:
    from engine.rules import RulesSubmission


class Phase(enum.StrEnum):
    """A round's phase; IDLE is the table's between rounds (no round on the felt: no RoundState is)."""

    IDLE = "idle"
    NEW = "new"
    OPEN = "open"
    CLOSED = "closed"
    RESULT = "result"
    BONUS = "bonus"
    SETTLED = "settled"
    VOID = "void"


ResultSource = Literal["sensor", "manual"]
WINNING_ONLY: Final = "winning"  # RoundOpened.entry of a round played with winning wagers only


# --- events -------------------------------------------------------------------------------------
#
# Each event is also the payload of its journal entry (engine.journal_types registers them; engine.codec
# writes and reads the fields declared here, {"type": ..., **fields}). Fields after the state
# machine's own are journal facts `apply` does not use (who, which wheel game, the rotor's
# direction...): written by the table service or the pit-boss station, left out of the JSON when None,
# so a payload reads back to the same event and the event writes the same payload.


def _wager_json(w: Wager) -> dict[str, Any]:
    return {"id": w.id, "player": w.player, **w.bet.to_wire(), "amount": str(w.amount)}


def _wager(d: Mapping[str, Any]) -> Wager:
    # The bet's shape only here; the Rules Submission's switches, unit and limits are checked by
    # apply(), which knows the rules. Journal entries may carry metadata next to the wager (who
    # placed it, ...).
    # As wager_from_wire checks a wager's id, player and bet, building the one Wager (a rebuild types
    # every wager entry of years; each spot's Bet comes from bet_from_wire's cache).
    wid = str(d.get("id", "#1"))
    player = d.get("player", "")
    try:
        if not isinstance(player, str) or not player:
            raise ValueError("has no player")
        bet = bet_from_wire(d)
    except ValueError as exc:
        raise IllegalWager(f"wager {wid}: {exc}") from None
    return Wager(wid, player, bet, Decimal(str(d["amount"])))


_WAGER: Final = Coder(_wager_json, _wager)
_DRAW: Final = Coder(lambda d: d.to_record(), Draw.from_record)


@dataclass(frozen=True)
class RoundOpened(Record, tagged=True):
    """A new round opens for wagers under the Rules Submission with this sha256."""

    type: ClassVar[EntryType] = EntryType.ROUND_OPENED
    round_id: str
    rules_sha256: str
    dealer: str | None = None  # the dealer at the table (the pit boss's setting, else the croupier)
    game_number: int | None = maybe_whole()  # the wheel's game while its state was "started" as bets opened
    # "winning": a busy table's fast play (the pit boss's `entry_mode` setting): the chips stay on
    # the felt unentered during betting; after the result only those covering it are entered.
    entry: str | None = None


@dataclass(frozen=True)
class WagerPlaced(Record, tagged=True):
    """A wager put on the felt while bets are open."""

    type: ClassVar[EntryType] = EntryType.ROUND_WAGER_PLACED
    wager: Wager = field(metadata=fact(flat=True, coder=_WAGER))  # its keys in the payload itself
    # The croupier station's seat the chip was placed from (0, 1, …): its chips' colour and shape, so
    # recall draws them as the felt did. None: placed by a tool, or an older journal.
    seat: int | None = maybe_whole()


@dataclass(frozen=True)
class WagerRemoved(Record, tagged=True):
    """A wager taken back off the felt while bets are open."""

    type: ClassVar[EntryType] = EntryType.ROUND_WAGER_REMOVED
    wager_id: str


@dataclass(frozen=True)
class BetsClosed(Record, tagged=True):
    """ "No more bets": wagers are final and the RNG's Lucky/Bonus draw is made (§ 617b.12(e))."""

    type: ClassVar[EntryType] = EntryType.ROUND_BETS_CLOSED
    draw: Draw = field(metadata=fact(coder=_DRAW))
    # The order the RNG drew the Lucky Numbers in, kept for the audit trail beside the draw (the
    # journal's canonical JSON sorts the Lucky mapping by number); no payout depends on it.
    lucky_order: tuple[int, ...] | None = field(default=None, metadata=fact(key="draw.lucky_order"))


@dataclass(frozen=True)
class ResultRecorded(Record, tagged=True):
    """The ball's number, from the sensor or entered by hand (sensor fault: needs a reason)."""

    type: ClassVar[EntryType] = EntryType.ROUND_RESULT
    number: int
    source: ResultSource = "sensor"
    reason: str = ""
    game: int | None = maybe_whole()  # the wheel's game number of the spin
    direction: str | None = None  # the rotor's direction ("cw" / "ccw") as the ball fell
    wheel_seq: int | None = maybe_whole()  # the journal entry of the wheel's result confirmed
    confirmed_by: str | None = None  # who confirmed a manual result (the second entry)
    # A sensor result nobody disputed, confirmed by the table's clock this many seconds after it came
    # (engine.table.wheel_drive); None: a person confirmed it.
    auto_confirmed_after: float | None = None


@dataclass(frozen=True)
class ResultCorrected(Record, tagged=True):
    """A recorded result was wrong (misread): `old` becomes `new`, with a reason. Only before
    any bonus game or settlement."""

    type: ClassVar[EntryType] = EntryType.ROUND_RESULT_CORRECTED
    old: int
    new: int
    reason: str
    by: str | None = None  # the pit boss who corrected it
    role: str | None = None  # their role (the pit-boss station says)


@dataclass(frozen=True)
class NoSpin(Record, tagged=True):
    """The spin does not count (ball in the rotor's direction, too few revolutions, ball left the
    wheel...): same wagers, same draw, back to CLOSED awaiting a result."""

    type: ClassVar[EntryType] = EntryType.ROUND_NO_SPIN
    reason: str
    game: int | None = maybe_whole()  # the wheel game called a no-spin (its late result must not count)


@dataclass(frozen=True)
class ResultBeforeClose(Record, tagged=True):
    """A result arrived while bets were still open. It is not accepted (the draw must follow all
    wagers, § 617b.12(e)); the round stays OPEN and the ball is spun again after closing."""

    type: ClassVar[EntryType] = EntryType.ROUND_RESULT_BEFORE_CLOSE
    number: int
    reason: str = ""


@dataclass(frozen=True)
class BonusStarted(Record, tagged=True):
    """Players who won on the Bonus Number with an inside wager each play a bonus game (§ 617b.12(g))."""

    type: ClassVar[EntryType] = EntryType.ROUND_BONUS_STARTED
    players: tuple[str, ...]


@dataclass(frozen=True)
class BonusOutcome(Record, tagged=True):
    """The straight-up odds one player's bonus game produced."""

    type: ClassVar[EntryType] = EntryType.ROUND_BONUS_OUTCOME
    player: str
    odds: Fraction


@dataclass(frozen=True)
class RoundSettled(Record, tagged=True):
    """Every wager settled. The totals are journal facts; replay recomputes and compares them."""

    type: ClassVar[EntryType] = EntryType.ROUND_SETTLED
    # What the wagers won (the `drr settle` meaning): stakes not included. An early journal's
    # spellings: "wagered", "paid".
    total_wagered: Decimal = field(metadata=fact(legacy=("wagered",)))
    total_paid: Decimal = field(metadata=fact(legacy=("paid",)))
    total_returned: Decimal | None = None  # handed back: winnings + stakes of winning wagers
    payouts: tuple[PaidWager, ...] | None = None  # the winning wagers as paid (the table service says)


@dataclass(frozen=True)
class PaidWager(Record):
    """One winning wager as the settlement paid it (engine.settlement.Settlement.to_wire's form)."""

    id: str
    kind: str
    odds: str  # exact "to 1" odds as written ("199/2")
    payout: Decimal


@dataclass(frozen=True)
class RoundVoided(Record, tagged=True):
    """The round is cancelled (pit boss, with a reason): every wager is returned."""

    type: ClassVar[EntryType] = EntryType.ROUND_VOIDED
    reason: str
    by: str | None = None  # the pit boss who voided it (from the pit-boss station)
    role: str | None = None
    previous_status: str | None = None  # the round's status when the pit-boss station voided it


RoundEvent = (
    RoundOpened
    | WagerPlaced
    | WagerRemoved
    | BetsClosed
    | ResultRecorded
    | ResultCorrected
    | NoSpin
    | ResultBeforeClose
    | BonusStarted
    | BonusOutcome
    | RoundSettled
    | RoundVoided
)


# --- state --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Irregularity:
    """A no-spin, a result before close, a manual result or a void, with its reason."""

    kind: str
    reason: str
    number: int | None = None


@dataclass(frozen=True)
class RoundState:
    """Everything known about one round; build it with `RoundState.initial` and `apply`."""

    rules: RulesSubmission
    phase: Phase = Phase.NEW
    round_id: str = ""
    wagers: tuple[Wager, ...] = ()
    draw: Draw | None = None
    result: int | None = None
    result_source: ResultSource | None = None
    bonus_players: tuple[str, ...] = ()
    bonus_odds: Mapping[str, Fraction] = field(default_factory=dict)
    settlement: RoundSettlement | None = None
    irregularities: tuple[Irregularity, ...] = ()
    no_spins: int = 0
    void_reason: str = ""
    events: int = 0  # how many events were applied
    winning_only: bool = False  # wagers are entered after the result, only those covering it

    @classmethod
    def initial(cls, rules: RulesSubmission) -> RoundState:
        return cls(rules=rules)

    @property
    def returned_wagers(self) -> tuple[Wager, ...]:
        """Wagers handed back because the round was voided."""
        return self.wagers if self.phase is Phase.VOID else ()

    def wager(self, wager_id: str) -> Wager | None:
        return next((w for w in self.wagers if w.id == wager_id), None)

    def player_total(self, player: str) -> Decimal:
        return sum((w.amount for w in self.wagers if w.player == player), Decimal(0))


def _check_entry_phase(event: RoundEvent, s: RoundState) -> None:
    """Wagers go on (and off) while bets are open; with winning wagers only, once the result is in."""
    if not s.winning_only and s.phase is not Phase.OPEN:
        raise _refuse(event, s, "no more bets")
    if s.winning_only and s.phase is not Phase.RESULT:
        why = "winning wagers only: the chips covering the result are entered once it is in"
        raise _refuse(event, s, why if s.phase in (Phase.OPEN, Phase.CLOSED) else "no more bets")


def _entered_winners(event: RoundEvent, s: RoundState) -> None:
    """A winning-only round's entered chips cover its result: it is not changed under them."""
    if s.winning_only and s.wagers:
        raise _refuse(
            event, s, f"{len(s.wagers)} winning wager(s) are entered on {s.result}: take them off first"
        )


def _refuse(event: RoundEvent, state: RoundState, why: str = "") -> IllegalTransition:
    detail = f": {why}" if why else ""
    return IllegalTransition(f"{event.type} is not allowed in phase {state.phase.value.upper()}{detail}")


def _need_reason(event: RoundEvent, reason: str) -> None:
    if not reason.strip():
        raise IllegalTransition(f"{event.type} needs a reason")


def _check_number(event: RoundEvent, number: int) -> None:
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 36:
        raise IllegalTransition(f"{event.type}: {number!r} is not a number 0-36")


def check_wager(state: RoundState, wager: Wager) -> None:
    """IllegalWager (naming the wager) unless `wager` may join the round under the rules and limits."""
    wid = wager.id
    if not wid:
        raise IllegalWager("a wager needs an id")
    if state.wager(wid) is not None:
        raise IllegalWager(f"wager {wid}: the id repeats an earlier wager")
    why = wager_refusal(state, wager)
    if why is not None:
        raise IllegalWager(f"wager {wid}: {why}")


def wager_refusal(state: RoundState, wager: Wager) -> str | None:
    """Why the rules and limits refuse `wager` in the round (None: they allow it), without naming
    the wager: the table's refusals name it in words (engine.bets.Wager.words), `drr settle`'s by
    the id its caller gave it (check_wager)."""
    rules = state.rules
    if not wager.player:
        return "has no player"
    try:
        check_amount(wager.amount, rules.unit)
        if wager.bet.inside:
            rebuilt: Bet = inside_bet(
                sorted(wager.bet.numbers), trios=rules.trios, first_four=rules.first_four
            )
            if rebuilt != wager.bet:
                raise ValueError(f"{wager.bet.label} is not a legal bet")
    except ValueError as exc:
        return str(exc)
    limits = rules.limits
    amount = wager.amount
    if limits.minimum is not None and amount < limits.minimum:
        return f"{amount} is below the table minimum {limits.minimum}"
    top = limits.maximum_inside if wager.bet.inside else limits.maximum_outside
    if top is not None and amount > top:
        side = "inside" if wager.bet.inside else "outside"
        return f"{amount} is above the {side} maximum {top}"
    cap = limits.maximum_per_player
    if cap is not None and state.player_total(wager.player) + amount > cap:
        return (
            f"player {wager.player!r} would have {state.player_total(wager.player) + amount} "
            f"on this round, above the maximum per player {cap}"
        )
    if state.winning_only and state.result is not None and not wager.bet.wins(state.result):
        return (
            f"{wager.bet.label} does not cover {state.result}; with winning "
            "wagers only, enter just the chips that cover the winning number"
        )
    return None


def apply(state: RoundState, event: RoundEvent, *, settled: RoundSettlement | None = None) -> RoundState:
    """The state after `event`, or IllegalTransition/IllegalWager (the state is immutable).

    `settled`: the settlement of `state` the caller already has (engine.table.settlements works it
    out once per round state): a RoundSettled is checked against it rather than settling again."""
    s = state
    p = s.phase
    if isinstance(event, RoundOpened):
        if p is not Phase.NEW:
            raise _refuse(event, s, "the round is already open")
        if event.rules_sha256 != s.rules.sha256:
            raise IllegalTransition(
                f"{event.type}: round {event.round_id} was opened under Rules Submission "
                f"{event.rules_sha256[:12]}, not the loaded {s.rules.sha256[:12]}"
            )
        if event.entry not in (None, WINNING_ONLY):
            raise IllegalTransition(f"{event.type}: unknown entry mode {event.entry!r}")
        winning = event.entry == WINNING_ONLY
        return replace(
            s, phase=Phase.OPEN, round_id=event.round_id, events=s.events + 1, winning_only=winning
        )
    if isinstance(event, WagerPlaced):
        _check_entry_phase(event, s)
        check_wager(s, event.wager)
        return replace(s, wagers=(*s.wagers, event.wager), events=s.events + 1)
    if isinstance(event, WagerRemoved):
        _check_entry_phase(event, s)
        if s.wager(event.wager_id) is None:
            raise IllegalTransition(f"{event.type}: no wager {event.wager_id!r} in this round")
        kept = tuple(w for w in s.wagers if w.id != event.wager_id)
        return replace(s, wagers=kept, events=s.events + 1)
    if isinstance(event, ResultBeforeClose):
        if p is not Phase.OPEN:
            raise _refuse(event, s)
        _check_number(event, event.number)
        irregular = Irregularity(
            "result_before_close", event.reason or "result before no more bets", event.number
        )
        return replace(s, irregularities=(*s.irregularities, irregular), events=s.events + 1)
    if isinstance(event, BetsClosed):
        if p is not Phase.OPEN:
            raise _refuse(event, s)
        _check_draw(event, event.draw, s.rules)
        return replace(s, phase=Phase.CLOSED, draw=event.draw, events=s.events + 1)
    if isinstance(event, ResultRecorded):
        return _apply_result(s, event)
    if isinstance(event, ResultCorrected):
        if p is not Phase.RESULT:
            raise _refuse(event, s, "only a recorded result, before bonus games and settlement, is corrected")
        _entered_winners(event, s)
        _check_number(event, event.new)
        _need_reason(event, event.reason)
        if event.old != s.result:
            raise IllegalTransition(f"{event.type}: the recorded result is {s.result}, not {event.old}")
        if event.new == event.old:
            raise IllegalTransition(f"{event.type}: {event.new} is already the result")
        irregular = Irregularity("result_corrected", event.reason, event.new)
        return replace(
            s,
            result=event.new,
            result_source="manual",
            irregularities=(*s.irregularities, irregular),
            events=s.events + 1,
        )
    if isinstance(event, NoSpin):
        if p not in (Phase.CLOSED, Phase.RESULT):
            raise _refuse(event, s)
        _entered_winners(event, s)
        _need_reason(event, event.reason)
        irregular = Irregularity("no_spin", event.reason, s.result)
        return replace(
            s,
            phase=Phase.CLOSED,
            result=None,
            result_source=None,
            no_spins=s.no_spins + 1,
            irregularities=(*s.irregularities, irregular),
            events=s.events + 1,
        )
    if isinstance(event, BonusStarted):
        if p is not Phase.RESULT:
            raise _refuse(event, s)
        needed = _needing(s)
        if not needed:
            raise IllegalTransition(f"{event.type}: nobody won on the Bonus Number with an inside wager")
        if tuple(event.players) != needed:
            raise IllegalTransition(
                f"{event.type}: players {list(event.players)} but {list(needed)} need a bonus game"
            )
        return replace(s, phase=Phase.BONUS, bonus_players=needed, events=s.events + 1)
    if isinstance(event, BonusOutcome):
        if p is not Phase.BONUS:
            raise _refuse(event, s)
        if event.player not in s.bonus_players:
            raise IllegalTransition(f"{event.type}: player {event.player!r} has no bonus game in this round")
        if event.player in s.bonus_odds:
            raise IllegalTransition(f"{event.type}: player {event.player!r} already has a bonus outcome")
        check_bonus_outcome(event.player, event.odds)
        return replace(s, bonus_odds={**s.bonus_odds, event.player: event.odds}, events=s.events + 1)
    if isinstance(event, RoundSettled):
        return _apply_settled(s, event, settled)
    if isinstance(event, RoundVoided):
        if p in (Phase.NEW, Phase.SETTLED, Phase.VOID):
            raise _refuse(event, s, "only a round in play can be voided")
        _need_reason(event, event.reason)
        irregular = Irregularity("void", event.reason, s.result)
        return replace(
            s,
            phase=Phase.VOID,
            void_reason=event.reason,
            irregularities=(*s.irregularities, irregular),
            events=s.events + 1,
        )
    raise IllegalTransition(f"unknown round event {event!r}")  # pragma: no cover - the union is closed


def _check_draw(event: RoundEvent, draw: Draw, rules: RulesSubmission) -> None:
    """A draw the Rules Submission could not have produced is refused (a forged or foreign draw)."""
    if draw.rules_sha256 and draw.rules_sha256 != rules.sha256:
        raise IllegalTransition(f"{event.type}: the draw was made under a different Rules Submission")
    if len(draw.lucky) not in rules.lucky_counts:
        raise IllegalTransition(
            f"{event.type}: {len(draw.lucky)} Lucky Numbers, but the Rules Submission draws "
            f"{', '.join(map(str, rules.lucky_counts))}"
        )
    for number, odds in draw.lucky.items():
        if odds not in rules.lucky_odds:
            raise IllegalTransition(
                f"{event.type}: Lucky Number {number} at {format_odds(odds)} to 1 "
                "is not a payout of the Rules Submission"
            )


def _needing(s: RoundState) -> tuple[str, ...]:
    assert s.draw is not None and s.result is not None
    return players_needing_bonus(s.wagers, s.result, s.draw)


def _apply_result(s: RoundState, event: ResultRecorded) -> RoundState:
    _check_number(event, event.number)
    if event.source not in ("sensor", "manual"):
        raise IllegalTransition(f"{event.type}: source must be 'sensor' or 'manual', not {event.source!r}")
    if event.source == "manual":
        _need_reason(event, event.reason)
    if s.phase is Phase.OPEN:
        raise _refuse(event, s, "bets are still open (record it as a result before close)")
    if s.phase is Phase.RESULT:
        raise _refuse(event, s, "a result is already recorded (a wrong one is corrected with a reason)")
    if s.phase is not Phase.CLOSED:
        raise _refuse(event, s)
    irregularities = s.irregularities
    if event.source == "manual":
        irregularities = (*irregularities, Irregularity("manual_result", event.reason, event.number))
    return replace(
        s,
        phase=Phase.RESULT,
        result=event.number,
        result_source=event.source,
        irregularities=irregularities,
        events=s.events + 1,
    )


def _apply_settled(s: RoundState, event: RoundSettled, given: RoundSettlement | None) -> RoundState:
    if s.phase is Phase.RESULT:
        if _needing(s):
            raise _refuse(event, s, "players won on the Bonus Number: the bonus games come first")
    elif s.phase is Phase.BONUS:
        missing = [p for p in s.bonus_players if p not in s.bonus_odds]
        if missing:
            raise _refuse(event, s, f"bonus games not finished for {', '.join(missing)}")
    else:
        raise _refuse(event, s)
    settled = _settlement(s, given)
    returned_ok = event.total_returned is None or event.total_returned == settled.total_returned
    if (settled.total_wagered, settled.total_paid) != (
        event.total_wagered,
        event.total_paid,
    ) or not returned_ok:
        raise IllegalTransition(
            f"{event.type}: totals {event.total_wagered}/{event.total_paid} differ from the settlement "
            f"{settled.total_wagered}/{settled.total_paid}"
        )
    return replace(s, phase=Phase.SETTLED, settlement=settled, events=s.events + 1)


def replay(rules: RulesSubmission, events: Iterable[RoundEvent]) -> RoundState:
    """Fold `events` from the initial state: the same events always give the same state."""
    state = RoundState.initial(rules)
    for event in events:
        state = apply(state, event)
    return state


# --- helpers that make the next event (the caller applies and journals it) ----------------------


def close_bets(state: RoundState, rng: Rng) -> BetsClosed:
    """The BetsClosed event with a fresh Lucky/Bonus draw (only when bets are open)."""
    if state.phase is not Phase.OPEN:
        raise IllegalTransition(f"cannot close bets in phase {state.phase.value.upper()}")
    return BetsClosed(draw_lucky_and_bonus(state.rules, rng))


def bonus_needed(state: RoundState) -> tuple[str, ...]:
    """Players who must play a bonus game, once a result is in (() otherwise)."""
    if state.phase is not Phase.RESULT:
        return state.bonus_players if state.phase is Phase.BONUS else ()
    return _needing(state)


def settle(state: RoundState, settled: RoundSettlement | None = None) -> RoundSettled:
    """The RoundSettled event for a round whose result (and bonus outcomes) are in; `settled`: its
    settlement when the caller already has it (see `apply`)."""
    if state.phase not in (Phase.RESULT, Phase.BONUS) or state.draw is None or state.result is None:
        raise IllegalTransition(f"cannot settle in phase {state.phase.value.upper()}")
    done = _settlement(state, settled)
    return RoundSettled(done.total_wagered, done.total_paid, done.total_returned)


def _settlement(s: RoundState, given: RoundSettlement | None) -> RoundSettlement:
    """`given` when it is this round's (its result and wagers, every bonus outcome in), else worked
    out here."""
    assert s.draw is not None and s.result is not None
    if given is not None and given.result == s.result and given.wagers == s.wagers:
        if s.result != s.draw.bonus_number:
            return given
        # On the Bonus Number: only a settlement at this round's bonus outcomes (no stand-in) is its own.
        bonus = zip(given.wagers, given.outcomes, strict=True)
        if all(o.odds * w.bet.size == s.bonus_odds.get(w.player) for w, o in bonus if o.kind == BONUS):
            return given
    return settle_round(s.wagers, s.result, s.draw, s.bonus_odds, s.rules)
