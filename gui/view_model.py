"""What the screens show, as plain immutable values (no Qt): the table adapter builds these
from the table service's events and every widget renders only from them.

Keeping the view model free of Qt lets the adapter be tested headless and keeps the screens
from ever holding game state of their own (the table service is the one source of truth).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from engine.bets import Wager
from engine.exact import money
from engine.table.limits import LimitsInForce
from engine.table.spin import IDLE_SPIN, WheelPhase

if TYPE_CHECKING:  # the table's modules load once a table is attached, not before the first frame
    from engine.table.holds import HoldRemedies


class Phase(enum.StrEnum):
    """Phases of a round as the croupier sees them (architecture.md, "Data flow of one round")."""

    IDLE = "idle"  # between rounds: the next action is "open bets"
    OPEN = "open"
    CLOSED = "closed"
    RESULT = "result"
    BONUS = "bonus"
    SETTLED = "settled"
    VOID = "void"


class WinKind(enum.StrEnum):
    LUCKY = "lucky"
    BONUS = "bonus"
    BASE = "base"
    LOSE = "lose"


@dataclass(frozen=True, slots=True)
class Draw:
    """The RNG draw made at "no more bets": Lucky Numbers with straight-up odds, the Bonus Number."""

    lucky: Mapping[int, Fraction]
    bonus_number: int


@dataclass(frozen=True, slots=True)
class PayLine:
    """One settled wager: how it won (or lost), at what odds, and what it wins (stake returned on top)."""

    wager: Wager
    kind: WinKind
    odds: Fraction
    payout: Decimal
    pending: bool = False  # a Bonus win whose bonus game has not finished yet

    @property
    def wins(self) -> bool:
        return self.kind is not WinKind.LOSE


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    number: int
    lucky: bool = False
    bonus: bool = False
    manual: bool = False


@dataclass(frozen=True, slots=True)
class SensorHealth:
    connected: bool
    source: str = ""
    last_message_age_s: float | None = None
    warnings: tuple[str, ...] = ()


class BoxState(enum.StrEnum):
    HIDDEN = "hidden"
    MULTIPLIER = "multiplier"
    X = "x"


@dataclass(frozen=True, slots=True)
class BoxView:
    state: BoxState = BoxState.HIDDEN
    value: Fraction | None = None  # the multiplier when state is MULTIPLIER
    picked: bool = False


class BonusStatus(enum.StrEnum):
    SETUP = "setup"  # before round 1: the player may still set the timeout preset
    PLAYING = "playing"
    LOST = "lost"  # an X: paid the round-1 multiplier
    CASHED_OUT = "cashed_out"
    COMPLETED = "completed"  # survived round 6


class TimeoutPreset(enum.StrEnum):
    CASH_OUT = "cash_out"
    RANDOM = "random"


@dataclass(frozen=True, slots=True)
class BonusView:
    """One player's bonus game as the journal says it stands."""

    player: str
    status: BonusStatus
    round: int  # 1..6; the round being played (or the last one played when finished)
    boxes: tuple[BoxView, ...]  # the five boxes of the current round (revealed once it is played)
    picks: tuple[Fraction, ...]  # multipliers picked so far, round by round
    previous: tuple[BoxView, ...] = ()  # the round just played, every box revealed
    preset: TimeoutPreset = TimeoutPreset.CASH_OUT
    seconds_left: float | None = None  # when the view was made; a countdown shows deadline − clock
    deadline: float | None = None  # on the table service's clock: the choice is due then (its timer)
    timer_seconds: int = 20
    cash_out_from_round: int = 3
    final_odds: Fraction | None = None
    payout: Decimal | None = None
    paid_on: str = ""  # the wager(s) the payout is for, e.g. "5.00 on six line 25-30 at 39 to 6"

    @property
    def total(self) -> Fraction:
        return sum(self.picks, Fraction(0))

    @property
    def guarantee(self) -> Fraction | None:
        """What an X pays: the round-1 multiplier (§ 617b.12(k))."""
        return self.picks[0] if self.picks else None

    @property
    def finished(self) -> bool:
        return self.status in (BonusStatus.LOST, BonusStatus.CASHED_OUT, BonusStatus.COMPLETED)

    @property
    def may_cash_out(self) -> bool:
        return self.status is BonusStatus.PLAYING and self.round >= self.cash_out_from_round


@dataclass(frozen=True, slots=True)
class TableView:
    """A snapshot of the table: enough to redraw every screen from scratch (restart, reconnect)."""

    table_id: str
    round_no: int
    phase: Phase
    wagers: tuple[Wager, ...] = ()
    draw: Draw | None = None
    result: int | None = None
    pay_lines: tuple[PayLine, ...] = ()
    history: tuple[HistoryEntry, ...] = ()
    bonus_games: tuple[BonusView, ...] = ()
    players: tuple[str, ...] = ()
    approvals_needed: tuple[str, ...] = field(default=())  # wager ids awaiting pit-boss approval
    hold: str | None = None  # an unresolved irregularity: nothing is confirmed or settled meanwhile
    stopped: bool = False  # the hold is an RNG fault: no draw until the table service restarts
    spin: WheelPhase = IDLE_SPIN  # the spin's step and countdown (the phase strip)
    limits: LimitsInForce = field(default_factory=LimitsInForce)  # in force (engine.table.limits)
    dealer: str | None = None  # who deals the next round opened (table.dealer_changed)
    # Winning wagers only (the table's entry_mode): chips are entered after the result, only those
    # covering it; `bonus_due` once some of them won on the Bonus Number and the games wait to start.
    winning_only: bool = False
    bonus_due: bool = False
    remedies: HoldRemedies | None = None  # the hold in words, and what ends it (engine.table.holds)
    void_reason: str = ""  # why a void round was voided


# --- the next step: what the table waits for, and who does what --------------------------------

# Winning wagers only (the table's entry_mode): what the croupier is told to do.
WINNING_ONLY_OPEN = "Winning wagers only: leave the chips unentered; enter the winning ones after the result"
WINNING_ONLY_ENTER = "Winning wagers only: enter every chip that covers the result, then settle (Space)"

# The croupier station's side actions (NextStep.actions keys).
MANUAL, NO_SPIN_ACTION, VOID, APPROVE, PIT_BOSS = "manual", "no_spin", "void", "approve", "pit_boss"


@dataclass(frozen=True, slots=True)
class NextStep:
    """The croupier station's one next action and the words under it, from one TableView."""

    label: str  # the big button
    enabled: bool
    why: str  # what the table is doing or waiting for (the button's tooltip)
    todo: str  # what to do next, and who
    actions: Mapping[str, str]  # side action -> "" when open, else why it is greyed

    @property
    def line(self) -> str:
        """The line under the big button."""
        return f"{self.why}. {self.todo}" if self.why and self.todo else self.why or self.todo


def next_step(view: TableView) -> NextStep:
    """The one place that says, for every phase and hold, why the table waits and what to do."""
    from engine.table.holds import NO_SPIN

    ph = view.phase
    actions = _side_actions(view)
    if view.stopped:  # an RNG fault: nothing this station does helps until a restart
        why = view.hold or "RNG fault"
        return NextStep("Play stopped", False, why, "Restart the table service once it is checked", actions)
    if view.hold and ph is Phase.IDLE:
        return NextStep("Starting…", False, view.hold, "Wait a moment", actions)
    rem = view.remedies
    if rem is not None and ph in (Phase.OPEN, Phase.CLOSED, Phase.RESULT, Phase.BONUS):
        what = f"On hold: {rem.what}"
        if ph is Phase.CLOSED and rem.allows(NO_SPIN):
            return NextStep("No-spin…", True, what, rem.todo, actions)
        return NextStep("Pit boss sign-off…", True, what, rem.todo, actions)
    if ph is Phase.IDLE:
        return NextStep("Open bets", True, "", "Open bets when the players are ready (Space)", actions)
    if ph is Phase.OPEN and view.winning_only:
        return NextStep("No more bets", True, "Bets are open", WINNING_ONLY_OPEN, actions)
    if ph is Phase.OPEN:
        return NextStep(
            "No more bets", True, "Bets are open", "Place the players' chips; Space closes betting", actions
        )
    if ph is Phase.CLOSED:
        if view.result is None:
            return NextStep(
                "Waiting for the ball…",
                False,
                "No more bets: the wheel has not reported a result yet",
                "If the sensor gives none, enter the ball's number by hand (Manual result, M)",
                actions,
            )
        return NextStep(
            f"Confirm {view.result}",
            True,
            f"The wheel reports {view.result}",
            "Check the ball is in that pocket and confirm (Space), or call a no-spin",
            actions,
        )
    if ph in (Phase.RESULT, Phase.BONUS):
        if any(ln.pending for ln in view.pay_lines):
            n = sum(1 for g in view.bonus_games if not g.finished)
            return NextStep(
                "Bonus game running…",
                False,
                f"{n or 'A'} bonus game{'s' if n > 1 else ''} running on the bonus screen",
                "Settle once every bonus game has finished",
                actions,
            )
        if view.bonus_due:  # winning wagers only: the entered Bonus Number winners play now
            return NextStep(
                "Start bonus games",
                True,
                f"Result {view.result}: the Bonus Number",
                "Once every winning chip is entered, start the bonus games (Space)",
                actions,
            )
        if view.approvals_needed:
            ids = set(view.approvals_needed)
            total = sum((ln.payout for ln in view.pay_lines if ln.wager.id in ids), Decimal(0))
            return NextStep(
                "Pit-boss approval…",
                True,
                f"Payouts of {money(total)} on {len(ids)} wager{'s' if len(ids) > 1 else ''} need a "
                "pit boss's approval",
                "A pit boss signs them off here with name and PIN (Space), then settle",
                actions,
            )
        if view.winning_only and ph is Phase.RESULT:
            return NextStep("Settle", True, f"Result {view.result}", WINNING_ONLY_ENTER, actions)
        return NextStep(
            "Settle", True, f"Result {view.result}", "Settle (Space), then pay the list below", actions
        )
    if ph is Phase.VOID:
        why = f"Round voided: {view.void_reason}" if view.void_reason else "Round voided"
        return NextStep(
            "Next round", True, why, "Return every wager to its player, then Next round (Space)", actions
        )
    return NextStep("Next round", True, "Round settled", "Clear the felt, then Next round (Space)", actions)


def _side_actions(view: TableView) -> dict[str, str]:
    """Why each side action is greyed ("" when it is open)."""
    from engine.table.holds import NO_SPIN

    ph, rem = view.phase, view.remedies
    in_play = ph in (Phase.OPEN, Phase.CLOSED, Phase.RESULT, Phase.BONUS)
    out = {MANUAL: "", NO_SPIN_ACTION: "", VOID: "", APPROVE: "", PIT_BOSS: ""}
    if view.stopped:
        return dict.fromkeys(out, "play is stopped by an RNG fault")
    if ph is not Phase.CLOSED:
        out[MANUAL] = "a result is entered by hand after no more bets, before one is recorded"
    elif rem is not None:
        out[MANUAL] = "on hold: a pit boss enters this round's result (Pit boss sign-off)"
    if rem is not None and in_play:
        if not rem.allows(NO_SPIN):
            out[NO_SPIN_ACTION] = rem.refused.get(NO_SPIN, "a no-spin does not end this hold")
    elif ph is not Phase.CLOSED:
        out[NO_SPIN_ACTION] = "a no-spin is called after no more bets, before the result is confirmed"
    if not in_play:
        out[VOID] = "only a round in play is voided here (a settled one from the pit-boss station)"
    if not view.approvals_needed:
        out[APPROVE] = "no payout needs a pit boss's approval"
    if rem is None or not in_play:
        out[PIT_BOSS] = "the round is not on hold (a void has its own button)"
    return out


# --- formatting shared by every screen -----------------------------------------------------------

_CENT = Decimal("0.01")


def odds_number(x: Fraction) -> str:
    """A "to 1" figure for people: 199, 6.5, 99.67 (rounded to 2 places only when not exact)."""
    if x.denominator == 1:
        return f"{x.numerator:,}"
    dec = Decimal(x.numerator) / Decimal(x.denominator)
    exact = dec.quantize(_CENT)
    if Fraction(exact) == x:
        return f"{exact.normalize():,f}"
    return f"{dec.quantize(_CENT, rounding=ROUND_DOWN):,}…"


def odds_text(x: Fraction, n: int = 1) -> str:
    """Odds the way the felt says them: "199 to 1", "199 to 2" for a split on a Lucky Number."""
    return f"{odds_number(x)} to {n}"
