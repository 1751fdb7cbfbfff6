"""A table followed from its journal, read-only: the player display or bonus screen on another PC.

The croupier station's process owns the table (one writer per table, `Store.claim`). A second
screen in another process must not claim it, so it rebuilds the same `TableState` the service
keeps by folding the journal (`engine.table.state.TableState.apply_entry`, the fold recovery runs),
and folds the new entries each time the store says the table moved (`gui.floor.watch.StoreWatch`:
PRAGMA data_version on SQLite, LISTEN/NOTIFY on PostgreSQL). It is a `gui.table_model.TableSource`
like the `TableService`: it hands its batch subscribers `(entries, changes, view)` from the same read
model (engine.table.read_model), so `gui.table_model.TableModel` shows it exactly as the croupier's
screens show the service; every command is refused with the reason. It needs no Qt, so it lives with the
service in the engine, and `gui/` implements the table's commands (`wheel_event` among them) once,
in the table model.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from engine.auth import User
from engine.bets import Bet
from engine.bonus_game import Preset
from engine.errors import DrrError
from engine.rng import SystemRng
from engine.round import Phase
from engine.rules import RulesSubmission
from engine.settlement import RoundSettlement
from engine.store.db import Store
from engine.store.journal import Journal
from engine.store.records import Entry
from engine.table.changes import Changes
from engine.table.read_model import ReadModel
from engine.table.service import Approval
from engine.table.state import TableState
from engine.table.view import TableView
from engine.wheel_events import WheelEvent

READ_ONLY = "this screen follows the table's journal and changes nothing: use the croupier station"


class JournalFollower:
    """The read side of `TableService` (a `TableSource`), kept up to date by `poll()`."""

    def __init__(self, store: Store, table: str, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.table = table
        # The bonus deadlines in the journal are on the croupier station's clock (wall-clock time).
        self.clock = clock
        self.state = TableState(table, SystemRng(), clock)  # never draws: the draw is read from the journal
        self._journal = Journal(store)
        self._read = ReadModel(self)
        self._subscribers: list[Callable[[Entry], Any]] = []
        self._batch_subscribers: list[Callable[[list[Entry], Changes, TableView], Any]] = []
        self.poll()

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def view(self) -> TableView:
        """What the screens show now, as the journal says (engine.table.view)."""
        return self._read.view

    @property
    def rules(self) -> RulesSubmission | None:
        return self.state.rules

    def settlement(self) -> RoundSettlement | None:
        return self.state.settlements.final(self.state.round)

    def provisional_settlement(self) -> RoundSettlement | None:
        return self.state.settlements.provisional(self.state.round)

    def approval_needed(self) -> Approval | None:
        """Approvals are the croupier station's business; a follower shows none."""
        return None

    def subscribe(self, callback: Callable[[Entry], Any]) -> Callable[[], None]:
        """`callback(entry)` for each entry folded by `poll()`."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def subscribe_batches(
        self, callback: Callable[[list[Entry], Changes, TableView], Awaitable[None] | None]
    ) -> Callable[[], None]:
        """`callback(entries, changes, view)` once per `poll()` that folded anything."""
        self._batch_subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._batch_subscribers:
                self._batch_subscribers.remove(callback)

        return unsubscribe

    def poll(self) -> int:
        """Fold the entries journaled since the last poll; tell the subscribers. Returns how many.
        A chain whose head row was removed is refused in one line (engine.store.heads)."""
        if self.state.last_seq == 0:
            from engine.store.heads import refuse_missing_heads

            with self.store.read() as conn:
                refuse_missing_heads(conn, [self.table])
        batch: list[Entry] = []
        for entry in self._journal.entries(self.table, self.state.last_seq + 1):
            self.state.apply_entry(entry)
            batch.append(entry)
            for callback in list(self._subscribers):
                callback(entry)
        if batch and self._batch_subscribers:
            changes, view = self._read.batch(batch)
            for batch_callback in list(self._batch_subscribers):
                batch_callback(batch, changes, view)
        elif batch:
            self._read.track(batch)
        return len(batch)

    async def close(self) -> None:
        self._subscribers.clear()
        self._batch_subscribers.clear()

    # --- every command is refused: the croupier station's process is the table's one writer ---

    async def open_bets(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def place_wager(
        self,
        user: User,
        player: str,
        bet: Bet,
        amount: Decimal | str | int,
        *,
        wager_id: str | None = None,
        seat: int | None = None,
    ) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def place_wagers(
        self, user: User, player: str, wagers: Sequence[tuple[Bet, Any]], *, seat: int | None = None
    ) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def rebet(self, user: User, player: str, *, seat: int | None = None) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def sign_in_dealer(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def sign_out_dealer(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def remove_wager(self, user: User, wager_id: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def no_more_bets(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def wheel_event(self, ev: WheelEvent | Mapping[str, Any]) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def confirm_result(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def dispute_result(self, user: User, reason: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    def hold_confirmation(self, user: User) -> bool:
        raise DrrError(READ_ONLY)

    async def resume_confirmation(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def manual_result(self, user: User, number: int, reason: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def approve_payout(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def settle(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def start_bonus_games(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def next_round(self, user: User) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def no_spin(self, user: User, reason: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def void(self, user: User, reason: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def resolve_irregularity(self, user: User, reason: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def clear_tilt(self, user: User, reason: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def accept_sensor_result(self, user: User, reason: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def set_bonus_preset(self, user: User, player: str, preset: Preset) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def bonus_start(self, user: User, player: str) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def bonus_pick(self, user: User, player: str, box: int) -> list[Entry]:
        raise DrrError(READ_ONLY)

    async def bonus_cash_out(self, user: User, player: str) -> list[Entry]:
        raise DrrError(READ_ONLY)
