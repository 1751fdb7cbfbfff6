"""The table's own bias watch (issue 27): every settled spin fed to the sequential tests
(engine.sequential), each test that trips journaled on the table's chain as `table.bias_alarm`.

`BiasWatch.catch_up(store, append)` reads the rounds settled since its last call (one indexed query)
and feeds them, in spin order, to the table's `Detector`; what trips is handed to `append` (the table
service journals through its own write path, `drr history import` through the journal). The first
call replays the table's spins since its tests last started, vectorised; so does a watch made afresh
by another process, and the facts already journaled are taken as they are:

- one alarm per fact: a test that tripped stays tripped (no second alarm) until its alarm is
  acknowledged (`alert.acknowledged` on the floor's chain of the alert `drr alerts scan` raised for
  the entry, id `<table>:<seq>`); from the first spin settled after the acknowledgement it starts
  afresh;
- a `table.wheel_serviced` entry (a pit boss's wheel change or maintenance) starts every test of the
  table afresh from the next spin; `at_spin` counts the spins since then.

The spins are the table's rounds with a result that settled (played or imported), in journal order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.journal_types import Payload, spellings, write
from engine.sequential import DEFAULT_THRESHOLDS, Alarm, Detector, Thresholds, direction_code, tests
from engine.store import schema
from engine.table_events import BiasAlarm

if TYPE_CHECKING:
    from engine.store.db import Store
    from engine.store.records import Entry

FLOOR = "floor"  # engine.store.users.FLOOR: the back office's own chain, where alerts are acknowledged
ALARM = EntryType.TABLE_BIAS_ALARM.value
SERVICED = spellings(EntryType.TABLE_WHEEL_SERVICED)
ACKNOWLEDGED = EntryType.ALERT_ACKNOWLEDGED.value
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
    detector: Detector | None = None
    epoch_seq: int = 0  # the table's tests started after this journal seq (its last wheel service)
    last_round_seq: int = 0  # rounds up to here are fed
    last_entry_seq: int = 0  # the table's journal is looked at up to here (wheel services)
    open_alarms: dict[int, str] = field(default_factory=dict)  # tripped column -> its alert id
    alarms_seen: dict[int, int] = field(default_factory=dict)  # column -> seq of its latest alarm

    def catch_up(self, store: Store, append: Append) -> list[BiasAlarm]:
        """Feed the spins settled since the last call; journal (through `append`) what trips."""
        with store.read() as conn:
            serviced = self._latest_service(conn)
            if self.detector is None or serviced > self.epoch_seq:
                return self._replay(conn, store, append, serviced)
            if self.open_alarms:
                self._restart_acknowledged(conn)
            rows = self._rounds(conn, self.last_round_seq)
        return self._feed(rows, append)

    # --- reading ---------------------------------------------------------------------------------

    def _latest_service(self, conn: sa.Connection) -> int:
        j = schema.journal
        head = conn.execute(
            sa.select(schema.chain_heads.c.seq).where(schema.chain_heads.c.table_id == self.table)
        ).scalar()
        found = conn.execute(
            sa.select(sa.func.max(j.c.seq)).where(
                j.c.table_id == self.table, j.c.seq > self.last_entry_seq, j.c.type.in_(SERVICED)
            )
        ).scalar()
        self.last_entry_seq = max(self.last_entry_seq, int(head or 0))
        return max(self.epoch_seq, int(found or 0))

    def _rounds(self, conn: sa.Connection, after: int) -> list[Any]:
        r = schema.rounds
        return list(
            conn.execute(
                sa.select(r.c.seq, r.c.round_id, r.c.result, r.c.direction, r.c.settled_at)
                .where(
                    r.c.table_id == self.table,
                    r.c.seq > after,
                    r.c.status == "settled",
                    r.c.result.is_not(None),
                )
                .order_by(r.c.seq)
            ).all()
        )

    def _journaled_alarms(self, conn: sa.Connection) -> list[tuple[int, str, BiasAlarm]]:
        j = schema.journal
        out = []
        query = (
            sa.select(j.c.seq, j.c.time, j.c.payload)
            .where(j.c.table_id == self.table, j.c.seq > self.epoch_seq, j.c.type == ALARM)
            .order_by(j.c.seq)
        )
        for seq, time, text in conn.execute(query):
            try:
                out.append((int(seq), time, BiasAlarm.from_json(json.loads(text))))
            except (KeyError, TypeError, ValueError):
                continue  # an odd entry is no fact of ours (drr audit verify reports it)
        return out

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

    def _replay(self, conn: sa.Connection, store: Store, append: Append, serviced: int) -> list[BiasAlarm]:
        """The table's spins since its tests last started, fed afresh; the alarms journaled since
        then taken as the facts they are."""
        self.epoch_seq = serviced
        self.detector = Detector(self.thresholds)
        self.open_alarms, self.alarms_seen = {}, {}
        column = {t.key: i for i, t in enumerate(tests())}
        journaled = self._journaled_alarms(conn)
        latest: dict[int, tuple[int, str]] = {}  # column -> (seq, alert id) of its latest alarm
        for seq, _time, alarm in journaled:
            if alarm.key in column:
                latest[column[alarm.key]] = (seq, alert_id(self.table, seq))
        acks = self._acknowledged(conn, [i for _seq, i in latest.values()])
        rows = self._rounds(conn, serviced)
        # Each column with an acknowledged alarm starts again at the first spin settled after it.
        starts: dict[int, list[int]] = {}
        for col, (_seq, i) in latest.items():
            if i in acks:
                first = next((k for k, row in enumerate(rows) if (row.settled_at or "") > acks[i]), len(rows))
                starts.setdefault(first, []).append(col)
        found: list[Alarm] = []
        done = 0
        for first in sorted(starts):
            found += self.detector.feed(*_series(rows[done:first]))
            self.detector.restart(starts[first])
            found = [a for a in found if a.index not in starts[first]]
            done = first
        found += self.detector.feed(*_series(rows[done:]))
        # A column whose alarm stands (unacknowledged) is tripped; what the replay found for it is
        # that same fact.
        standing = [col for col, (_seq, i) in latest.items() if i not in acks]
        self.detector.tripped[standing] = True
        self.detector.state[standing] = 0
        for col in standing:
            self.open_alarms[col] = latest[col][1]
        found = [a for a in found if a.index not in self.open_alarms]
        self.last_round_seq = int(rows[-1].seq) if rows else self.epoch_seq
        return self._journal(found, rows, append)

    def _restart_acknowledged(self, conn: sa.Connection) -> None:
        acks = self._acknowledged(conn, list(self.open_alarms.values()))
        done = [col for col, i in self.open_alarms.items() if i in acks]
        if done and self.detector is not None:
            self.detector.restart(done)
            for col in done:
                del self.open_alarms[col]

    def _feed(self, rows: list[Any], append: Append) -> list[BiasAlarm]:
        if not rows or self.detector is None:
            return []
        found = self.detector.feed(*_series(rows))
        self.last_round_seq = int(rows[-1].seq)
        return self._journal(found, rows, append)

    def _journal(self, found: list[Alarm], rows: list[Any], append: Append) -> list[BiasAlarm]:
        """Hand the alarms to `append` (each with the round at which it tripped) and note their ids."""
        if not found:
            return []
        assert self.detector is not None
        base = self.detector.spins - len(rows)  # rows[k] is spin base + k + 1
        items = [(payload(a), rows[a.at_spin - base - 1].round_id) for a in found]
        entries = append([(p, rid) for p, rid in items])
        by_key = {a.test.key: a.index for a in found}
        for entry in entries:
            if entry.type == ALARM:
                key = json.loads(entry.payload_text)["key"]
                col = by_key.get(key)
                if col is not None:
                    self.open_alarms[col] = alert_id(self.table, entry.seq)
                    self.alarms_seen[col] = entry.seq
        return [p for p, _rid in items]


def _series(rows: Sequence[Any]) -> tuple[list[int], list[int]]:
    return [int(row.result) for row in rows], [direction_code(row.direction) for row in rows]


def journal_append(store: Store, table: str, user: str | None = None) -> Append:
    """An `Append` that journals straight to the store (a command, not the table service)."""

    def append(items: list[tuple[Payload, str | None]]) -> Sequence[Entry]:
        return store.journal.append_many([write(p, table=table, round_id=rid, user=user) for p, rid in items])

    return append


def thresholds_of(settings: Any) -> Thresholds:
    """The thresholds of the installation's settings (engine.config.Settings); the defaults for None."""
    if settings is None:
        return DEFAULT_THRESHOLDS
    return Thresholds(
        settings.sequential_pocket,
        settings.sequential_sector,
        settings.sequential_direction,
        settings.sequential_runs,
    )


def watch_tables(
    store: Store, tables: Sequence[str], thresholds: Thresholds = DEFAULT_THRESHOLDS
) -> list[BiasAlarm]:
    """Bring the bias alarms of `tables` up to date from another process (after `drr history
    import`): each table's spins replayed, what trips and is not yet journaled journaled."""
    out: list[BiasAlarm] = []
    for table in dict.fromkeys(tables):
        out += BiasWatch(table, thresholds).catch_up(store, journal_append(store, table, "surveillance"))
    return out
