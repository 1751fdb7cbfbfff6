"""An in-memory table behind the `TableAdapter` interface, driving the engine directly.

Stands in for the table service (engine/table/) where no journal is wanted (demos, screenshots,
tests): every step is an `engine.round` event applied to the pure round state machine (which
checks phases, legal bets and limits), the draw comes from `engine.rng`, payouts from
`engine.settlement`, bonus games from `engine.bonus_game`. This class only sequences those
steps and reports them as the adapter's signals; it keeps no journal.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from itertools import count
from typing import Any

from PySide6.QtCore import QObject, QTimer

from engine.bets import Bet, Wager, check_amount
from engine.errors import DrrError
from engine.rng import Rng, SystemRng
from engine.round import (
    BonusOutcome,
    BonusStarted,
    NoSpin,
    ResultBeforeClose,
    ResultRecorded,
    RoundEvent,
    RoundOpened,
    RoundState,
    RoundVoided,
    WagerPlaced,
    WagerRemoved,
    apply,
    bonus_needed,
    close_bets,
    settle,
)
from engine.rules import RulesSubmission, load_default_rules
from gui.bonus_bridge import BonusBridge, make_bonus_bridge
from gui.pay_lines import history_entry, round_lines, with_bonus_payout
from gui.table_adapter import MANUAL_REASON, TableAdapter
from gui.view_model import (
    BonusStatus,
    BonusView,
    Draw,
    HistoryEntry,
    PayLine,
    Phase,
    TableView,
    TimeoutPreset,
    money,
)

HISTORY_KEPT = 500
DEFAULT_APPROVAL_THRESHOLD = Decimal("10000")


class LocalTable(TableAdapter):
    def __init__(
        self,
        rules: RulesSubmission | None = None,
        *,
        table_id: str = "T1",
        players: tuple[str, ...] = ("Seat 1", "Seat 2", "Seat 3", "Seat 4", "Seat 5", "Seat 6"),
        rng: Rng | None = None,
        approval_threshold: Decimal = DEFAULT_APPROVAL_THRESHOLD,
        bonus_factory: Callable[[str, RulesSubmission, Rng], BonusBridge] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._rules = rules or load_default_rules()
        self._rng: Rng = rng or SystemRng()
        self._table_id = table_id
        self._players = players
        self.approval_threshold = approval_threshold
        self._bonus_factory = bonus_factory or make_bonus_bridge
        self._ids = count(1)
        self._rounds = 0
        self._round: RoundState | None = None  # None between rounds
        self._candidate: int | None = None  # the wheel's number, awaiting the croupier's confirmation
        self._pay_lines: tuple[PayLine, ...] = ()
        self._approved_by: str | None = None
        self._history: list[HistoryEntry] = []
        self._bonus: dict[str, BonusBridge] = {}
        # The bonus games' timers: the engine decides on expiry, this only asks it often enough.
        self._bonus_clock = QTimer(self)
        self._bonus_clock.setInterval(250)
        self._bonus_clock.timeout.connect(self._tick_bonus_games)

    # --- reading ------------------------------------------------------------------------------

    @property
    def rules(self) -> RulesSubmission:
        return self._rules

    @property
    def phase(self) -> Phase:
        return Phase.IDLE if self._round is None else Phase(self._round.phase.value)

    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    def _draw(self) -> Draw | None:
        d = self._round.draw if self._round is not None else None
        return None if d is None else Draw(dict(d.lucky), d.bonus_number)

    def _result(self) -> int | None:
        if self._round is not None and self._round.result is not None:
            return self._round.result
        return self._candidate

    def snapshot(self) -> TableView:
        return TableView(
            table_id=self._table_id,
            round_no=self._rounds,
            phase=self.phase,
            wagers=self._round.wagers if self._round is not None else (),
            draw=self._draw(),
            result=self._result(),
            pay_lines=self._pay_lines,
            history=tuple(self._history),
            bonus_games=self.bonus_views(),
            players=self._players,
            approvals_needed=self._pending_approvals(),
        )

    def player_total(self, player: str) -> Decimal:
        return self._round.player_total(player) if self._round is not None else Decimal(0)

    # --- helpers ------------------------------------------------------------------------------

    def _apply(self, event: RoundEvent) -> bool:
        """Apply one engine event; a refusal (wrong phase, illegal wager, limit) is reported, not raised."""
        if self._round is None:
            self.refused.emit("no round is open: open bets first")
            return False
        try:
            self._round = apply(self._round, event)
        except DrrError as exc:
            self.refused.emit(exc.message)
            return False
        return True

    def _refuse(self, reason: str) -> None:
        self.refused.emit(reason)

    def _emit_phase(self) -> None:
        self.phaseChanged.emit(self.phase)

    def _pending_approvals(self) -> tuple[str, ...]:
        if self._approved_by is not None:
            return ()
        return tuple(
            ln.wager.id for ln in self._pay_lines if not ln.pending and ln.payout >= self.approval_threshold
        )

    # --- wagers -------------------------------------------------------------------------------

    def open_bets(self) -> None:
        if self._round is not None:
            self._refuse(f"cannot open bets now: the round is {self.phase.value}")
            return
        self._rounds += 1
        self._round = apply(
            RoundState.initial(self._rules),
            RoundOpened(f"{self._table_id}-{self._rounds}", self._rules.sha256),
        )
        self._emit_phase()
        self.wagersChanged.emit(())

    def place_wager(self, player: str, bet: Bet, amount: Decimal) -> None:
        try:
            value = check_amount(amount, self._rules.unit)
        except ValueError as exc:
            self._refuse(str(exc))
            return
        if self._apply(WagerPlaced(Wager(f"r{self._rounds}w{next(self._ids)}", player, bet, value))):
            assert self._round is not None
            self.wagersChanged.emit(self._round.wagers)

    def _remove_last(self, match: Callable[[Wager], bool], nothing: str) -> None:
        wagers = self._round.wagers if self._round is not None else ()
        found = next((w for w in reversed(wagers) if match(w)), None)
        if found is None:
            self._refuse(nothing)
        elif self._apply(WagerRemoved(found.id)):
            assert self._round is not None
            self.wagersChanged.emit(self._round.wagers)

    def remove_wager(self, player: str, bet: Bet) -> None:
        self._remove_last(
            lambda w: w.player == player and w.bet == bet, f"{player} has no wager on {bet.label}"
        )

    def undo(self, player: str | None = None) -> None:
        self._remove_last(lambda w: player is None or w.player == player, "nothing to undo")

    def clear_player(self, player: str) -> None:
        for wager in [w for w in (self._round.wagers if self._round else ()) if w.player == player]:
            if not self._apply(WagerRemoved(wager.id)):
                return
        if self._round is not None:
            self.wagersChanged.emit(self._round.wagers)

    # --- the spin -----------------------------------------------------------------------------

    def no_more_bets(self) -> None:
        if self._round is None:
            self._refuse("no round is open: open bets first")
            return
        try:
            # § 617b.12(e): the draw is made after all wagers are placed, right here.
            event = close_bets(self._round, self._rng)
        except DrrError as exc:
            self._refuse(exc.message)
            return
        if self._apply(event):
            self._candidate = None
            self._emit_phase()
            draw = self._draw()
            assert draw is not None
            self.drawMade.emit(draw)

    def wheel_event(self, event: Any) -> None:
        """A wheel event (engine.wheel_events): results and "no more bets" act on the round."""
        from engine import wheel_events as ev
        from hardware.events import describe

        if isinstance(event, ev.WheelResult):
            self.wheel_result(event.number, "wheel")
        elif isinstance(event, ev.WheelNoMoreBets):
            if self.phase is Phase.OPEN:
                self.no_more_bets()
        elif isinstance(event, ev.WheelMissSpin | ev.WheelLaunchFailed | ev.WheelBallNotDetected) or (
            isinstance(event, ev.WheelWarning) and event.is_mismatch
        ):
            self.irregularity.emit(f"wheel: {describe(event).split(maxsplit=3)[-1]}")

    def wheel_result(self, number: int, source: str = "wheel") -> None:
        """A result reported by the wheel: shown for the croupier to confirm."""
        if self.phase is Phase.OPEN:
            if self._apply(ResultBeforeClose(number, f"{source} reported {number} before no more bets")):
                self.irregularity.emit(
                    f"result {number} before no more bets: not accepted; spin again after closing"
                )
            return
        if self.phase is not Phase.CLOSED:
            self.irregularity.emit(
                f"result {number} from the {source} while the round is {self.phase.value}: ignored"
            )
            return
        self._candidate = number
        self.resultArrived.emit(number, source)

    def confirm_result(self) -> None:
        if self.phase is not Phase.CLOSED:
            self._refuse(f"cannot confirm a result now: the round is {self.phase.value}")
            return
        if self._candidate is None:
            self._refuse("no result to confirm yet: wait for the wheel or enter it manually")
            return
        self._record(ResultRecorded(self._candidate, "sensor"), "wheel")

    def manual_result(self, number: int) -> None:
        """A result the croupier typed and confirmed twice (the wheel is down)."""
        self._record(ResultRecorded(number, "manual", MANUAL_REASON), "manual")

    def _record(self, event: ResultRecorded, source: str) -> None:
        if not self._apply(event):
            return
        assert self._round is not None
        self._candidate = None
        if source == "manual":
            self.resultArrived.emit(event.number, "manual")
        players = bonus_needed(self._round)
        if players and self._apply(BonusStarted(players)):
            for player in players:
                self._bonus[player] = self._bonus_factory(player, self._rules, self._rng)
        self._emit_phase()
        self._publish_pay_lines()
        for player in self._bonus:
            self.bonusUpdated.emit(self._bonus_view(player))

    def _publish_pay_lines(self) -> None:
        assert self._round is not None
        self._pay_lines = round_lines(self._round)
        self.payoutsChanged.emit(self._pay_lines, self._pending_approvals())

    def approve_payouts(self, approver: str, pin: str = "") -> None:
        # No user store here: the name is recorded as given (demo and test tables only).
        if not self._pending_approvals():
            self._refuse("no payout needs approval")
            return
        if not approver.strip():
            self._refuse("an approval needs the pit boss's name")
            return
        self._approved_by = approver.strip()
        self.payoutsChanged.emit(self._pay_lines, ())

    def settle(self) -> None:
        if self.phase not in (Phase.RESULT, Phase.BONUS):
            self._refuse(f"cannot settle now: the round is {self.phase.value}")
            return
        assert self._round is not None
        running = [p for p in self._round.bonus_players if p not in self._round.bonus_odds]
        if running:
            self._refuse(f"the bonus game of {', '.join(running)} is still running")
            return
        pending = self._pending_approvals()
        if pending:
            total = sum((ln.payout for ln in self._pay_lines if ln.wager.id in pending), Decimal(0))
            self._refuse(f"payouts of {money(total)} need a pit boss's approval first")
            return
        try:
            event = settle(self._round)
        except DrrError as exc:
            self._refuse(exc.message)
            return
        if not self._apply(event):
            return
        entry = history_entry(self._round)
        assert entry is not None
        self._history.append(entry)
        del self._history[:-HISTORY_KEPT]
        self._emit_phase()
        self.settled.emit(self._pay_lines)
        self.historyChanged.emit(tuple(self._history))

    def next_round(self) -> None:
        if self.phase not in (Phase.SETTLED, Phase.VOID):
            self._refuse(f"cannot start the next round now: the round is {self.phase.value}")
            return
        self._round = None
        self._candidate = None
        self._pay_lines = ()
        self._approved_by = None
        self._bonus = {}
        self._bonus_clock.stop()
        self._emit_phase()
        self.wagersChanged.emit(())

    def no_spin(self, reason: str) -> None:
        if self._apply(NoSpin(reason.strip())):
            # Same wagers, same draw: only the result (if any) is dropped and the ball spun again.
            self._candidate = None
            self._pay_lines = ()
            self.irregularity.emit(f"no-spin: {reason.strip()}")
            self._emit_phase()

    def void(self, reason: str, approver: str = "", pin: str = "") -> None:
        # No user store here: the sign-off is not checked (demo and test tables only).
        if self._apply(RoundVoided(reason.strip())):
            self.irregularity.emit(f"round {self._rounds} void: {reason.strip()}; wagers returned")
            self._bonus_clock.stop()
            self._emit_phase()

    # --- bonus games --------------------------------------------------------------------------

    def _game(self, player: str) -> BonusBridge | None:
        game = self._bonus.get(player)
        if game is None:
            self._refuse(f"{player} has no bonus game")
        return game

    def _bonus_view(self, player: str) -> BonusView:
        """The game's view with what it pays once settled (the sum over the player's bonus wins)."""
        return with_bonus_payout(self._bonus[player].view(), self._pay_lines)

    def _after_bonus_step(self, player: str) -> None:
        view = self._bonus[player].view()
        if view.finished and self._round is not None and player not in self._round.bonus_odds:
            assert view.final_odds is not None
            if self._apply(BonusOutcome(player, Fraction(view.final_odds))):
                self._publish_pay_lines()
        self.bonusUpdated.emit(self._bonus_view(player))
        running = any(g.view().status is BonusStatus.PLAYING for g in self._bonus.values())
        if running and not self._bonus_clock.isActive():
            self._bonus_clock.start()
        elif not running:
            self._bonus_clock.stop()

    def _tick_bonus_games(self) -> None:
        for player, game in list(self._bonus.items()):
            try:
                events = game.tick()
            except ValueError as exc:
                self.irregularity.emit(f"bonus game of {player}: {exc}")
                continue
            if events:
                self._after_bonus_step(player)
            elif game.view().status is BonusStatus.PLAYING:
                self.bonusUpdated.emit(game.view())

    def _apply_bonus(self, player: str, step: Callable[[BonusBridge], object]) -> None:
        game = self._game(player)
        if game is None:
            return
        try:
            step(game)
        except ValueError as exc:
            self._refuse(str(exc))
            return
        self._after_bonus_step(player)

    def bonus_start(self, player: str) -> None:
        self._apply_bonus(player, lambda g: g.start())

    def bonus_pick(self, player: str, box: int) -> None:
        self._apply_bonus(player, lambda g: g.pick(box))

    def bonus_cash_out(self, player: str) -> None:
        self._apply_bonus(player, lambda g: g.cash_out())

    def bonus_set_preset(self, player: str, preset: TimeoutPreset) -> None:
        self._apply_bonus(player, lambda g: g.set_preset(preset))

    def bonus_timeout(self, player: str) -> None:
        """A screen saw the countdown reach zero: let the engine apply the timeout rule now."""
        self._apply_bonus(player, lambda g: g.tick())

    def bonus_views(self) -> tuple[BonusView, ...]:
        return tuple(self._bonus_view(p) for p in self._bonus)
