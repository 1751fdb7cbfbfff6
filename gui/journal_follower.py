"""A table followed from its journal, read-only: the player display or bonus screen on another PC.

The croupier station's process owns the table (one writer per table, `Store.claim`). A second
screen in another process must not claim it, so it rebuilds the same `TableState` the service
keeps by folding the journal (`engine.table.state.TableState.apply_entry`, the fold recovery runs),
and folds the new entries each time the store says the table moved (`gui.floor.watch.StoreWatch`:
PRAGMA data_version on SQLite, LISTEN/NOTIFY on PostgreSQL). It stands in for the `TableService`
behind `gui.service_table.ServiceTable`, so these screens show exactly what the croupier's do;
every command is refused with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.errors import DrrError
from engine.rng import SystemRng
from engine.rules import RulesSubmission
from engine.store.db import Store
from engine.store.journal import Entry, Journal
from engine.table.state import TableState

READ_ONLY = "this screen follows the table's journal and changes nothing: use the croupier station"


class JournalFollower:
    """The parts of `TableService` that `ServiceTable` reads, kept up to date by `poll()`."""

    def __init__(self, store: Store, table: str) -> None:
        self.store = store
        self.table = table
        self.state = TableState(table, SystemRng())  # never draws: the draw is read from the journal
        self._journal = Journal(store)
        self._subscribers: list[Callable[[Entry], Any]] = []
        self.poll()

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def rules(self) -> RulesSubmission | None:
        return self.state.rules

    def approval_needed(self) -> None:
        """Approvals are the croupier station's business; a follower shows none."""
        return None

    def subscribe(self, callback: Callable[[Entry], Any]) -> Callable[[], None]:
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def poll(self) -> int:
        """Fold the entries journaled since the last poll; tell the subscribers of each. Returns how many."""
        count = 0
        for entry in self._journal.entries(self.table, self.state.last_seq + 1):
            self.state.apply_entry(entry)
            count += 1
            for callback in list(self._subscribers):
                callback(entry)
        return count

    async def close(self) -> None:
        self._subscribers.clear()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        # Every command of the service (open_bets, bonus_pick, …) is refused the same way.
        if name.startswith("_"):
            raise AttributeError(name)

        async def refuse(*_args: Any, **_kwargs: Any) -> None:
            raise DrrError(READ_ONLY)

        return refuse
