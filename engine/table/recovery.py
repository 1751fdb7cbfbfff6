"""Restart after a crash: rebuild the table from its journal, entry by entry, each exactly once.

The journal is the only truth (write-ahead: the service acts on nothing that is not durable), so
recovery is the same fold the live service runs (`TableState.apply_entry`), over the entries read
back in chain order from the first one the state has not seen:

- an open round keeps its wagers (every `round.wager_placed` / `round.wager_removed` folded again);
- drawn Lucky Numbers stay: the draw is read from `round.bets_closed`, never made again (the round
  is CLOSED, so `close_bets` refuses to draw twice);
- a result not yet settled is settled once: the round comes back in RESULT/BONUS and `settle`
  is the next step; a round whose `round.settled` is journaled is SETTLED and refuses another;
- a bonus game resumes at its round: its events are folded, and `TableService.start` journals a
  `bonus.timer_restarted` with a fresh deadline (the old one passed while the table was down);
- no entry is lost or applied twice: `apply_entry` demands seq = last + 1, so a replay from any
  point continues exactly where the state stopped.

A transaction cut short by SIGKILL left no rows (SQLite WAL / PostgreSQL roll it back), so what was
decided inside it was never shown to anyone and is simply decided again.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.rng import Rng, SystemRng
from engine.store.db import Store
from engine.store.journal import Journal
from engine.table.state import TableState


@dataclass(frozen=True)
class RecoveryReport:
    """What recovery found: how far the journal goes and what was in play."""

    entries: int  # folded by this recovery
    last_seq: int
    round_id: str | None
    phase: str
    wagers: int
    bonus_games: tuple[str, ...]
    hold: str | None

    def describe(self) -> str:
        where = f"round {self.round_id} {self.phase.upper()}" if self.round_id else "no round in play"
        extra = f", {self.wagers} wagers" if self.round_id else ""
        hold = f", irregularity '{self.hold}' on hold" if self.hold else ""
        games = f", bonus games of {', '.join(self.bonus_games)}" if self.bonus_games else ""
        return f"recovered {self.entries} journal entries up to #{self.last_seq}: {where}{extra}{games}{hold}"


def recover(state: TableState, journal: Journal) -> RecoveryReport:
    """Fold every journal entry of `state.table` after `state.last_seq` into `state`."""
    count = 0
    for entry in journal.entries(state.table, state.last_seq + 1):
        state.apply_entry(entry)
        count += 1
    r = state.round
    return RecoveryReport(
        entries=count,
        last_seq=state.last_seq,
        round_id=state.round_id if state.in_play else None,
        phase=state.phase,
        wagers=len(r.wagers) if r is not None else 0,
        bonus_games=tuple(state.games),
        hold=state.hold.kind if state.hold is not None else None,
    )


def rebuild(store: Store, table: str, rng: Rng | None = None) -> TableState:
    """The table's state from its journal, read-only (no owner claim): for inspection and tests."""
    state = TableState(table, rng or SystemRng())
    recover(state, Journal(store))
    return state
