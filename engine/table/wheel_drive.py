"""The table's own clock on the wheel and the result: when the spin is ordered, when a clean sensor
result confirms itself, and which wheel messages belong to another spin than the round's (pure).

One clock runs the round: the service's (`TableService.clock`). Bets open with a commanded wheel
journal `table.betting_time` (its deadline); when it has passed — or the croupier closed bets early,
or a no-spin asks for a re-spin — and nothing holds the round, the service journals
`table.wheel_start` and hardware.table_bridge sends the wheel its start command. A clean sensor
result journals `table.auto_confirm_due`; at its deadline, unless the croupier disputed the result
(a `disputed_result` hold), the service records it (`round.result` with `auto_confirmed_after`).
The service's timer calls `TableService.tick_clock()` at `next_deadline(state)`, as the bonus
timers call `tick_bonus_games()`; tests call the tick themselves with a clock of their own.

A wheel that spins anyway (free-running, or its own button pressed) never touches a round that
waits: `other_spin(state, event, before_open)` names the messages of a later spin (while a result
waits for confirmation, or after it was recorded) and of the spin already under way when bets
opened, which the service journals as they are and leaves out of the round. This module imports no
serial and no SQLAlchemy; it reads the fold (engine.table.state), which keeps the clock's facts in
its `DriveState`.
"""

from __future__ import annotations

from typing import Final

from engine.round import Phase
from engine.table.spin import BETS, NO_MORE_BETS, RESULT, SPINNING, WheelPhase
from engine.table.state import TableState
from engine.table_events import AutoConfirmDue
from engine.wheel_events import (
    WheelEvent,
    WheelLaunched,
    WheelNoMoreBets,
    WheelResult,
    WheelStarted,
    WheelWarning,
)

# A clean sensor result is confirmed this many seconds after it came unless disputed (the stations'
# default comes from the settings file, engine.config: table.auto_confirm_seconds).
DEFAULT_AUTO_CONFIRM_S: Final = 5.0
# Seconds of betting from open bets to the spin with a commanded wheel (table.betting_seconds).
DEFAULT_BETTING_S: Final = 25.0
# The hold a croupier's dispute puts on the round (engine.table.service.dispute_result).
DISPUTED: Final = "disputed_result"
BETTING_OVER, CLOSED_EARLY, RESPIN = (
    "betting time over",
    "bets closed by the croupier",
    "re-spin after a no-spin",
)


def _waits(state: TableState) -> bool:
    """The round waits for something other than the spin (a hold, an RNG fault, a result)."""
    return state.hold is not None or state.rng_fault is not None or state.pending_result is not None


def spin_wanted(state: TableState) -> bool:
    """The round is waiting for its spin: bets open or closed, no result (pending or recorded), nothing
    holding it. A bonus game, a hold, a result waiting or a round between spins never wants one."""
    s = state.round
    return s is not None and s.phase in (Phase.OPEN, Phase.CLOSED) and s.result is None and not _waits(state)


def order_outstanding(state: TableState) -> bool:
    """The table's start order stands and the round still wants the spin (the wheel driver sends the
    start only then). The fold's `drive.order_outstanding` alone is not enough: a restart takes an
    ordered spin as not launched, and during the bonus game or hold that followed it the driver
    started the wheel once a second (issue 25 point 2)."""
    return state.drive.order_outstanding and spin_wanted(state)


def start_due(state: TableState, now: float) -> str | None:
    """Why the wheel should start the round's spin now (`table.wheel_start`'s why), or None."""
    s, d = state.round, state.drive
    if s is None or d.betting is None or d.spin_ordered or not spin_wanted(state):
        return None
    if s.phase is Phase.OPEN and now >= d.betting.deadline:
        return BETTING_OVER
    if s.phase is Phase.CLOSED and s.result is None:
        return RESPIN if state.no_spin_games or d.launched else CLOSED_EARLY
    return None


def _confirming(state: TableState, paused: bool) -> bool:
    """The result's auto-confirmation counts down: a clean result waits, undisputed, with nobody
    looking at it in a dialog (`paused`: the service's result under review) and no manual entry
    begun (the croupier is typing another number)."""
    s = state.round
    return (
        state.drive.confirm is not None
        and s is not None
        and s.phase is Phase.CLOSED
        and state.pending_result is not None
        and state.hold is None
        and state.manual_entry is None
        and not paused
    )


def confirm_due(state: TableState, now: float, *, paused: bool = False) -> AutoConfirmDue | None:
    """The auto-confirmation whose deadline has passed, if the result still waits undisputed (and not
    under the croupier's review: `paused`)."""
    c, pending = state.drive.confirm, state.pending_result
    if c is None or pending is None or not _confirming(state, paused):
        return None
    if pending.number != c.number or now < c.deadline:
        return None
    return c


def next_deadline(state: TableState, *, paused: bool = False) -> float | None:
    """When the service's timer should tick next (None: nothing is counting down)."""
    s, d = state.round, state.drive
    if s is None:
        return None
    due: list[float] = []
    if d.betting is not None and not d.spin_ordered and s.phase is Phase.OPEN:
        due.append(d.betting.deadline)
    if d.confirm is not None and _confirming(state, paused):
        due.append(d.confirm.deadline)
    return min(due) if due else None


def countdown(state: TableState, now: float) -> tuple[str, float] | None:
    """What the screens count down: ("betting", seconds left) or ("confirm", seconds left)."""
    s, d = state.round, state.drive
    if s is None:
        return None
    if d.betting is not None and not d.spin_ordered and s.phase is Phase.OPEN and not _waits(state):
        return "betting", max(0.0, d.betting.deadline - now)
    c = d.confirm
    if c is not None and _confirming(state, False):
        return "confirm", max(0.0, c.deadline - now)
    return None


def unlaunched(state: TableState, game: int | None) -> str | None:
    """Why a result must not be taken for the round's spin because the wheel was never seen to launch
    it (issue 26: no state 3 or 4 since the table ordered the spin, or since a no-spin), or None.

    A state-5 line with a new counter after a re-spin was commanded may be a corrupted line or a game
    the wheel played on its own: only a launch seen for this spin makes its result the round's."""
    d = state.drive
    if d.launched or not (d.spin_ordered or state.no_spin_games):
        return None
    since = "the table ordered the spin" if d.spin_ordered else "the no-spin"
    which = f"game {game}" if game is not None else "a game"
    return f"{which} was never seen to launch (no state 3 or 4) since {since}: its result is not the round's"


def _own_game(state: TableState) -> int | None:
    pending = state.pending_result
    if pending is not None and pending.game is not None:
        return pending.game
    return state.expected_game


def other_spin(state: TableState, ev: WheelEvent, before_open: int | None) -> str | None:
    """Why the wheel's message `ev` is not about the round's spin (journaled, ignored for the round),
    or None when the round acts on it as usual.

    - a later spin while the round waits: a result is waiting for confirmation or was recorded, and
      the message names another game (or, for a result whose game is unknown, comes after the
      accepted one): the accepted result stays, no hold;
    - the spin under way as bets opened (`before_open`, the game the wheel had launched then, as the
      service saw it): the round's spin is the next one the wheel starts.
    """
    s = state.round
    if s is None or not state.in_play:
        return None
    game = ev.game
    waiting = state.pending_result is not None or s.phase in (Phase.RESULT, Phase.BONUS)
    if waiting:
        own = _own_game(state)
        if game is not None and own is not None and game != own:
            return (
                f"game {game} spun while round {s.round_id} waits (its spin is game {own}): "
                "ignored for the round"
            )
        if isinstance(ev, WheelResult) and state.pending_result is not None and (game is None or own is None):
            first = state.pending_result.number
            if ev.number != first or game is None:
                return f"result {ev.number} after the accepted {first}: a later spin, ignored for the round"
        if isinstance(ev, WheelWarning) and ev.is_mismatch and s.phase is not Phase.CLOSED:
            return None if game is None or game == own else "a later spin's warning: ignored for the round"
        return None
    if (
        s.phase is Phase.OPEN
        and before_open is not None
        and game == before_open
        and state.expected_game != game
    ):
        return f"game {game} was already spinning when bets opened: the round's spin is the next one"
    return None


class InFlight:
    """The game the wheel has launched and not yet finished, as the service last heard (service memory:
    a restarted service starts without it, and treats every message as the round's as before)."""

    def __init__(self) -> None:
        self.game: int | None = None

    def seen(self, ev: WheelEvent) -> None:
        if isinstance(ev, WheelLaunched | WheelNoMoreBets):
            self.game = ev.game
        elif isinstance(ev, WheelResult | WheelStarted):
            self.game = None


def wheel_phase(state: TableState) -> WheelPhase:
    """The round's step of the spin as the journal's state says it (see WheelPhase)."""
    s, d = state.round, state.drive
    if s is None or s.phase is Phase.VOID:
        return WheelPhase("idle")
    if state.hold is not None or state.rng_fault is not None:
        return WheelPhase("hold")
    if s.result is not None:
        return WheelPhase(RESULT, number=s.result, confirmed=True)
    if state.pending_result is not None:
        c = d.confirm
        mine = c is not None and c.number == state.pending_result.number and _confirming(state, False)
        deadline = c.deadline if c is not None and mine else None
        return WheelPhase(RESULT, deadline, state.pending_result.number)
    if s.phase is Phase.OPEN:
        if d.launched:
            return WheelPhase(SPINNING)
        betting = d.betting.deadline if d.betting is not None and not d.spin_ordered else None
        return WheelPhase(BETS, betting)
    if s.phase is Phase.CLOSED:
        return WheelPhase(NO_MORE_BETS)
    return WheelPhase("idle")
