"""The table's own bias watch (issue 27): every settled spin fed to the sequential tests
(engine.sequential), each test that trips journaled on the table's chain as `table.bias_alarm`.

`BiasWatch.rebuild(store)` replays the table's spins since its tests last started (vectorised, about
3-4 s a table-year) and writes nothing; `BiasWatch.catch_up(store, append)` then reads only the rounds
settled since its last call (one indexed query), feeds them in spin order to the table's `Detector`
and hands what trips to `append` (the table service journals through its own write path, an import
through the journal). The table service (engine.table.service_core) rebuilds at its start, in place
for a short history and in a worker thread for a long one; a settlement meanwhile does nothing
(`catch_up(..., replay=False)`: a settlement never pays for history) and the replay's end feeds what
settled and journals what tripped, so the alarms are the same spins and rounds whenever the process
started. Every import (engine.store.history.import_csv) runs `watch_tables`; a surveillance chart
follows the same watch without journaling (`follow`, engine.floor.bias_trace). The facts already
journaled are taken as they are:

- one alarm per fact: a test that tripped stays tripped (no second alarm) until its alarm is
  acknowledged (`alert.acknowledged` on the floor's chain of the alert `drr alerts scan` raised for
  the entry, id `<table>:<seq>`); it starts afresh from the first spin settled after the
  acknowledgement, whether the watch feeds spin by spin or replays (a restart journals what an
  uninterrupted run does);
- a `table.wheel_serviced` entry (a pit boss's wheel change or maintenance) starts every test of the
  table afresh from the next spin; `at_spin` counts the spins since then.

The spins are the table's rounds with a result that settled (played or imported), in journal order.
The thresholds are the settings file's (engine.config.bias_thresholds), on every path.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.journal_types import Payload, read, spellings, write
from engine.sequential import DEFAULT_THRESHOLDS, Alarm, Detector, Thresholds, direction_code, tests
from engine.store import schema
from engine.store.latest import entries_of
from engine.table_events import BiasAlarm

if TYPE_CHECKING:
    from engine.store.db import Store
    from engine.store.records import Entry

log = logging.getLogger(__name__)
FLOOR = "floor"  # engine.store.users.FLOOR: the back office's own chain, where alerts are acknowledged
SERVICED = spellings(EntryType.TABLE_WHEEL_SERVICED)
ACKNOWLEDGED = EntryType.ALERT_ACKNOWLEDGED.value
# A history this short is replayed at the table's start itself (a few tens of ms); a longer one in a
# worker thread.
BIAS_INLINE_SPINS = 2_000
# What journals the alarms: (payload, round id) pairs in, the entries written out.
Append = Callable[[list[tuple[Payload, str | None]]], Sequence["Entry"]]


def alert_id(table: str, seq: int) -> str:
    """The id of the alert `drr alerts scan` raises for the alarm at `seq` (engine.floor.alerts)."""
    return f"{table}:{seq}"


def payload(alarm: Alarm) -> BiasAlarm:
    t = alarm.test
    return BiasAlarm(
        t.kind,
        t.key,
        t.pockets,
        alarm.at_spin,
        round(alarm.statistic, 4),
        round(alarm.threshold, 4),
        alarm.spins,
        alarm.hits,
        alarm.words,
        t.direction,
    )


@dataclass
class BiasWatch:
    """One table's sequential tests, kept current (see the module docstring)."""

    table: str
    thresholds: Thresholds = DEFAULT_THRESHOLDS
    detector: Detector | None = None  # None until the replay (`rebuild`) is done
    epoch_seq: int = 0  # the table's tests started after this journal seq (its last wheel service)
    last_round_seq: int = 0  # rounds up to here are fed
    last_entry_seq: int = 0  # the table's journal is looked at up to here (wheel services)
    open_alarms: dict[int, str] = field(default_factory=dict)  # tripped column -> its alert id
    alarms_seen: dict[int, int] = field(default_factory=dict)  # column -> seq of its latest alarm
    # What a replay found and nobody journaled yet (its payload, the round it tripped at): the next
    # `catch_up` journals it (a replay in a worker thread does not write).
    pending: list[tuple[Alarm, str | None]] = field(default_factory=list)
    last_alarm_seq: int = 0  # the table's journaled alarms are read up to here (`follow`)
    trace: bool = False  # the detector keeps each spin's strongest statistics (a surveillance chart)

    @property
    def ready(self) -> bool:
        """The table's history is replayed: a settlement feeds only its own spin."""
        return self.detector is not None

    def spins_to_replay(self, store: Store) -> int:
        """How many spins a replay from the table's last wheel service feeds (one indexed count)."""
        r = schema.rounds
        with store.read() as conn:
            serviced = self._latest_service(conn, look=False)
            return int(
                conn.execute(sa.select(sa.func.count()).where(*_settled(r, self.table, serviced))).scalar()
                or 0
            )

    def rebuild(self, store: Store) -> None:
        """Replay the table's spins since its tests last started (the slow part, 3-4 s a table-year:
        the table service runs it at its start, in a worker thread when it is long, never at a
        settlement). Writes nothing; what it finds waits in `pending` for the next `catch_up`."""
        with store.read() as conn:
            self._replay(conn, self._latest_service(conn))

    def warm_up(self, store: Store, caught_up: Callable[[], Awaitable[None]]) -> asyncio.Task[None] | None:
        """The table service's start: `rebuild` here when the history is short (`BIAS_INLINE_SPINS`),
        else in a worker thread, then `caught_up()` (the service feeds what settled meanwhile and
        journals what tripped, through its own write path); the task, for the service to cancel at
        its close (the next start replays again). A failure is logged: the watch never stops a table."""
        try:
            if self.spins_to_replay(store) <= BIAS_INLINE_SPINS:
                self.rebuild(store)
                return None
        except Exception:
            log.exception("table %s: the bias watch did not replay at the start", self.table)
            return None

        async def warm() -> None:
            try:
                await asyncio.to_thread(self.rebuild, store)
                await caught_up()
            except Exception:
                log.exception("table %s: the bias watch's replay failed", self.table)

        return asyncio.get_running_loop().create_task(warm(), name=f"bias-watch-{self.table}")

    def catch_up(self, store: Store, append: Append, *, replay: bool = True) -> list[BiasAlarm]:
        """Feed the spins settled since the last call; journal (through `append`) what trips. Not
        `ready` yet: with `replay`, the history is replayed first; without (the table service's
        settlement while its start's replay runs), nothing is done (that replay's end catches up)."""
        if self.detector is None and not replay:
            return []
        with store.read() as conn:
            self._read_on(conn)
            if self.pending:
                self._drop_journaled(conn)
        return self._journal(append)

    def _drop_journaled(self, conn: sa.Connection) -> None:
        """Pending alarms another writer of the chain journaled already (an import's watch and the
        running table's both see imported spins): each fact is journaled once, and the one on the
        chain is the alarm's alert."""
        on_chain = {(a.key, a.at_spin): seq for seq, _time, a in self._journaled_alarms(conn)}
        keep = []
        for alarm, rid in self.pending:
            seq = on_chain.get((alarm.test.key, alarm.at_spin))
            if seq is None:
                keep.append((alarm, rid))
            else:
                self.open_alarms[alarm.index] = alert_id(self.table, seq)
                self.alarms_seen[alarm.index] = seq
        self.pending = keep

    def follow(self, store: Store) -> None:
        """Kept current as `catch_up` keeps it, journaling nothing: a surveillance chart follows the
        table's own watch (the same replay, acknowledgements and wheel services, so the same
        statistics). What it finds tripped is the table's watch's to journal; the ids of the alarms
        journaled are read back, so an acknowledgement restarts the test here too."""
        with store.read() as conn:  # one snapshot: the alarms read back are of the spins fed
            self._read_on(conn)
            learnt = self._journaled_alarms(conn, self.last_alarm_seq)
        self.pending = []
        column = {t.key: i for i, t in enumerate(tests())}
        assert self.detector is not None
        for seq, _time, alarm in learnt:
            col = column.get(alarm.key)
            if col is not None and col not in self.open_alarms:
                if not self.detector.tripped[col]:  # journaled by a watch of other thresholds: its fact
                    self.detector.restart([col])
                    self.detector.tripped[col] = True
                self.open_alarms[col] = alert_id(self.table, seq)
            self.last_alarm_seq = max(self.last_alarm_seq, seq)

    def _read_on(self, conn: sa.Connection) -> None:
        """The spins settled since the last call fed (the history replayed first when needed)."""
        serviced = self._latest_service(conn)
        if self.detector is None or serviced > self.epoch_seq:
            self._replay(conn, serviced)
        else:
            rows = self._rounds(conn, self.last_round_seq)
            acks = self._acknowledged(conn, list(self.open_alarms.values())) if rows else {}
            self.pending += self._advance(rows, acks)

    # --- reading ---------------------------------------------------------------------------------

    def _latest_service(self, conn: sa.Connection, *, look: bool = True) -> int:
        j = schema.journal
        head = conn.execute(
            sa.select(schema.chain_heads.c.seq).where(schema.chain_heads.c.table_id == self.table)
        ).scalar()
        found = conn.execute(
            sa.select(sa.func.max(j.c.seq)).where(
                j.c.table_id == self.table, j.c.seq > self.last_entry_seq, j.c.type.in_(SERVICED)
            )
        ).scalar()
        if look:
            self.last_entry_seq = max(self.last_entry_seq, int(head or 0))
        return max(self.epoch_seq, int(found or 0))

    def _rounds(self, conn: sa.Connection, after: int) -> list[Any]:
        r = schema.rounds
        return list(
            conn.execute(
                sa.select(r.c.seq, r.c.round_id, r.c.result, r.c.direction, r.c.settled_at)
                .where(*_settled(r, self.table, after))
                .order_by(r.c.seq)
            ).all()
        )

    def _journaled_alarms(self, conn: sa.Connection, after: int = 0) -> list[tuple[int, str, BiasAlarm]]:
        """The table's alarms journaled since its tests last started (and after seq `after`); an odd
        entry is no fact of ours (drr audit verify reports it)."""
        after = max(self.epoch_seq, after)
        found = entries_of(conn, self.table, EntryType.TABLE_BIAS_ALARM, after=after, skip_malformed=True)
        return [(e.seq, e.time, a) for e, a in found if isinstance(a, BiasAlarm)]

    def _acknowledged(self, conn: sa.Connection, ids: Sequence[str]) -> dict[str, str]:
        """When each of the alerts `ids` was acknowledged (those that were)."""
        if not ids:
            return {}
        j = schema.journal
        needles = {f'"alert_id":{json.dumps(i)}': i for i in ids}
        query = sa.select(j.c.time, j.c.payload).where(
            j.c.table_id == FLOOR,
            j.c.type == ACKNOWLEDGED,
            sa.or_(*(j.c.payload.contains(n, autoescape=True) for n in needles)),
        )
        found: dict[str, str] = {}
        for time, text in conn.execute(query):
            for needle, i in needles.items():
                if needle in text:
                    found.setdefault(i, time)
        return found

    # --- feeding ---------------------------------------------------------------------------------

    def _replay(self, conn: sa.Connection, serviced: int) -> None:
        """The table's spins since its tests last started, fed afresh; the alarms journaled since
        then taken as the facts they are. The detector is set last: a settlement on the event loop
        sees the watch ready only once the worker thread's replay is whole."""
        self.epoch_seq = serviced
        detector = Detector(self.thresholds, trace=[] if self.trace else None)
        column = {t.key: i for i, t in enumerate(tests())}
        latest: dict[int, tuple[int, str]] = {}  # column -> (seq, alert id) of its latest alarm
        for seq, _time, alarm in self._journaled_alarms(conn):
            if alarm.key in column:
                latest[column[alarm.key]] = (seq, alert_id(self.table, seq))
            self.last_alarm_seq = max(self.last_alarm_seq, seq)
        self.alarms_seen = {col: seq for col, (seq, _i) in latest.items()}
        # Every column with a journaled alarm stands tripped by it until the first spin settled
        # after its acknowledgement; what the replay finds for it before then is that same fact.
        self.open_alarms = {col: i for col, (_seq, i) in latest.items()}
        rows = self._rounds(conn, serviced)
        acks = self._acknowledged(conn, list(self.open_alarms.values()))
        found = self._advance(rows, acks, detector)
        standing = list(self.open_alarms)
        detector.restart(standing)
        detector.tripped[standing] = True
        self.pending += [(a, rid) for a, rid in found if a.index not in self.open_alarms]
        self.last_round_seq = int(rows[-1].seq) if rows else self.epoch_seq
        self.detector = detector

    def _advance(
        self, rows: Sequence[Any], acks: dict[str, str], detector: Detector | None = None
    ) -> list[tuple[Alarm, str | None]]:
        """Feed `rows`; a tripped column whose alarm was acknowledged (`acks`: alert id -> time)
        starts afresh at the first of them settled after the acknowledgement, whether the watch
        feeds spin by spin or replays a year (so a restart journals what an uninterrupted run does).
        The alarms, each with the round it tripped at."""
        det = detector if detector is not None else self.detector
        if not rows or det is None:
            return []
        base = det.spins  # rows[k] is spin base + k + 1
        starts: dict[int, list[int]] = {}
        for col, i in self.open_alarms.items():
            if i in acks:
                first = next((k for k, row in enumerate(rows) if (row.settled_at or "") > acks[i]), None)
                if first is not None:
                    starts.setdefault(first, []).append(col)
        found: list[Alarm] = []
        done = 0
        for first in sorted(starts):
            found += det.feed(*_series(rows[done:first]))
            det.restart(starts[first])
            found = [a for a in found if a.index not in starts[first]]
            for col in starts[first]:
                del self.open_alarms[col]
            done = first
        found += det.feed(*_series(rows[done:]))
        self.last_round_seq = int(rows[-1].seq)
        return [(a, rows[a.at_spin - base - 1].round_id) for a in found]

    def _journal(self, append: Append) -> list[BiasAlarm]:
        """Hand the pending alarms to `append` (each with the round at which it tripped) and note
        their ids."""
        if not self.pending:
            return []
        found = self.pending
        items = [(payload(a), rid) for a, rid in found]
        entries = append([(p, rid) for p, rid in items])
        self.pending = []  # journaled (a failed append keeps them for the next call)
        by_key = {a.test.key: a.index for a, _rid in found}
        for entry in entries:
            alarm = read(entry)
            col = by_key.get(alarm.key) if isinstance(alarm, BiasAlarm) else None
            if col is not None:
                self.open_alarms[col] = alert_id(self.table, entry.seq)
                self.alarms_seen[col] = entry.seq
        return [p for p, _rid in items]


def _settled(r: Any, table: str, after: int) -> tuple[Any, ...]:
    """The table's spins after round seq `after`: its rounds with a result that settled."""
    return (r.c.table_id == table, r.c.seq > after, r.c.status == "settled", r.c.result.is_not(None))


def _series(rows: Sequence[Any]) -> tuple[list[int], list[int]]:
    return [int(row.result) for row in rows], [direction_code(row.direction) for row in rows]


def journal_append(store: Store, table: str, user: str | None = None) -> Append:
    """An `Append` that journals straight to the store (a command, not the table service)."""

    def append(items: list[tuple[Payload, str | None]]) -> Sequence[Entry]:
        return store.journal.append_many([write(p, table=table, round_id=rid, user=user) for p, rid in items])

    return append


def watch_tables(
    store: Store, tables: Sequence[str], thresholds: Thresholds = DEFAULT_THRESHOLDS
) -> list[BiasAlarm]:
    """Bring the bias alarms of `tables` up to date from another process (after `drr history
    import`): each table's spins replayed, what trips and is not yet journaled journaled."""
    out: list[BiasAlarm] = []
    for table in dict.fromkeys(tables):
        out += BiasWatch(table, thresholds).catch_up(store, journal_append(store, table, "surveillance"))
    return out
