"""A table adapter that stands in while the real one starts, so the stations paint at once.

Opening the journal and rebuilding the table from it takes a moment (SQLAlchemy, the schema
check, the fold over the journal). The windows are built on this stand-in and drawn straight
away as "starting"; when the real adapter is attached its signals are passed through and the
whole table view is sent once, so every screen redraws from what the journal says. Commands
sent before that are refused with a clear reason, never queued.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from PySide6.QtCore import QObject

from engine.bets import Bet
from engine.rules import RulesSubmission
from gui.table_adapter import TableAdapter
from gui.view_model import Phase, TableView, TimeoutPreset

SIGNALS = (
    "phaseChanged",
    "wagersChanged",
    "drawMade",
    "resultArrived",
    "payoutsChanged",
    "settled",
    "bonusUpdated",
    "sensorHealth",
    "irregularity",
    "refused",
    "historyChanged",
)
STARTING = "starting: reading the journal"


class DeferredTable(TableAdapter):
    def __init__(
        self, rules: RulesSubmission, players: tuple[str, ...], table_id: str, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._rules = rules
        self._players = players
        self._table_id = table_id
        self.inner: TableAdapter | None = None

    @property
    def rules(self) -> RulesSubmission:
        return self.inner.rules if self.inner is not None else self._rules

    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def phase(self) -> Phase:
        return self.snapshot().phase

    def snapshot(self) -> TableView:
        if self.inner is not None:
            return self.inner.snapshot()
        return TableView(self._table_id, 0, Phase.IDLE, players=self._players, hold=STARTING)

    def attach(self, inner: TableAdapter) -> None:
        """From now on everything goes to and comes from `inner`; the screens redraw from its view."""
        self.inner = inner
        for name in SIGNALS:
            getattr(inner, name).connect(getattr(self, name).emit)
        snap = inner.snapshot()
        self.historyChanged.emit(snap.history)
        self.wagersChanged.emit(snap.wagers)
        if snap.draw is not None:
            self.drawMade.emit(snap.draw)
        if snap.pay_lines:
            self.payoutsChanged.emit(snap.pay_lines, snap.approvals_needed)
        for view in snap.bonus_games:
            self.bonusUpdated.emit(view)
        self.phaseChanged.emit(snap.phase)

    def _call(self, name: str, *args: Any) -> None:
        if self.inner is None:
            self.refused.emit(f"the table is {STARTING}; try again in a moment")
            return
        getattr(self.inner, name)(*args)

    def open_bets(self) -> None:
        self._call("open_bets")

    def wheel_event(self, event: Any) -> None:
        if self.inner is not None:  # the wheel's messages before the start are in its capture file
            self.inner.wheel_event(event)

    def set_sensor_health(self, health: Any) -> None:
        if self.inner is not None:
            self.inner.set_sensor_health(health)
        else:
            self.sensorHealth.emit(health)

    def place_wager(self, player: str, bet: Bet, amount: Decimal) -> None:
        self._call("place_wager", player, bet, amount)

    def remove_wager(self, player: str, bet: Bet) -> None:
        self._call("remove_wager", player, bet)

    def undo(self, player: str | None = None) -> None:
        self._call("undo", player)

    def clear_player(self, player: str) -> None:
        self._call("clear_player", player)

    def no_more_bets(self) -> None:
        self._call("no_more_bets")

    def confirm_result(self) -> None:
        self._call("confirm_result")

    def manual_result(self, number: int) -> None:
        self._call("manual_result", number)

    def approve_payouts(self, approver: str, pin: str = "") -> None:
        self._call("approve_payouts", approver, pin)

    def settle(self) -> None:
        self._call("settle")

    def next_round(self) -> None:
        self._call("next_round")

    def no_spin(self, reason: str) -> None:
        self._call("no_spin", reason)

    def void(self, reason: str, approver: str = "", pin: str = "") -> None:
        self._call("void", reason, approver, pin)

    def bonus_pick(self, player: str, box: int) -> None:
        self._call("bonus_pick", player, box)

    def bonus_cash_out(self, player: str) -> None:
        self._call("bonus_cash_out", player)

    def bonus_set_preset(self, player: str, preset: TimeoutPreset) -> None:
        self._call("bonus_set_preset", player, preset)

    def bonus_start(self, player: str) -> None:
        self._call("bonus_start", player)

    def bonus_timeout(self, player: str) -> None:
        self._call("bonus_timeout", player)

    async def shutdown(self) -> None:
        if self.inner is not None:
            await self.inner.shutdown()
