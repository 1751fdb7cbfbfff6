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

A long journal is not folded from its first entry: the fold starts at the last round's
`round.opened`, seeded with what still matters from before (Rules Submissions, bonus presets, the
number of rounds; see `recover`). The counts of settled and void rounds then come from the `rounds`
projection (a round voided from the floor after settlement counts as void there).

A transaction cut short by SIGKILL left no rows (SQLite WAL / PostgreSQL roll it back), so what was
decided inside it was never shown to anyone and is simply decided again.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from engine.errors import DrrError
from engine.rng import Rng, SystemRng
from engine.store import schema
from engine.store.canonical import GENESIS_HASH
from engine.store.db import Store
from engine.store.journal import Journal
from engine.store.records import Entry, row_to_entry
from engine.store.verify import entry_problem
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


# Rules Submissions, bonus presets, settings, the dealer, quarantine (the round numbers a quarantined
# store used, engine.store.evidence): named in engine.store.schema with the partial index that finds them.
SEED_TYPES = schema.SEED_TYPES


def recover(state: TableState, journal: Journal, *, from_last_round: bool = True) -> RecoveryReport:
    """Fold every journal entry of `state.table` after `state.last_seq` into `state`.

    With `from_last_round` (and a fresh state) the fold starts at the last round's `round.opened`
    (found through the `rounds` projection, written in the same transactions as the journal): the
    rounds before it are finished and only their Rules Submissions, the players' bonus presets and
    the counts of rounds still matter, so a restart stays quick after years of play."""
    if from_last_round and state.last_seq == 0:
        _seed_from_last_round(state, journal)
    count = 0
    prev = _hash_before(journal, state.table, state.last_seq + 1)
    for entry in journal.entries(state.table, state.last_seq + 1):
        _check(entry, prev)
        state.apply_entry(entry)
        prev = entry.hash
        count += 1
    r = state.round
    return RecoveryReport(
        entries=count,
        last_seq=state.last_seq,
        round_id=state.round_id if state.in_play else None,
        phase=state.phase.value,
        wagers=len(r.wagers) if r is not None else 0,
        bonus_games=tuple(state.games),
        hold=state.hold.kind if state.hold is not None else None,
    )


def _check(entry: Entry, prev_hash: str | None) -> None:
    """Refuse to fold an entry that is not as written: a table never plays on (or pays) an altered
    wager, draw or Rules Submission. Only the entries folded are checked (a restart stays quick);
    `drr audit verify` checks the whole chain."""
    problem = entry_problem(entry, prev_hash)
    if problem is not None:
        raise DrrError(
            f"table {entry.table}: journal entry {entry.seq} {problem}; the table does not start on an "
            "altered journal (run drr audit verify, restore the last copy that verifies)"
        )


def _hash_before(journal: Journal, table: str, seq: int) -> str:
    """The hash the entry `seq` must name as its predecessor's: the first fold of a restart is tied to
    the chain before it, so a rewritten tail from the last round on is caught too."""
    if seq <= 1:
        return GENESIS_HASH
    j = schema.journal
    with journal.store.read() as conn:
        found = conn.execute(sa.select(j.c.hash).where(j.c.table_id == table, j.c.seq == seq - 1)).scalar()
    if found is None:
        raise DrrError(
            f"table {table}: journal entry {seq - 1} is missing (removed); the table does not start on an "
            "altered journal (run drr audit verify, restore the last copy that verifies)"
        )
    return str(found)


def rebuild(store: Store, table: str, rng: Rng | None = None, *, from_last_round: bool = True) -> TableState:
    """The table's state from its journal, read-only (no owner claim): for inspection and tests."""
    state = TableState(table, rng or SystemRng())
    recover(state, Journal(store), from_last_round=from_last_round)
    return state


def _seed_from_last_round(state: TableState, journal: Journal) -> None:
    r, j = schema.rounds, schema.journal
    table = state.table
    mine = (r.c.table_id == table, r.c.source == "table")
    with journal.store.read() as conn:
        last = conn.execute(
            sa.select(r.c.seq, r.c.status).where(*mine).order_by(r.c.seq.desc()).limit(1)
        ).first()
        if last is None or int(last.seq) <= 1:
            return
        start = int(last.seq)
        by_status = conn.execute(sa.select(r.c.status, sa.func.count()).where(*mine).group_by(r.c.status))
        counts: dict[str, int] = {str(status): int(n) for status, n in by_status.all()}
        rows = conn.execute(
            sa.select(j)
            .where(j.c.table_id == table, j.c.seq < start, schema.SEED_FILTER)  # by ix_journal_seed
            .order_by(j.c.seq)
        ).all()
    # The last round is folded again from its round.opened: it is not counted here.
    opened = sum(counts.values()) - 1
    settled = counts.get("settled", 0) - (last.status == "settled")
    voided = counts.get("void", 0) - (last.status == "void")
    history = [row_to_entry(row) for row in rows]
    for entry in history:
        _check(entry, None)
    state.seed(
        last_seq=start - 1,
        history=history,
        rounds_opened=opened,
        rounds_settled=settled,
        rounds_voided=voided,
    )
