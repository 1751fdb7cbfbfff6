"""An in-memory table behind the `TableAdapter` interface, driving the engine modules directly.

Stands in for the table service (engine/table/) until it lands, so every screen can be
exercised end to end: wagers are checked against the Rules Submission and its limits, the
draw comes from `engine.rng`, payouts from `engine.settlement`. It keeps no journal; the
game rules all live in the engine, this class only sequences them.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from itertools import count

from PySide6.QtCore import QObject, QTimer

from engine.bets import Bet, Wager, check_amount
from engine.rng import Rng, SystemRng, draw_lucky_and_bonus
from engine.rules import RulesSubmission, load_default_rules
from engine.settlement import players_needing_bonus, settle_round
from gui.bonus_bridge import BonusBridge, make_bonus_bridge
from gui.table_adapter import TableAdapter
from gui.view_model import (
    BonusView,
    Draw,
    HistoryEntry,
    PayLine,
    Phase,
    SensorHealth,
    TableView,
    TimeoutPreset,
    WinKind,
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
        self._round_no = 0
        self._phase = Phase.IDLE
        self._wagers: list[Wager] = []
        self._draw: Draw | None = None
        self._engine_draw: object | None = None
        self._result: int | None = None
        self._result_source = ""
        self._pay_lines: tuple[PayLine, ...] = ()
        self._needs_approval: tuple[str, ...] = ()
        self._approved_by: str | None = None
        self._history: list[HistoryEntry] = []
        self._bonus: dict[str, BonusBridge] = {}
        self._sensor = SensorHealth(connected=False, source="none")
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
        return self._phase

    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    def snapshot(self) -> TableView:
        return TableView(
            table_id=self._table_id,
            round_no=self._round_no,
            phase=self._phase,
            wagers=tuple(self._wagers),
            draw=self._draw,
            result=self._result,
            pay_lines=self._pay_lines,
            history=tuple(self._history),
            bonus_games=self.bonus_views(),
            players=self._players,
            approvals_needed=self._pending_approvals(),
        )

    def player_total(self, player: str) -> Decimal:
        return sum((w.amount for w in self._wagers if w.player == player), Decimal(0))

    # --- helpers ------------------------------------------------------------------------------

    def _set_phase(self, phase: Phase) -> None:
        self._phase = phase
        self.phaseChanged.emit(phase)

    def _refuse(self, reason: str) -> bool:
        self.refused.emit(reason)
        return False

    def _require(self, *phases: Phase, doing: str) -> bool:
        if self._phase in phases:
            return True
        return self._refuse(f"cannot {doing} now: the round is {self._phase.value}")

    def _pending_approvals(self) -> tuple[str, ...]:
        return () if self._approved_by else self._needs_approval

    # --- wagers -------------------------------------------------------------------------------

    def open_bets(self) -> None:
        if not self._require(Phase.IDLE, doing="open bets"):
            return
        self._round_no += 1
        self._set_phase(Phase.OPEN)

    def place_wager(self, player: str, bet: Bet, amount: Decimal) -> None:
        if not self._require(Phase.OPEN, doing="place a wager"):
            return
        try:
            value = check_amount(amount, self._rules.unit)
        except ValueError as exc:
            self._refuse(str(exc))
            return
        reason = self._limit_breach(player, bet, value)
        if reason:
            self._refuse(reason)
            return
        self._wagers.append(Wager(f"r{self._round_no}w{next(self._ids)}", player, bet, value))
        self.wagersChanged.emit(tuple(self._wagers))

    def _limit_breach(self, player: str, bet: Bet, amount: Decimal) -> str | None:
        """Why adding `amount` on `bet` breaks a table limit, or None."""
        limits = self._rules.limits
        on_spot = amount + sum(
            (w.amount for w in self._wagers if w.player == player and w.bet == bet), Decimal(0)
        )
        if limits.minimum is not None and on_spot < limits.minimum:
            return f"{bet.label}: {money(on_spot)} is below the table minimum {money(limits.minimum)}"
        cap = limits.maximum_inside if bet.inside else limits.maximum_outside
        if cap is not None and on_spot > cap:
            side = "inside" if bet.inside else "outside"
            return f"{bet.label}: {money(on_spot)} is above the {side} maximum {money(cap)}"
        per_player = limits.maximum_per_player
        total = self.player_total(player) + amount
        if per_player is not None and total > per_player:
            return f"{player}: {money(total)} is above the per-player maximum {money(per_player)}"
        return None

    def remove_wager(self, player: str, bet: Bet) -> None:
        if not self._require(Phase.OPEN, doing="remove a wager"):
            return
        for i in range(len(self._wagers) - 1, -1, -1):
            if self._wagers[i].player == player and self._wagers[i].bet == bet:
                del self._wagers[i]
                self.wagersChanged.emit(tuple(self._wagers))
                return
        self._refuse(f"{player} has no wager on {bet.label}")

    def undo(self, player: str | None = None) -> None:
        if not self._require(Phase.OPEN, doing="undo"):
            return
        for i in range(len(self._wagers) - 1, -1, -1):
            if player is None or self._wagers[i].player == player:
                del self._wagers[i]
                self.wagersChanged.emit(tuple(self._wagers))
                return
        self._refuse("nothing to undo")

    def clear_player(self, player: str) -> None:
        if not self._require(Phase.OPEN, doing="clear a player's wagers"):
            return
        self._wagers = [w for w in self._wagers if w.player != player]
        self.wagersChanged.emit(tuple(self._wagers))

    # --- the spin -----------------------------------------------------------------------------

    def no_more_bets(self) -> None:
        if not self._require(Phase.OPEN, doing="call no more bets"):
            return
        # § 617b.12(e): the draw happens after all wagers are placed, right here.
        engine_draw = draw_lucky_and_bonus(self._rules, self._rng)
        self._engine_draw = engine_draw
        self._draw = Draw(dict(engine_draw.lucky), engine_draw.bonus_number)
        self._set_phase(Phase.CLOSED)
        self.drawMade.emit(self._draw)

    def wheel_result(self, number: int, source: str = "wheel") -> None:
        """A result reported by the wheel: shown for the croupier to confirm."""
        if self._phase is not Phase.CLOSED:
            self.irregularity.emit(
                f"result {number} from the {source} while the round is {self._phase.value}: ignored"
            )
            return
        self._result = number
        self._result_source = source
        self.resultArrived.emit(number, source)

    def simulate_spin(self) -> None:
        """The virtual wheel when no wheel source is attached: a fair number from the OS CSPRNG."""
        self.wheel_result(secrets.randbelow(37), "virtual wheel")

    def set_sensor_health(self, health: SensorHealth) -> None:
        self._sensor = health
        self.sensorHealth.emit(health)

    def confirm_result(self) -> None:
        if not self._require(Phase.CLOSED, doing="confirm a result"):
            return
        if self._result is None:
            self._refuse("no result to confirm yet: wait for the wheel or enter it manually")
            return
        self._enter_result()

    def manual_result(self, number: int) -> None:
        """A result the croupier typed and confirmed twice (the wheel is down)."""
        if not self._require(Phase.CLOSED, doing="enter a result"):
            return
        if not 0 <= number <= 36:
            self._refuse(f"{number} is not a number 0-36")
            return
        self._result = number
        self._result_source = "manual"
        self.resultArrived.emit(number, "manual")
        self._enter_result()

    def _enter_result(self) -> None:
        assert self._result is not None and self._draw is not None
        self._set_phase(Phase.RESULT)
        bonus_players = players_needing_bonus(self._wagers, self._result, self._engine_draw)  # type: ignore[arg-type]
        if bonus_players:
            for player in bonus_players:
                self._bonus[player] = self._bonus_factory(player, self._rules, self._rng)
            self._set_phase(Phase.BONUS)
            self._publish_pay_lines()
            for player in self._bonus:
                self.bonusUpdated.emit(self._bonus_view(player))
            return
        self._publish_pay_lines()

    def _publish_pay_lines(self) -> None:
        assert self._result is not None
        outcomes: dict[str, Fraction] = {}
        pending: set[str] = set()
        for player, game in self._bonus.items():
            outcome = game.view().final_odds
            if outcome is None:
                pending.add(player)
                outcomes[player] = Fraction(29)  # placeholder until the game ends; marked pending
            else:
                outcomes[player] = outcome
        settled = settle_round(self._wagers, self._result, self._engine_draw, outcomes, self._rules)  # type: ignore[arg-type]
        lines = []
        for s in settled.settlements:
            kind = WinKind(s.kind)
            is_pending = kind is WinKind.BONUS and s.wager.player in pending
            lines.append(
                PayLine(s.wager, kind, s.odds, Decimal(0) if is_pending else s.payout, pending=is_pending)
            )
        self._pay_lines = tuple(lines)
        self._needs_approval = tuple(
            ln.wager.id for ln in lines if not ln.pending and ln.payout >= self.approval_threshold
        )
        self.payoutsChanged.emit(self._pay_lines, self._pending_approvals())

    def approve_payouts(self, approver: str) -> None:
        if not self._needs_approval:
            self._refuse("no payout needs approval")
            return
        self._approved_by = approver
        self.payoutsChanged.emit(self._pay_lines, ())

    def settle(self) -> None:
        if not self._require(Phase.RESULT, Phase.BONUS, doing="settle"):
            return
        if any(not g.view().finished for g in self._bonus.values()):
            self._refuse("a bonus game is still running")
            return
        if self._pending_approvals():
            total = sum(
                (ln.payout for ln in self._pay_lines if ln.wager.id in self._needs_approval), Decimal(0)
            )
            self._refuse(f"payouts of {money(total)} need a pit boss's approval first")
            return
        assert self._result is not None and self._draw is not None
        self._history.append(
            HistoryEntry(
                self._result,
                lucky=self._result in self._draw.lucky,
                bonus=self._result == self._draw.bonus_number,
                manual=self._result_source == "manual",
            )
        )
        del self._history[:-HISTORY_KEPT]
        self._set_phase(Phase.SETTLED)
        self.settled.emit(self._pay_lines)
        self.historyChanged.emit(tuple(self._history))

    def next_round(self) -> None:
        if not self._require(Phase.SETTLED, Phase.VOID, doing="start the next round"):
            return
        self._wagers = []
        self._draw = None
        self._engine_draw = None
        self._result = None
        self._pay_lines = ()
        self._needs_approval = ()
        self._approved_by = None
        self._bonus = {}
        self._bonus_clock.stop()
        self._set_phase(Phase.IDLE)
        self.wagersChanged.emit(())

    def no_spin(self, reason: str) -> None:
        if not self._require(Phase.CLOSED, doing="call a no-spin"):
            return
        if not reason.strip():
            self._refuse("a no-spin needs a reason")
            return
        # Same wagers, same draw: only the result (if any) is dropped and the ball spun again.
        self._result = None
        self.irregularity.emit(f"no-spin: {reason.strip()}")
        self._set_phase(Phase.CLOSED)

    def void(self, reason: str) -> None:
        if not self._require(Phase.OPEN, Phase.CLOSED, Phase.RESULT, doing="void the round"):
            return
        if not reason.strip():
            self._refuse("a void needs a reason")
            return
        self.irregularity.emit(f"round {self._round_no} void: {reason.strip()}; wagers returned")
        self._set_phase(Phase.VOID)

    # --- bonus games --------------------------------------------------------------------------

    def _game(self, player: str) -> BonusBridge | None:
        game = self._bonus.get(player)
        if game is None:
            self._refuse(f"{player} has no bonus game")
        return game

    def _bonus_view(self, player: str) -> BonusView:
        """The game's view with what it pays once settled (the sum over the player's bonus wins)."""
        view = self._bonus[player].view()
        if not view.finished:
            return view
        paid = [
            ln.payout
            for ln in self._pay_lines
            if ln.wager.player == player and ln.kind is WinKind.BONUS and not ln.pending
        ]
        return dataclasses.replace(view, payout=sum(paid, Decimal(0))) if paid else view

    def _after_bonus_step(self, player: str) -> None:
        view = self._bonus[player].view()
        if view.finished:
            self._publish_pay_lines()
        self.bonusUpdated.emit(self._bonus_view(player))
        running = any(g.view().status.value == "playing" for g in self._bonus.values())
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
            elif game.view().status.value == "playing":
                self.bonusUpdated.emit(game.view())

    def bonus_start(self, player: str) -> None:
        game = self._game(player)
        if game is not None:
            self._apply(player, game.start)

    def bonus_pick(self, player: str, box: int) -> None:
        game = self._game(player)
        if game is not None:
            self._apply(player, lambda: game.pick(box))

    def bonus_cash_out(self, player: str) -> None:
        game = self._game(player)
        if game is not None:
            self._apply(player, game.cash_out)

    def bonus_set_preset(self, player: str, preset: TimeoutPreset) -> None:
        game = self._game(player)
        if game is not None:
            self._apply(player, lambda: game.set_preset(preset))

    def bonus_timeout(self, player: str) -> None:
        """The round timer ran out (driven by the screen's clock until the table service owns it)."""
        game = self._game(player)
        if game is not None:
            self._apply(player, game.tick)

    def bonus_views(self) -> tuple[BonusView, ...]:
        return tuple(self._bonus_view(p) for p in self._bonus)

    def _apply(self, player: str, step: Callable[[], object]) -> None:
        try:
            step()
        except ValueError as exc:
            self._refuse(str(exc))
            return
        self._after_bonus_step(player)
