"""Surveillance alerts: found in the tables' journals and statistics, journaled, acknowledged by a person.

An alert is an `alert.raised` entry on the back office's own chain (`FLOOR`), naming the table,
a severity (info, warning, critical), a kind and words. One alert stands for one fact; its id is the
fact's identity (`alert_identity`):

- a round's trouble — its irregularities, no-spins, a result before no more bets, the wheel's faults
  while it is in play — is one alert per round, `<table>:<round>:held` (a held round is one alert
  however many times the wheel spins meanwhile);
- a round's manual result, void, correction and large payout: one alert each, `<table>:<round>:<kind>`;
- the wheel's faults with no round in play, and its link going down: one per table and UTC day;
- an RNG fault: one per journal entry (each one stopped play); a silent table: one per silence;
- a statistics alert: one per table, kind and UTC day.

A further event of the same fact is an `alert.updated` entry (severity, words, the entry behind
it), never a second alert; each journal entry is taken once (the `entry` it names), so a restarted
scanner adds nothing. Acknowledging appends `alert.acknowledged` with who and when — only a role
with `acknowledge_alert` may, one alert or many at once (`acknowledge_alerts`, one entry each, one
transaction); an update after it keeps the acknowledgement and is counted as news since then.

`AlertScanner.scan(store)` reads only the table entries (and the floor's actions) appended since its
last scan (the first scan looks back `LOOKBACK` entries per chain) and raises what it finds:

- RNG faults (`rng.fault`: a generator failed its continuous health test; critical);
- the gate's tilts (`table.tilted`: critical, "software not approved" for a digest other than the
  approved one), their clearing (info), and the first start of a new digest when none is approved
  (`table.new_software`, a warning the surveillance officer acknowledges);
- sensor faults and miss-spins (wheel link faults, `round.no_spin`), irregularities;
- manual results, voids, results overridden (`round.result_corrected`);
- payouts at or above the threshold;
- the wheel's own log held against the journal (`wheel.reconciled` on the table's chain, or, made at
  a floor database where the table's chain is the forwarded copy, the `floor.action` of it on the
  floor's chain, read in the same queries, whichever tables are scanned): one alert per game it
  contradicts (`<table>:<round>:wheel log differs`, critical: a manual or corrected result, or the
  number the table heard, that the wheel's log does not hold) and one per game only the wheel's log
  has (`<table>:wheel only:<game>:<day>`, a warning: a game the table never heard);
- the wheel's physics game by game (engine.floor.wheel_alarms, thresholds from the settings'
  `wheel_alarms.*`): the direction not alternated, the rotor speed outside its band, misfires and
  failed launches above a rate, games per hour below the target (the table's and each dealer's), balls
  not detected (as many as the setting over the last games), the wheel's clock away from the PC's;
  one alert per table, kind (and dealer) and UTC day, each further game that shows it an update;
- a table silent for longer than `silent_after` while its last round is unfinished;
- a sequential bias test that tripped (`table.bias_alarm`, journaled by the table itself: a bias
  alarm, critical) and a pit boss's wheel change or maintenance (`table.wheel_serviced`, info).
A page's fixed-sample figures raise nothing (`check_view`): the sequential alarms replace them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.auth import User, require
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.floor.wheel_alarms import Alarm, TableWatch, WatchSettings
from engine.floor_events import AlertAcknowledged, AlertRaised, AlertUpdated, FloorAction
from engine.journal_types import Payload, Unknown, parse, spellings, write
from engine.round import NoSpin, ResultBeforeClose, ResultCorrected, ResultRecorded, RoundSettled, RoundVoided
from engine.store import schema
from engine.store.canonical import parse_time
from engine.store.forwarded import unwrap
from engine.store.records import NewEvent
from engine.store.users import FLOOR
from engine.table_events import (
    TILT_SOFTWARE,
    BiasAlarm,
    Irregularity,
    IrregularityResolved,
    NewSoftware,
    RngFault,
    SettingsChanged,
    TiltCleared,
    Tilted,
    WheelServiced,
)
from engine.wheel_events import (
    WheelBallNotDetected,
    WheelEvent,
    WheelGap,
    WheelLaunchFailed,
    WheelLinkState,
    WheelMissSpin,
    WheelReconciled,
    WheelRestart,
)

if TYPE_CHECKING:
    from engine.floor.surveillance import SurveillancePage
    from engine.store.db import Store

ALERT_RAISED = EntryType.ALERT_RAISED.value
ALERT_ACKNOWLEDGED = EntryType.ALERT_ACKNOWLEDGED.value
ALERT_UPDATED = EntryType.ALERT_UPDATED.value
SEVERITIES = ("info", "warning", "critical")
LOOKBACK = 5000
DEFAULT_PAYOUT_THRESHOLD = Decimal("5000")
DEFAULT_SILENT_AFTER = timedelta(minutes=10)
MIN_SILENT_AFTER = timedelta(minutes=1)  # the shortest a table may set (whole minutes)
BIAS_P = 0.001  # chi-square / sector p-value below which a table is flagged
# The wheel's messages that are a sensor fault (engine.wheel_events; the table service journals them).
WHEEL_FAULTS: tuple[type[WheelEvent], ...] = (
    WheelMissSpin, WheelLaunchFailed, WheelBallNotDetected, WheelRestart, WheelGap,
)  # fmt: skip
LINK_UP = ("connected", "up")  # a link state that is no fault
SETTINGS_CHANGED = spellings(EntryType.TABLE_SETTINGS_CHANGED)
FLOOR_ACTIONS = spellings(EntryType.FLOOR_ACTION)  # the floor chain's entries a scan reads
RECONCILED = frozenset({EntryType.WHEEL_RECONCILED})  # the floor actions it raises alerts from


@dataclass(frozen=True)
class Alert:
    alert_id: str
    table: str
    time: str
    severity: str
    kind: str
    message: str  # the latest event's words
    round_id: str | None = None
    at: str | None = None  # when the latest event behind the alert happened (the journal entry's time)
    acknowledged_by: str | None = None
    acknowledged_at: str | None = None
    # Every event of the fact, oldest first: (when it happened, severity, words).
    events: tuple[tuple[str, str, str], ...] = ()
    since_acknowledged: int = 0  # updates after the acknowledgement

    @property
    def acknowledged(self) -> bool:
        return self.acknowledged_by is not None

    @property
    def count(self) -> int:
        return max(1, len(self.events))

    @property
    def first_at(self) -> str:
        return self.events[0][0] if self.events else (self.at or self.time)


SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}
# The kinds of entry alert that are a round's trouble: one alert per round (`<table>:<round>:held`).
ROUND_TROUBLE = frozenset({"miss-spin", "irregularity", "sensor fault"})
# The kinds that are one fact per round each.
PER_ROUND = frozenset({"manual result", "void", "result overridden", "large payout"})


def alert_identity(table: str, seq: int, kind: str, round_id: str | None, time: str) -> str:
    """The id of the fact a journal entry's alert is about (the module docstring's list)."""
    if round_id is not None and kind in ROUND_TROUBLE:
        return f"{table}:{round_id}:held"
    if round_id is not None and kind in PER_ROUND:
        return f"{table}:{round_id}:{kind}"
    if kind == "sensor fault":
        return f"{table}:wheel:{time[:10]}"
    return f"{table}:{seq}"


def _entry_alert(
    table: str, round_id: str | None, p: Payload | Unknown, threshold: Decimal
) -> tuple[str, str, str] | None:
    """(severity, kind, message) for a journal entry's typed payload that deserves an alert, else None."""
    rid = f"round {round_id}" if round_id else "the table"
    if isinstance(p, NoSpin):
        return "warning", "miss-spin", f"no-spin on {rid}: {p.reason or 'no reason given'}"
    if isinstance(p, ResultBeforeClose):
        return "warning", "irregularity", f"result {p.number} before bets closed on {rid}"
    if isinstance(p, Irregularity):
        return "warning", "irregularity", f"{rid} on hold: {_hold_words(p)}"
    if isinstance(p, ResultRecorded) and p.source == "manual":
        return "warning", "manual result", f"{p.number} entered by hand on {rid}: {p.reason or ''}"
    if isinstance(p, RoundVoided):
        return "warning", "void", f"{rid} voided: {p.reason or ''}"
    if isinstance(p, ResultCorrected):
        return (
            "critical",
            "result overridden",
            f"{rid}: result {p.old} corrected to {p.new}: {p.reason or ''}",
        )
    if isinstance(p, RngFault):
        return "critical", "rng fault", f"RNG fault on {rid}: {p.test or '?'} failed — play stopped"
    if isinstance(p, Tilted):  # the gate (engine.table.gate): a program not approved, a generator failed
        kind = "software not approved" if p.cause == TILT_SOFTWARE else "table tilted"
        return "critical", kind, f"{table} tilted, play stopped: {p.reason or '?'}"
    if isinstance(p, TiltCleared):
        return "info", "tilt cleared", f"{table}: tilt ({p.cause}) cleared by {p.by}"
    if isinstance(p, NewSoftware):
        was = (p.previous or "none")[:16]
        return (
            "warning",
            "new software",
            f"{table} started with new software {p.running[:16]}… (before: {was}); "
            "no digest is approved: check it against the approved program and acknowledge",
        )
    if isinstance(p, BiasAlarm):  # the table's own sequential test tripped (engine.table.bias_watch)
        return "critical", "bias", f"{table}: {p.words} — check the wheel"
    if isinstance(p, WheelServiced):
        return (
            "info",
            "wheel serviced",
            f"{table}: {p.what} by {p.by} ({p.reason}); the bias tests start afresh",
        )
    if isinstance(p, RoundSettled) and p.total_paid >= threshold:
        return "warning", "large payout", f"{rid} paid {p.total_paid} (threshold {threshold})"
    if isinstance(p, WHEEL_FAULTS):
        what = p.type.value.removeprefix("wheel.").replace("_", " ")
        return "warning", "sensor fault", f"wheel {what} on {rid}"
    if isinstance(p, WheelLinkState) and p.state not in LINK_UP:
        return "critical", "sensor fault", f"wheel link {p.state}: {p.detail or ''}"
    return None


# The wheel's own words for a missing ball (SS2 protocol), as a surveillance officer reads them.
WHEEL_WORDS = {
    "no-ball-flag": "the wheel signalled no ball for 5 seconds",
    "state-7": "the wheel reported that it found no ball",
}
# An unfinished round's status, as the silence alert names it.
WAITING = {
    "open": "bets are open",
    "closed": "bets are closed and the wheel's result has not come in (waiting for the wheel)",
    "result": "the result is in but the round is not settled",
    "bonus": "bonus games are being played",
}


def _hold_words(p: Irregularity) -> str:
    """What put a round on hold, in words (not "ball_not_detected: no-ball-flag")."""
    from engine.table.holds import WHAT

    kind = p.kind or ""
    what = WHAT.get(kind, kind.replace("_", " ") or "an irregularity")
    detail = WHEEL_WORDS.get(p.reason, p.reason) if p.reason else ""
    if not detail or detail.replace("_", " ") == what or detail == kind.replace("_", " "):
        return what
    return f"{what} ({detail})"


def _reconciliation_alerts(
    table: str, seq: int, time: str, p: WheelReconciled, chain: str | None = None
) -> list[AlertRaised]:
    """One alert per fact of a reconciliation (the module docstring): each game the wheel's own log
    contradicts, each game only the wheel's log holds. `chain` is the chain of the entry `seq` when
    it is not the table's (FLOOR: a reconciliation made at the floor database, a `floor.action`);
    the alerts' ids are the same wherever it was journaled, the entry each was taken from its own."""
    out: list[AlertRaised] = []
    chain = chain or table
    where = f" ({p.source})" if p.source else ""
    for i, g in enumerate(p.differ):
        rid = g.round_id
        alert_id = (
            f"{table}:{rid}:wheel log differs"
            if rid
            else f"{table}:game {g.game}:wheel log differs:{time[:10]}"
        )
        words = (
            f"round {rid or '?'} (wheel game {g.game:03d}): the journal has {g.journal}, the wheel's own log "
            f"{g.wheel}{where}: check the result against the wheel and the camera"
        )
        entry = f"{chain}:{seq}:d{i}"
        out.append(AlertRaised(alert_id, table, "critical", "wheel log differs", words, rid, time, entry))
    for i, g in enumerate(p.wheel_only):
        words = (
            f"wheel game {g.game:03d} ({g.wheel}) is in the wheel's own log but not in the journal{where}: "
            "a game was played the table did not hear"
        )
        alert_id = f"{table}:wheel only:{g.game}:{time[:10]}"
        kind, entry = "wheel game not journaled", f"{chain}:{seq}:w{i}"
        out.append(AlertRaised(alert_id, table, "warning", kind, words, None, time, entry))
    return out


# The physics alarms' kinds as the alerts panel shows them (engine.floor.wheel_alarms' names).
WHEEL_ALARM_KINDS = {
    "direction_not_alternated": "wheel direction",
    "rotor_speed": "rotor speed",
    "misfires": "misfires",
    "games_per_hour": "games per hour",
    "ball_not_detected": "ball not detected",
    "wheel_clock": "wheel clock",
}


def _wheel_alarm(table: str, seq: int, time: str, round_id: str | None, alarm: Alarm) -> AlertRaised:
    """A physics alarm as an alert: one per table, kind (and dealer) and UTC day; later games update it."""
    kind = WHEEL_ALARM_KINDS[alarm.kind]
    who = f":{alarm.dealer}" if alarm.dealer is not None else ""
    game = f"wheel game {alarm.game:03d}: " if alarm.game is not None else ""
    return AlertRaised(
        f"{table}:{kind}{who}:{time[:10]}",
        table,
        "warning",
        kind,
        f"{game}{alarm.detail}",
        round_id,
        at=time,
        entry=f"{table}:{seq}:{alarm.kind}{who}",
    )


def _read(kind: str, payload: str, where: str) -> Payload | Unknown | DrrError:
    """A scanned entry's typed payload, or the DrrError saying why it cannot be read (a scan never
    stops on one odd entry)."""
    try:
        return parse(kind, json.loads(payload), where=where)
    except DrrError as exc:
        return exc
    except ValueError:
        return DrrError(f"{where} ({kind}) is not JSON")


@dataclass
class AlertScanner:
    """Finds new alerts in the store and journals them (see the module docstring)."""

    payout_threshold: Decimal = DEFAULT_PAYOUT_THRESHOLD
    silent_after: timedelta = DEFAULT_SILENT_AFTER
    bias_p: float = BIAS_P
    lookback: int = LOOKBACK  # entries per table read by the first scan
    station: str = "surveillance"
    seen: dict[str, int] = field(default_factory=dict)  # table -> last seq scanned
    known: set[str] | None = None  # alert ids already raised (loaded from the journal on first use)
    # table -> (the seq its settings were read up to, its silent limit)
    silent_limits: dict[str, tuple[int, timedelta]] = field(default_factory=dict)
    wheel: WatchSettings = field(default_factory=WatchSettings)  # the physics alarms' thresholds
    watches: dict[str, TableWatch] = field(default_factory=dict)  # table -> its wheel followed

    def scan(self, store: Store, tables: list[str], now: datetime | None = None) -> list[Alert]:
        """Raise what the entries appended to `tables` since the last scan say, and their silences.

        A few queries for all the tables at once, however many moved: their heads with the time of
        their last entry, the new entries of every table that moved, and (only for a table quiet long
        enough to be silent) the status of its last round, and (only for the silent ones) that
        round's entries, to tell a hold from a round waiting for the wheel."""
        now = now or datetime.now(UTC)
        found: list[AlertRaised] = []
        # (where in `found`, table, alert id, minutes, round status): worded once their holds are read
        silences: list[tuple[int, str, str, int, str]] = []
        tables = [t for t in tables if t != FLOOR]
        with store.read() as conn:
            # The floor's chain in the same reads: a reconciliation made at the floor database is a
            # `floor.action` there (engine.store.forwarded), of whichever table it names.
            heads = _heads_and_times(conn, [*tables, FLOOR])
            todo = {}
            for table, (head, _last) in heads.items():
                start = self.seen.get(table, max(0, head - self.lookback)) + 1
                if start <= head:
                    todo[table] = (start, head)
            new = _entries_between(conn, todo, only={FLOOR: FLOOR_ACTIONS})
            floor_head = heads.pop(FLOOR, None)
            quiet = [
                t
                for t, (_head, last) in heads.items()
                if last and now - parse_time(last) > min(MIN_SILENT_AFTER, self.silent_after)
            ]
            latest = _latest_rounds(conn, quiet) if quiet else {}
            for table in dict.fromkeys(tables):
                if table not in heads:
                    continue
                head, last = heads[table]
                for seq, time, kind, round_id, text in new.get(table, ()):
                    p = _read(kind, text, f"journal entry {seq} of table {table}")
                    if isinstance(p, DrrError):  # the chain's verification reports it (drr audit verify)
                        continue
                    self._note_settings(table, seq, p)
                    if isinstance(p, WheelReconciled):
                        found.extend(_reconciliation_alerts(table, seq, time, p))
                    watch = self.watches.setdefault(table, TableWatch(self.wheel))
                    for alarm in watch.feed(p, time):
                        found.append(_wheel_alarm(table, seq, time, round_id, alarm))
                    hit = _entry_alert(table, round_id, p, self.payout_threshold)
                    if hit is not None:
                        alert_id = alert_identity(table, seq, hit[1], round_id, time)
                        raised = AlertRaised(alert_id, table, *hit, round_id, at=time, entry=f"{table}:{seq}")
                        found.append(raised)
                self.seen[table] = head
                open_round = latest[table][0] if table in latest else None
                if table in quiet and open_round not in (None, "settled", "void"):
                    silence = now - parse_time(last)  # type: ignore[arg-type]  # quiet: a last entry
                    limit = self._silent_limit(conn, table, head)
                    alert_id = f"{table}:silent:{last}"
                    if silence > limit and (self.known is None or alert_id not in self.known):
                        minutes = int(limit.total_seconds() // 60)
                        silences.append((len(found), table, alert_id, minutes, str(open_round)))
            found.extend(self._floor_reconciliations(new.get(FLOOR, ())))
            if floor_head is not None:
                self.seen[FLOOR] = floor_head[0]
            # A hold waits for a pit boss, not for the wheel: the words say which (one read for all).
            holds = _round_holds(
                conn, {t: (latest[t][1], latest[t][2], heads[t][0]) for _, t, *_ in silences}
            )
        for where, table, alert_id, minutes, open_round in reversed(silences):
            hold = holds.get(table)
            waiting = (
                f"on hold for a pit boss: {hold}"
                if hold is not None
                else f"unfinished: {WAITING.get(open_round, open_round)}"
            )
            words = f"no activity at the table for over {minutes} min while a round is {waiting}"
            found.insert(where, AlertRaised(alert_id, table, "warning", "table silent", words, None))
        return self._raise(store, found)

    @staticmethod
    def _floor_reconciliations(rows: Iterable[tuple[int, str, str, str | None, str]]) -> list[AlertRaised]:
        """The alerts of the reconciliations journaled on the floor's chain (`floor.action` entries of
        `wheel.reconciled`, made at a floor database where the table's chain is the forwarded copy):
        the same facts as the table's own `wheel.reconciled` raises, the table named by the action."""
        found: list[AlertRaised] = []
        for seq, time, kind, _round_id, text in rows:
            action = _read(kind, text, f"floor entry {seq}")
            if not isinstance(action, FloorAction):
                continue
            p = unwrap(action, RECONCILED, where=f"floor entry {seq}")
            if isinstance(p, WheelReconciled):
                found.extend(_reconciliation_alerts(action.table, seq, time, p, chain=FLOOR))
        return found

    def _note_settings(self, table: str, seq: int, payload: Payload | Unknown) -> None:
        """A scanned `table.settings_changed` keeps the table's silent limit current without a query."""
        cached = self.silent_limits.get(table)
        if cached is not None and seq > cached[0] and isinstance(payload, SettingsChanged):
            self.silent_limits[table] = (seq, _limit_from(payload, cached[1]))

    def _silent_limit(self, conn: Any, table: str, head: int) -> timedelta:
        """The table's own silent_after_minutes (a pit boss's table.settings_changed), else the
        scanner's. Read once per table; the settings scanned since (`_note_settings`) keep it current."""
        cached = self.silent_limits.get(table)
        if cached is not None:
            return cached[1]
        j = schema.journal
        limit = self.silent_after
        for seq, kind, text in conn.execute(
            sa.select(j.c.seq, j.c.type, j.c.payload)
            .where(j.c.table_id == table, j.c.seq <= head, j.c.type.in_(SETTINGS_CHANGED))
            .order_by(j.c.seq)
        ):
            settings = _read(kind, text, f"journal entry {seq} of table {table}")
            if isinstance(settings, SettingsChanged):
                limit = _limit_from(settings, limit)
        self.silent_limits[table] = (head, limit)
        return limit

    def _raise(self, store: Store, events: list[AlertRaised]) -> list[Alert]:
        """`raise_alerts` for the candidates: an alert this scanner has not seen raised is raised,
        a further event of one it has is an update (most repeats stop here, without a query); the
        journal is still checked, for other stations' alerts and entries taken before."""
        if self.known is None:
            self.known = {a.alert_id for a in list_alerts(store, limit=10**9)}
        for e in events:
            self.known.add(e.alert_id)
        return raise_alerts(store, events)

    def check_view(self, store: Store, view: SurveillancePage) -> list[Alert]:
        """What a surveillance page's fixed-sample figures raise: nothing since issue 27.

        The chi-square, z-score, hottest-sector and repeats figures are recomputed over whatever
        window is on screen; re-testing them at every refresh has no false-alarm rate anyone can plan
        for, and they raised alerts only while a page was open (issue 25: never below the sample size
        the page says is needed). The table's sequential tests (engine.sequential, journaled as
        `table.bias_alarm` by the table itself, raised by `scan`) are what raises a bias alarm now;
        the figures stay on the page as the lab's statistics."""
        del store, view
        return []


def _limit_from(payload: SettingsChanged, limit: timedelta) -> timedelta:
    """The silent limit after one `table.settings_changed` (unchanged if it sets none)."""
    minutes = payload.changes.get("silent_after_minutes")
    if minutes is not None:
        with contextlib.suppress(ValueError, OverflowError):  # checked when journaled; be safe
            return timedelta(minutes=int(minutes))
    return limit


def _heads_and_times(conn: sa.Connection, tables: list[str]) -> dict[str, tuple[int, str | None]]:
    """Each table's head seq and the time of its entry at the head, in one query."""
    if not tables:
        return {}
    h, j = schema.chain_heads, schema.journal
    query = (
        sa.select(h.c.table_id, h.c.seq, j.c.time)
        .select_from(h.outerjoin(j, sa.and_(j.c.table_id == h.c.table_id, j.c.seq == h.c.seq)))
        .where(h.c.table_id.in_(sorted(set(tables))))
    )
    return {t: (int(seq), time) for t, seq, time in conn.execute(query)}


def _entries_between(
    conn: sa.Connection,
    ranges: dict[str, tuple[int, int]],
    only: dict[str, tuple[str, ...]] | None = None,
) -> dict[str, list[tuple[int, str, str, str | None, str]]]:
    """(seq, time, type, round_id, payload) of each table's entries in its (first, last) seq range, in
    seq order: one query for all the tables (each range an index range of the journal's key); a
    table `only` names, only its entries of those stored types (the floor's chain: its actions, not
    the alerts this scanner writes there)."""
    out: dict[str, list[tuple[int, str, str, str | None, str]]] = {}
    if not ranges:
        return out
    j = schema.journal
    only = only or {}

    def one(table: str, first: int, last: int) -> sa.ColumnElement[bool]:
        where = sa.and_(j.c.table_id == table, j.c.seq.between(first, last))
        return sa.and_(where, j.c.type.in_(only[table])) if table in only else where

    query = (
        sa.select(j.c.table_id, j.c.seq, j.c.time, j.c.type, j.c.round_id, j.c.payload)
        .where(sa.or_(*(one(table, first, last) for table, (first, last) in sorted(ranges.items()))))
        .order_by(j.c.table_id, j.c.seq)
    )
    for table, seq, time, kind, round_id, payload in conn.execute(query):
        out.setdefault(table, []).append((int(seq), time, kind, round_id, payload))
    return out


def _round_holds(conn: sa.Connection, rounds: dict[str, tuple[str, int, int]]) -> dict[str, str]:
    """What holds each table's round, in words, for {table: (round id, its first seq, the head)};
    a table whose round nothing holds is left out. The rounds' entries are read in one query through
    the typed readers and folded as the table's own state folds a hold (engine.table.state: an
    irregularity or a result before no more bets holds the round; a resolution, a recorded result,
    a no-spin or a void ends it). Read only for the tables found silent."""
    from engine.table.holds import WHAT

    entries = _entries_between(conn, {t: (start, head) for t, (_r, start, head) in rounds.items()})
    holds: dict[str, str] = {}
    for table, (round_id, _start, _head) in rounds.items():
        for seq, _time, kind, entry_round, text in entries.get(table, ()):
            if entry_round != round_id:
                continue
            p = _read(kind, text, f"journal entry {seq} of table {table}")
            if isinstance(p, Irregularity):
                holds[table] = _hold_words(p)
            elif isinstance(p, ResultBeforeClose):
                holds[table] = WHAT["result_before_close"]
            elif isinstance(p, (IrregularityResolved, ResultRecorded, NoSpin, RoundVoided)):
                holds.pop(table, None)
    return holds


def _latest_rounds(conn: sa.Connection, tables: list[str]) -> dict[str, tuple[str, str, int]]:
    """(status, round id, first seq) of each table's latest round (by seq; a table without rounds is
    left out), in one query: a correlated LIMIT 1 per table through ix_rounds_table_seq."""
    r, h = schema.rounds, schema.chain_heads
    latest = (
        sa.select(r.c.seq)
        .where(r.c.table_id == h.c.table_id)
        .order_by(r.c.seq.desc())
        .limit(1)
        .correlate(h)
        .scalar_subquery()
    )
    query = (
        sa.select(r.c.table_id, r.c.status, r.c.round_id, r.c.seq)
        .join(h, h.c.table_id == r.c.table_id)
        .where(h.c.table_id.in_(sorted(set(tables))), r.c.seq == latest)
    )
    return {t: (status, rid, int(seq)) for t, status, rid, seq in conn.execute(query)}


def scanner_from_settings(settings: Any, **kw: Any) -> AlertScanner:
    """An AlertScanner with the thresholds of the installation's settings (engine.config.Settings);
    the engine's defaults when `settings` is None."""
    if settings is None:
        return AlertScanner(**kw)
    return AlertScanner(
        payout_threshold=settings.payout_alert_threshold,
        silent_after=timedelta(minutes=settings.silent_table_minutes),
        bias_p=settings.bias_alert_p_value,
        wheel=settings.wheel_alarms,
        **kw,
    )


def _journaled(conn: sa.Connection, key: str, values: list[str], types: tuple[str, ...]) -> set[str]:
    """Which of `values` a floor entry of `types` names under `key`: one query for them all (a LIKE
    on the payload text: ids and entry names are unique substrings of it), each payload found then
    checked for each needle exactly."""
    j = schema.journal
    needles = {f'"{key}":{json.dumps(value)}': value for value in values}
    found: set[str] = set()
    if not needles:
        return found
    query = sa.select(j.c.payload).where(
        j.c.table_id == FLOOR,
        j.c.type.in_(types),
        sa.or_(*(j.c.payload.contains(needle, autoescape=True) for needle in needles)),
    )
    for payload in conn.execute(query).scalars():
        found.update(value for needle, value in needles.items() if needle in payload)
    return found


def raise_alerts(store: Store, events: list[AlertRaised]) -> list[Alert]:
    """Journal the candidates (one transaction): a fact not raised before is raised, a further event
    of a raised one (an `entry` not taken before) is an `alert.updated`; returns the new alerts."""
    if not events:
        return []
    with store.begin() as conn:
        known = _journaled(conn, "alert_id", sorted({e.alert_id for e in events}), (ALERT_RAISED,))
        entries = [e.entry for e in events if e.entry]
        taken = _journaled(conn, "entry", entries, (ALERT_RAISED, ALERT_UPDATED)) if entries else set()
        out: list[AlertRaised | AlertUpdated] = []
        raised: set[str] = set()
        for e in events:
            if e.entry is not None and e.entry in taken:
                continue
            if e.alert_id not in known and e.alert_id not in raised:
                raised.add(e.alert_id)
                out.append(e)
            elif e.entry is not None:  # one more event of the same fact
                out.append(AlertUpdated(e.alert_id, e.table, e.severity, e.kind, e.message, e.at, e.entry))
            else:
                continue  # a statistic's alert of the day: once
            if e.entry is not None:
                taken.add(e.entry)
        written = store.journal.append_in(conn, [write(a, table=FLOOR) for a in out]) if out else []
    store.journal.witness(written)  # committed: the key's witness follows the signed head
    # The append may put the floor chain's own entries first (its keying): the alerts are in order.
    times = [entry.time for entry in written if entry.type == ALERT_RAISED]
    alerts = [a for a in out if isinstance(a, AlertRaised)]
    return [_alert(time, a) for time, a in zip(times, alerts, strict=True)]


def _alert(time: str, p: AlertRaised) -> Alert:
    return Alert(p.alert_id, p.table, time, p.severity, p.kind, p.message, p.round_id, p.at)


# A floor entry: seq, time, type, user and its typed payload (or why it cannot be read).
FloorRow = tuple[int, str, str, str | None, Payload | Unknown | DrrError]


def _floor_rows(rows: Any) -> list[FloorRow]:
    """The floor entries read (seq, time, type, user, payload text), each payload read once."""
    return [
        (int(seq), time, kind, user, _read(kind, text, f"floor entry {seq}"))
        for seq, time, kind, user, text in rows
    ]


@dataclass
class AlertBook:
    """The latest `limit` alerts (by when raised), each with every event of its fact and its
    acknowledgement, kept current by folding in only the floor entries appended since (`news`, read
    on any thread; `fold`, in memory): an alert raised, updated or acknowledged changes its own line,
    nothing is re-read."""

    limit: int = 500
    last_seq: int = -1  # the floor entries up to here are folded in (-1: nothing read yet)
    alerts: dict[str, Alert] = field(default_factory=dict)
    raised_at: dict[str, int] = field(default_factory=dict)  # alert id -> seq of its alert.raised

    def load(self, store: Store) -> None:
        """Read the book afresh: the latest `limit` alerts raised, then what came after the oldest."""
        j = schema.journal
        with store.read() as conn:
            head = conn.execute(
                sa.select(schema.chain_heads.c.seq).where(schema.chain_heads.c.table_id == FLOOR)
            ).scalar()
            head = -1 if head is None else int(head)
            raised = conn.execute(
                sa.select(j.c.seq, j.c.time, j.c.type, j.c.user_name, j.c.payload)
                .where(j.c.table_id == FLOOR, j.c.type == ALERT_RAISED, j.c.seq <= head)
                .order_by(j.c.seq.desc())
                .limit(self.limit)
            ).all()
            # Updates and acknowledgements come after the alert they name: read from the oldest one listed.
            later = (
                conn.execute(
                    sa.select(j.c.seq, j.c.time, j.c.type, j.c.user_name, j.c.payload)
                    .where(
                        j.c.table_id == FLOOR,
                        j.c.type.in_((ALERT_UPDATED, ALERT_ACKNOWLEDGED)),
                        j.c.seq > raised[-1].seq,
                        j.c.seq <= head,
                    )
                    .order_by(j.c.seq)
                ).all()
                if raised
                else []
            )
        self.alerts, self.raised_at, self.last_seq = {}, {}, -1
        self.fold(sorted(_floor_rows([*raised, *later]), key=lambda row: row[0]))
        self.last_seq = head

    def news(self, store: Store) -> list[FloorRow]:
        """The alert entries appended to the floor's chain since the book was last brought up to date."""
        j = schema.journal
        with store.read() as conn:
            rows = conn.execute(
                sa.select(j.c.seq, j.c.time, j.c.type, j.c.user_name, j.c.payload)
                .where(
                    j.c.table_id == FLOOR,
                    j.c.seq > self.last_seq,
                    j.c.type.in_((ALERT_RAISED, ALERT_UPDATED, ALERT_ACKNOWLEDGED)),
                )
                .order_by(j.c.seq)
            ).all()
        return _floor_rows(rows)

    def fold(self, rows: list[FloorRow]) -> set[str]:
        """Fold floor entries (in seq order) into the book; those already in are skipped. Returns the
        ids of the alerts that changed."""
        changed: set[str] = set()
        for seq, time, _kind, user, p in rows:
            if seq <= self.last_seq:
                continue
            self.last_seq = seq
            if isinstance(p, AlertRaised):
                a = _alert(time, p)
                self.alerts[a.alert_id] = replace(a, events=((a.at or time, a.severity, a.message),))
                self.raised_at[a.alert_id] = seq
                changed.add(a.alert_id)
                continue
            if not isinstance(p, AlertAcknowledged | AlertUpdated):
                continue
            found = self.alerts.get(p.alert_id)
            if found is None:
                continue
            a = found
            if isinstance(p, AlertAcknowledged):
                if not a.acknowledged:
                    by = p.by or user or "?"
                    self.alerts[a.alert_id] = replace(a, acknowledged_by=by, acknowledged_at=time)
                    changed.add(a.alert_id)
                continue
            severity = max(a.severity, p.severity, key=lambda s: SEVERITY_RANK.get(s, 0))
            self.alerts[a.alert_id] = replace(
                a,
                severity=severity,
                message=p.message,
                at=p.at or time,
                events=(*a.events, (p.at or time, p.severity, p.message)),
                since_acknowledged=a.since_acknowledged + a.acknowledged,
            )
            changed.add(a.alert_id)
        if len(self.alerts) > self.limit:  # only the latest `limit` raised stay in the book
            oldest = sorted(self.raised_at, key=self.raised_at.__getitem__)[: len(self.alerts) - self.limit]
            for alert_id in oldest:
                del self.alerts[alert_id], self.raised_at[alert_id]
                changed.add(alert_id)
        return changed

    def latest(self) -> list[Alert]:
        """The book's alerts by their latest event, newest first."""
        return sorted(self.alerts.values(), key=lambda a: (a.at or a.time, a.time), reverse=True)


def list_alerts(store: Store, *, limit: int = 500) -> list[Alert]:
    """The latest alerts (by their latest event), newest first, each with every event of its fact and
    its acknowledgement if any."""
    book = AlertBook(limit)
    book.load(store)
    return book.latest()


def acknowledge_alert(store: Store, alert_id: str, user: User, note: str = "") -> None:
    """Record who acknowledged the alert and when; refused for a role without `acknowledge_alert`."""
    acknowledge_alerts(store, [alert_id], user, note)


def acknowledge_alerts(store: Store, alert_ids: list[str], user: User, note: str = "") -> int:
    """Acknowledge several alerts at once: one `alert.acknowledged` each (as one at a time journals
    it), in one transaction; every id is checked first, so a wrong one acknowledges none. Returns how
    many were acknowledged."""
    require(user, "acknowledge_alert")
    if not alert_ids:
        raise DrrError("no alert selected")
    current = {a.alert_id: a for a in list_alerts(store, limit=100_000)}
    acks: list[NewEvent] = []
    for alert_id in dict.fromkeys(alert_ids):
        alert = current.get(alert_id)
        if alert is None:
            raise DrrError(f"no alert {alert_id}")
        if alert.acknowledged:
            raise DrrError(
                f"alert {alert_id} was acknowledged by {alert.acknowledged_by} at {alert.acknowledged_at}"
            )
        ack = AlertAcknowledged(alert_id, alert.table, user.name, user.role, note.strip())
        acks.append(write(ack, table=FLOOR, round_id=alert.round_id, user=user.name))
    store.journal.append_many(acks)
    return len(acks)
