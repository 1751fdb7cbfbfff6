"""The wheel's own log held against the table's journal, game by game (issue 26 item 2; pure).

The wheel's log keeps results and misfires in order, without game counters or times; the journal
keeps every `wheel.result` the table heard (with the wheel's game counter, which wraps after 256)
and each round's recorded result (`round.result`, then any `round.result_corrected`). The log's
last result is the journal's last game (a reconciliation runs at the table's close, or on demand
with the wheel idle); walking back, each journal game takes the log's result before, and a jump of
the counter (`g` to `g + k`, k > 1: games the table never heard) passes over k - 1 log results,
which the journal lacks (`wheel_only`). A journal game the log has no result for is `journal_only`.
What the journal recorded for a round (a manual or corrected result too) must be the log's number,
else the game is listed in `differ`. Log results before the journal's first game are earlier
shifts' and are not counted. Misfires are counted, not matched (the journal has no misfire entry).

Every reconciliation is journaled (`reconcile_table`): a `wheel.reconciled` entry
(engine.wheel_events.WheelReconciled) with its figures on the table's chain (on a floor database's
forwarded copy, as a `floor.action` on the floor's chain: engine.store.forwarded), whether it runs on
demand (`drr wheel reconcile`) or at the table's close (`drr table run --headless` with a wheel that
answers the log commands, or a replayed capture that holds the log's replies). The alert scanner
raises one alert per difference from it (engine.floor.alerts), the shift and day reports count it
(engine.floor.reports), on the floor's chain too; the table's forwarder leaves one made at the floor
there (engine.floor.inbox: nothing for the table to decide).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine.entry_types import EntryType
from engine.journal_types import spellings
from engine.store.records import Entry
from engine.wheel_events import WheelReconciled, WheelRestart, WheelResult
from hardware.protocol.ss2_log import LogEntry, WheelLog

if TYPE_CHECKING:
    from engine.auth import User
    from engine.store.db import Store

GAME_COUNTER_MAX = 256


@dataclass
class JournalGame:
    """One wheel game as the journal has it: the number the wheel reported and what was recorded."""

    game: int
    wheel_said: int
    round_id: str | None
    recorded: int | None  # the round's result when this game was its spin (None: no round's)
    restart: bool = False  # the counter restarted (power cycle) before this game: no gap to infer

    @property
    def journal(self) -> int:
        return self.recorded if self.recorded is not None else self.wheel_said


def journal_games(entries: Iterable[Entry], since: datetime | None = None) -> list[JournalGame]:
    """The wheel games in the journal, in order, one per game (a repeated report of a game is one);
    each entry read through the registry's typed payloads (engine.journal_types.read)."""
    from engine.journal_types import read
    from engine.round import NoSpin, ResultCorrected, ResultRecorded

    games: list[JournalGame] = []
    by_round: dict[str, JournalGame] = {}
    restart = False
    for e in entries:
        if e.type not in _READ:
            continue
        p = read(e)
        if isinstance(p, WheelRestart):
            restart = True
        elif isinstance(p, WheelResult) and p.game is not None:
            if since is not None and _before(p.time, since):
                continue
            game = JournalGame(p.game, p.number, e.round_id, None, restart)
            restart = False
            if games and games[-1].game == game.game and not game.restart:
                game = games[-1]  # the same game heard again (a conflict is the wheel's, not a new game)
            else:
                games.append(game)
            if e.round_id is not None and p.accepted:
                by_round[e.round_id] = game
            elif e.round_id is not None and e.round_id not in by_round:
                by_round[e.round_id] = game  # held, then recorded by hand: still this round's spin
        elif isinstance(p, ResultRecorded) and e.round_id in by_round:
            by_round[e.round_id].recorded = p.number
        elif isinstance(p, ResultCorrected) and e.round_id in by_round:
            by_round[e.round_id].recorded = p.new
        elif isinstance(p, NoSpin) and e.round_id in by_round:
            del by_round[e.round_id]  # the next spin is the round's
    return games


# The types journal_games reads; their stored names, an old journal's spellings too (the rest is not
# parsed).
_KINDS = (
    EntryType.WHEEL_RESTART,
    EntryType.WHEEL_RESULT,
    EntryType.ROUND_RESULT,
    EntryType.ROUND_RESULT_CORRECTED,
    EntryType.ROUND_NO_SPIN,
)
_READ = frozenset(spellings(*_KINDS))


def _before(time: datetime | None, since: datetime) -> bool:
    """The result's time is before `since` (a time missing or not comparable, naive against aware, is
    kept)."""
    if time is None:
        return False
    try:
        return time < since
    except TypeError:
        return False


def table_journal(store: Store, table: str) -> list[Entry]:
    """`table`'s journal as the reconciliation reads it: its chain, and, where that chain is the
    forwarded copy (a floor database: engine.store.forwarded), the pit-boss actions journaled on the
    floor's own chain for it (`floor.action`, read typed: engine.store.forwarded.floor_actions) that the
    table has not decided yet, after the chain, unwrapped into the action's own entry. An action the
    table took is in the copy already, in its place (a later correction at the table overrides it
    there); one it refused never took effect."""
    from engine.journal_types import read
    from engine.store.canonical import canonical_json
    from engine.store.forwarded import floor_actions, is_forwarded
    from engine.store.users_journal import FLOOR
    from engine.table_events import FloorActionTaken

    entries = list(store.journal.entries(table))
    if table == FLOOR or not is_forwarded(store, table):
        return entries
    decided = {
        p.floor_seq
        for e in entries
        if e.type == EntryType.TABLE_FLOOR_ACTION_TAKEN and isinstance(p := read(e), FloorActionTaken)
    }
    with store.read() as conn:
        found = list(floor_actions(conn, *_KINDS, table=table))
    for e, action, _p in found:
        if e.seq in decided:
            continue
        payload = canonical_json(dict(action.payload))
        entries.append(Entry(FLOOR, e.seq, e.time, e.user, e.round_id, action.action, payload, "", ""))
    return entries


def reconcile(games: list[JournalGame], log: list[LogEntry]) -> dict[str, Any]:
    """`drr wheel reconcile --json`'s figures (issue 26): matched, journal_only, wheel_only, differ,
    misfires."""
    results = [e.pocket for e in log if e.kind == "result"]
    out: dict[str, Any] = {
        "matched": 0,
        "journal_only": [],
        "wheel_only": [],
        "differ": [],
        "misfires": sum(1 for e in log if e.kind == "misfire"),
    }
    wi = len(results) - 1
    for j in range(len(games) - 1, -1, -1):
        g = games[j]
        if wi < 0:
            out["journal_only"].insert(0, {"round_id": g.round_id, "game": g.game, "journal": g.journal})
        else:
            wheel = results[wi]
            wi -= 1
            if wheel == g.journal and wheel == g.wheel_said:
                out["matched"] += 1
            else:
                row = {"round_id": g.round_id, "game": g.game, "journal": g.journal, "wheel": wheel}
                out["differ"].insert(0, row)
        if j > 0 and not g.restart:
            skipped = (g.game - games[j - 1].game - 1) % GAME_COUNTER_MAX
            for k in range(skipped):
                if wi < 0:
                    break
                game = (g.game - 2 - k) % GAME_COUNTER_MAX + 1
                out["wheel_only"].insert(0, {"game": game, "wheel": results[wi]})
                wi -= 1
    return out


def differs(figures: dict[str, Any]) -> bool:
    return bool(figures["journal_only"] or figures["wheel_only"] or figures["differ"])


def reconciled_entry(
    figures: dict[str, Any],
    record: WheelLog,
    *,
    source: str,
    occasion: str,
    since: datetime | None = None,
    by: str | None = None,
) -> WheelReconciled:
    """The `wheel.reconciled` payload of `reconcile`'s figures and the log they were read from."""
    untrusted = tuple(sorted(k for k, page in record.pages.items() if not page.checksum_ok))
    return WheelReconciled.of(
        figures,
        source=source,
        occasion=occasion,
        since=None if since is None else since.isoformat(),
        pages_used=record.pages_used,
        pages_untrusted=untrusted,
        wins_total=None if record.wins is None else sum(record.wins),
        misfires_total=None if record.misfires is None else sum(record.misfires),
        by=by,
    )


def reconcile_table(
    store: Store,
    table: str,
    record: WheelLog,
    *,
    source: str,
    occasion: str,
    since: datetime | None = None,
    user: User | None = None,
) -> WheelReconciled:
    """Hold the wheel's log `record` against `table`'s journal and journal the reconciliation."""
    from engine.journal_types import write
    from engine.store.forwarded import action_event

    games = journal_games(table_journal(store, table), since)
    figures = reconcile(games, record.entries())
    name = None if user is None else user.name
    entry = reconciled_entry(figures, record, source=source, occasion=occasion, since=since, by=name)
    store.journal.append_many([action_event(store, write(entry, table=table, user=name))])
    return entry
