"""Round recall: everything about one round rebuilt from its journal entries (never from memory).

`recall_round` gives the wagers (by player), the Lucky/Bonus draw, the result (and any correction,
both values), the wheel messages, each player's bonus game step by step, the per-wager payouts (the
round replayed through `engine.round` when the Rules Submission it was opened under is at hand) and
the whole audit trail of the round in chain order.

The rules of the replay are those the round was opened under, found by its `rules_sha256` in the
store (engine.store.rules_store.rules_for), never the rules the program or the table has loaded now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from engine.bets import Wager
from engine.bonus_game import BoxesPlaced, BoxesRevealed
from engine.errors import DrrError
from engine.floor.describe import box_text, describe, describe_payload
from engine.floor_events import HistoryImported
from engine.journal_types import ROUND_EVENTS, typed
from engine.round import (
    BetsClosed,
    BonusOutcome,
    ResultCorrected,
    ResultRecorded,
    RoundEvent,
    RoundSettled,
    RoundVoided,
    WagerPlaced,
    WagerRemoved,
)
from engine.store.history import RoundRecord, find_round
from engine.store.records import Entry
from engine.table_events import PlayerBonusEvent, PresetSet, TimerRestarted
from engine.wheel_events import WheelEvent

if TYPE_CHECKING:
    from engine.rules import RulesSubmission
    from engine.settlement import RoundSettlement, Settlement
    from engine.store.db import Store


@dataclass(frozen=True)
class BonusStep:
    player: str
    time: str
    kind: str
    text: str


@dataclass
class Recall:
    record: RoundRecord  # the round's `rounds` row
    entries: list[Entry]  # the round's journal entries in chain order (each payload typed once)
    wagers: list[Wager] = field(default_factory=list)
    seats: dict[str, int] = field(default_factory=dict)  # player -> the croupier station's seat (journaled)
    lucky: dict[int, Fraction] = field(default_factory=dict)
    bonus_number: int | None = None
    result: int | None = None
    original_result: int | None = None  # the first result when it was corrected later
    corrections: list[ResultCorrected] = field(default_factory=list)
    wheel: list[Entry] = field(default_factory=list)
    bonus_steps: list[BonusStep] = field(default_factory=list)
    bonus_outcomes: dict[str, Fraction] = field(default_factory=dict)
    settlement: RoundSettlement | None = None  # the settlements with their totals (None: unknown)
    rules_sha256: str | None = None  # the Rules Submission the round was opened under
    rules: RulesSubmission | None = None  # ... when the store holds it
    total_wagered: Decimal | None = None
    total_paid: Decimal | None = None
    replay_note: str = ""
    confirmation: str = ""  # how the result was confirmed: by whom, or automatically after N s

    def text(self, entry: Entry) -> str:
        """One of the round's entries (of `entries`) in plain words (a picked box without what it held),
        from its payload typed once; a malformed one told plainly."""
        payload = typed(entry)
        return describe(entry.type, entry.payload) if payload is None else describe_payload(payload)

    @property
    def settlements(self) -> list[Settlement]:
        """Each wager's settlement under the round's own rules (none when they are not known)."""
        return [] if self.settlement is None else list(self.settlement.settlements)

    @property
    def stakes_by_player(self) -> dict[str, Decimal]:
        """Each player's standing stakes: what the round holds of theirs, and what a void hands back."""
        out: dict[str, Decimal] = {}
        for w in self.wagers:
            out[w.player] = out.get(w.player, Decimal(0)) + w.amount
        return out

    def stakes_text(self) -> str:
        """ "Seat 2 10.00, Seat 3 5.00" (players in the order they first bet), "no wagers" when none."""
        money = self.stakes_by_player
        return ", ".join(f"{p} {money[p]:,.2f}" for p in self.players) or "no wagers"

    @property
    def players(self) -> list[str]:
        seen: list[str] = []
        for w in self.wagers:
            if w.player not in seen:
                seen.append(w.player)
        return seen


def _confirmation(result: ResultRecorded, user: str | None) -> str:
    if result.auto_confirmed_after is not None:
        return f"confirmed automatically after {result.auto_confirmed_after:g} s (not disputed)"
    if result.source == "manual":
        return f"entered by hand, confirmed by {result.confirmed_by or user or '?'}"
    return f"confirmed by {user or '?'}"


def _revealed_boxes(entries: list[Entry]) -> dict[tuple[str, int], tuple[list[str], bool]]:
    """Each (player, bonus round) whose committed boxes were revealed: the contents shown, and
    whether they are the ones committed at placement (engine.bonus_game.box_commitment)."""
    from engine.bonus_game import box_commitment

    committed: dict[tuple[str, int], str] = {}
    out: dict[tuple[str, int], tuple[list[str], bool]] = {}
    for e in entries:
        payload = typed(e)  # (a malformed one: None, kept in the audit trail, not replayed)
        if not isinstance(payload, PlayerBonusEvent):
            continue
        ev, key = payload.event, (payload.player, getattr(payload.event, "round", 0))
        if isinstance(ev, BoxesPlaced) and ev.commitment:
            committed[key] = ev.commitment
        elif isinstance(ev, BoxesRevealed):
            try:
                ok = (
                    key in committed
                    and box_commitment(ev.round, ev.boxes, bytes.fromhex(ev.nonce)) == committed[key]
                )
            except ValueError:
                ok = False
            out[key] = ([box_text(b) for b in ev.boxes], ok)
    return out


def recall_round(store: Store, round_id: str, table: str | None = None) -> Recall:
    from engine.round import RoundOpened, replay
    from engine.store.rules_store import rules_for

    record = find_round(store, round_id, table)
    rec = Recall(record, list(store.journal.round_entries(round_id, record.table)))
    round_events: list[RoundEvent] = []
    wagers: dict[str, Wager] = {}
    bonus_player = "?"
    boxes: dict[str, list[str]] = {}
    settled_seen = False
    voided_late: RoundVoided | None = None
    revealed = _revealed_boxes(rec.entries)
    for e in rec.entries:
        kind, payload = e.type, typed(e)
        if isinstance(payload, WagerPlaced):
            wagers[payload.wager.id] = payload.wager
            if payload.seat is not None:
                rec.seats.setdefault(payload.wager.player, payload.seat)
        elif isinstance(payload, WagerRemoved):
            wagers.pop(payload.wager_id, None)
        elif isinstance(payload, BetsClosed):
            draw = payload.draw
            rec.lucky = {n: draw.lucky[n] for n in draw.lucky_order}
            rec.bonus_number = draw.bonus_number
        elif isinstance(payload, ResultRecorded):
            rec.result = payload.number
            rec.confirmation = _confirmation(payload, e.user)
        elif isinstance(payload, ResultCorrected):
            rec.corrections.append(payload)
            if rec.original_result is None:
                rec.original_result = payload.old
            rec.result = payload.new
        elif isinstance(payload, HistoryImported):
            rec.result = payload.number
        elif isinstance(payload, WheelEvent):
            rec.wheel.append(e)
        elif isinstance(payload, BonusOutcome):
            rec.bonus_outcomes[payload.player] = payload.odds
            rec.bonus_steps.append(BonusStep(payload.player, e.time, kind, describe_payload(payload)))
        elif isinstance(payload, PlayerBonusEvent | PresetSet | TimerRestarted):
            bonus_player = payload.player
            if isinstance(payload, PlayerBonusEvent) and isinstance(payload.event, BoxesPlaced):
                placed = payload.event
                # committed boxes (issue 24): what they held is named from their reveal after the pick
                shown_boxes = (
                    revealed.get((bonus_player, placed.round), ([], True))[0] if placed.commitment else None
                )
                boxes[bonus_player] = (
                    shown_boxes if shown_boxes is not None else [box_text(b) for b in placed.boxes]
                )
            text = describe_payload(payload, boxes=boxes.get(bonus_player, []))
            reveal = payload.event if isinstance(payload, PlayerBonusEvent) else None
            if (
                isinstance(reveal, BoxesRevealed)
                and not revealed.get((bonus_player, reveal.round), ([], False))[1]
            ):
                text += " — NOT the contents committed at placement"
            rec.bonus_steps.append(BonusStep(bonus_player, e.time, kind, text))
        elif isinstance(payload, RoundSettled):
            rec.total_wagered, rec.total_paid = payload.total_wagered, payload.total_paid
        if isinstance(payload, RoundVoided) and settled_seen:
            # A floor void after settlement is not a step of the round's own play (the engine refuses
            # it there): replay the play as it was and say what the void did.
            voided_late = payload
            continue
        if isinstance(payload, RoundSettled):
            settled_seen = True
        if isinstance(payload, ROUND_EVENTS) and not isinstance(payload, ResultCorrected):
            round_events.append(payload)
    rec.wagers = list(wagers.values())
    opened = next((ev for ev in round_events if isinstance(ev, RoundOpened)), None)
    rec.rules_sha256 = None if opened is None else opened.rules_sha256
    try:
        if rec.rules_sha256 is None:
            raise DrrError("the round names no Rules Submission")
        rules = rec.rules = rules_for(store, rec.rules_sha256)
        state = replay(rules, round_events)
    except DrrError as exc:
        rec.replay_note = f"per-wager payouts not recomputed: {exc.message}"
    else:
        if state.settlement is not None and rec.original_result is None:
            rec.settlement = state.settlement
        elif rec.original_result is not None:
            rec.replay_note = (
                "the result was corrected: the payouts shown by the table were for the first result"
            )
            if state.settlement is not None:
                rec.settlement = state.settlement
        elif state.result is not None and state.draw is not None and state.phase.value != "void":
            # Not settled yet (a payout waiting for approval, a bonus game under way): what it will pay.
            from engine.settlement import settle_round

            try:
                pending = settle_round(state.wagers, state.result, state.draw, state.bonus_odds, rules)
            except DrrError as exc:
                rec.replay_note = f"payouts not known yet: {exc.message}"
            else:
                rec.settlement = pending
                rec.replay_note = "not settled yet: the payouts shown are what the round will pay"
    if voided_late is not None:
        by = voided_late.by or "?"
        rec.replay_note = f"voided by {by} after settlement: the payouts below were made before the void"
    return rec


SETTLEMENT_KEYS = ("id", "kind", "odds", "payout")


def settlement_records(rec: Recall) -> list[dict[str, str]]:
    """`drr history show --json`'s "settlements": each wager of a settled round as `drr settle` writes
    it ({"id", "kind", "odds", "payout"}: kind lucky/bonus/base/lose, exact odds "199/2", money to
    the rules' places), recomputed under the round's own Rules Submission. A round that paid nothing
    (not settled, void, imported) has none. DrrError when they cannot be recomputed or do not add up
    to what the table paid: the journal and the rules would not agree."""
    if rec.record.status != "settled" or rec.record.source != "table":
        return []
    round_id = rec.record.round_id
    if rec.settlement is None:
        raise DrrError(f"round {round_id}: {rec.replay_note or 'per-wager payouts not recomputed'}")
    wire = rec.settlement.to_wire()
    if Decimal(wire["total_paid"]) != rec.record.paid:
        raise DrrError(
            f"round {round_id}: the payouts recomputed under Rules Submission {rec.rules_sha256} come "
            f"to {wire['total_paid']}, the table paid {rec.record.paid}"
        )
    return [{k: str(w[k]) for k in SETTLEMENT_KEYS} for w in wire["wagers"]]
