"""What every screen shows, as plain immutable values (no Qt): the table's read model.

The table service and a journal follower build one `TableView` per journal batch
(engine.table.read_model) and hand it to every subscriber with the batch's change notice; the
croupier station, the player display and the bonus screen draw only from it, so no screen holds
game state of its own or works out a phase, a pay line or the next step itself. The types are the
engine's own: the phase is `engine.round.Phase` (IDLE between rounds), the draw `engine.rng.Draw`,
a pay line's kind the settlement's `WinKind`, a bonus preset `engine.bonus_game.Preset`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from engine.bets import Wager
from engine.bonus_game import Preset
from engine.exact import money  # noqa: F401  (the screens import it from here with the view)
from engine.rng import Draw
from engine.round import Phase, RoundState
from engine.settlement import LOSE, WinKind
from engine.table.limits import LimitsInForce
from engine.table.spin import IDLE_SPIN, WheelPhase

if TYPE_CHECKING:
    from engine.table.holds import HoldRemedies


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
        return self.kind != LOSE


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    number: int
    lucky: bool = False
    bonus: bool = False
    manual: bool = False


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


@dataclass(frozen=True, slots=True)
class BonusView:
    """One player's bonus game as the journal says it stands."""

    player: str
    status: BonusStatus
    round: int  # 1..6; the round being played (or the last one played when finished)
    boxes: tuple[BoxView, ...]  # the five boxes of the current round (revealed once it is played)
    picks: tuple[Fraction, ...]  # multipliers picked so far, round by round
    previous: tuple[BoxView, ...] = ()  # the round just played, every box revealed
    preset: Preset = "cash_out"
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
class NextStep:
    """The croupier station's one next action and the words under it (engine.table.next_step)."""

    label: str  # the big button
    enabled: bool
    why: str  # what the table is doing or waiting for (the button's tooltip)
    todo: str  # what to do next, and who
    actions: Mapping[str, str]  # side action -> "" when open, else why it is greyed

    @property
    def line(self) -> str:
        """The line under the big button."""
        return f"{self.why}. {self.todo}" if self.why and self.todo else self.why or self.todo


# A view's step until its builder sets it (engine.table.read_model: every view it makes has its own).
UNSET_STEP = NextStep("Starting…", False, "", "Wait a moment", {})


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
    approvals_needed: tuple[str, ...] = field(default=())  # wager ids awaiting pit-boss approval
    hold: str | None = None  # an unresolved irregularity: nothing is confirmed or settled meanwhile
    stopped: bool = False  # the table is tilted (engine.table.gate): no play until a pit boss clears it
    tilt_todo: str = ""  # what ends the tilt, in words (the gate's)
    tilt_causes: tuple[str, ...] = ()  # engine.table_events.TILT_* of the tilt, in the order they came
    spin: WheelPhase = IDLE_SPIN  # the spin's step and countdown (the phase strip)
    limits: LimitsInForce = field(default_factory=LimitsInForce)  # in force (engine.table.limits)
    dealer: str | None = None  # who deals the next round opened (table.dealer_changed)
    # Winning wagers only (the table's entry_mode): chips are entered after the result, only those
    # covering it; `bonus_due` once some of them won on the Bonus Number and the games wait to start.
    winning_only: bool = False
    bonus_due: bool = False
    remedies: HoldRemedies | None = None  # the hold in words, and what ends it (engine.table.holds)
    void_reason: str = ""  # why a void round was voided
    # The round as the fold holds it (None between rounds): a screen shows any of its facts from here,
    # so a new round field reaches the screens with no field of its own here (docs/architecture.md).
    round: RoundState | None = None
    step: NextStep = UNSET_STEP  # what the croupier does next (engine.table.next_step), built with it


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
