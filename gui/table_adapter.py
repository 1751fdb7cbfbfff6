"""The one door between the screens and the table: commands in, events out, as Qt signals.

Every station talks to a `TableAdapter`. The screens send commands (open bets, place a
wager, pick a box …) and redraw only from the signals that come back, so the table service
stays the single source of truth. `gui.service_table.ServiceTable` puts the table service
(engine/table/) behind it, for every station, the demos, the screenshots and the tests alike.

Signals (payloads are `gui.view_model` values or `engine.bets` values):
    phaseChanged(Phase)             wagersChanged(tuple[Wager, ...])
    drawMade(Draw)                  resultArrived(int number, str source)  # wheel|manual
    payoutsChanged(tuple[PayLine, ...], tuple[str, ...] wager ids needing approval)
    settled(tuple[PayLine, ...])    bonusUpdated(BonusView)
    sensorHealth(SensorHealth)      irregularity(str)   # no-spin, void, sensor fault … with reason
    refused(str)                    historyChanged(tuple[HistoryEntry, ...])
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from PySide6.QtCore import QObject, Signal

from engine.bets import Bet
from engine.rules import RulesSubmission
from gui.view_model import SensorHealth, TableView, TimeoutPreset

# The reason journaled with a result the croupier typed (twice) because the wheel gave none.
MANUAL_REASON = "entered by the croupier: wheel sensor unavailable"


class TableAdapter(QObject):
    """Abstract: subclasses implement the commands and emit the signals."""

    phaseChanged = Signal(object)
    wagersChanged = Signal(object)
    drawMade = Signal(object)
    resultArrived = Signal(int, str)
    payoutsChanged = Signal(object, object)
    settled = Signal(object)
    bonusUpdated = Signal(object)
    sensorHealth = Signal(object)
    irregularity = Signal(str)
    refused = Signal(str)
    historyChanged = Signal(object)

    # --- what the screens read once when they open (restart, reconnect) -----------------------

    @property
    def rules(self) -> RulesSubmission:
        raise NotImplementedError

    def snapshot(self) -> TableView:
        raise NotImplementedError

    # --- commands -----------------------------------------------------------------------------

    def open_bets(self) -> None:
        raise NotImplementedError

    def wheel_event(self, event: Any) -> None:
        """A typed event from the wheel link (`hardware.events`): results, "no more bets", faults."""
        raise NotImplementedError

    def set_sensor_health(self, health: SensorHealth) -> None:
        """The wheel link's health, passed on to every screen as `sensorHealth`."""
        self.sensorHealth.emit(health)

    def place_wager(self, player: str, bet: Bet, amount: Decimal) -> None:
        raise NotImplementedError

    def remove_wager(self, player: str, bet: Bet) -> None:
        raise NotImplementedError

    def undo(self, player: str | None = None) -> None:
        raise NotImplementedError

    def clear_player(self, player: str) -> None:
        raise NotImplementedError

    def no_more_bets(self) -> None:
        raise NotImplementedError

    def confirm_result(self) -> None:
        raise NotImplementedError

    def manual_result(self, number: int) -> None:
        raise NotImplementedError

    def approve_payouts(self, approver: str, pin: str = "") -> None:
        """A pit boss's approval of the large payouts (checked against the user store where there is one)."""
        raise NotImplementedError

    def settle(self) -> None:
        raise NotImplementedError

    def next_round(self) -> None:
        raise NotImplementedError

    def no_spin(self, reason: str) -> None:
        raise NotImplementedError

    def void(self, reason: str, approver: str = "", pin: str = "") -> None:
        """Cancel the round with a reason; a pit boss signs it off (name and PIN) where users exist."""
        raise NotImplementedError

    def bonus_pick(self, player: str, box: int) -> None:
        raise NotImplementedError

    def bonus_cash_out(self, player: str) -> None:
        raise NotImplementedError

    def bonus_set_preset(self, player: str, preset: TimeoutPreset) -> None:
        raise NotImplementedError

    def bonus_start(self, player: str) -> None:
        raise NotImplementedError

    def bonus_timeout(self, player: str) -> None:
        """A screen saw a bonus round's countdown reach zero; the table applies the timeout rule."""
        raise NotImplementedError

    async def shutdown(self) -> None:
        """Stop background work and flush the journal (called once, before the loop ends)."""
