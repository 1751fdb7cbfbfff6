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

from engine.bets import Wager
from engine.table.wheel_drive import IDLE_SPIN, WheelPhase


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


# --- formatting shared by every screen -----------------------------------------------------------

_CENT = Decimal("0.01")


def money(amount: Decimal) -> str:
    """An amount with thousands separators and two decimals, never rounded up."""
    return f"{amount.quantize(_CENT, rounding=ROUND_DOWN):,}"


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
