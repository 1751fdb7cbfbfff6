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

`AlertScanner.scan(store)` reads only the table entries appended since its last scan (the first scan
looks back `LOOKBACK` entries per table) and raises what it finds:

- RNG faults (`rng.fault`: a generator failed its continuous health test; critical);
- sensor faults and miss-spins (wheel link faults, `round.no_spin`), irregularities;
- manual results, voids, results overridden (`round.result_corrected`);
- payouts at or above the threshold;
- a table silent for longer than `silent_after` while its last round is unfinished;
and, from a `TableView`, bias thresholds crossed and repeated numbers beyond chance.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.auth import User, require
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.floor_events import AlertAcknowledged, AlertRaised, AlertUpdated
from engine.journal_types import entry_type, spellings, write
from engine.store import schema
from engine.store.canonical import parse_time
from engine.store.records import NewEvent
from engine.store.stats import CHI_NEEDS, sector_needs
from engine.store.users import FLOOR

if TYPE_CHECKING:
    from engine.floor.surveillance import TableView
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
# The table service journals the wheel's messages as `wheel.<kind>` (engine/table/wheel.py).
WHEEL_FAULTS = (
    "miss_spin", "launch_failed", "ball_not_detected", "result_mismatch", "restart", "wheel_restart", "gap",
)  # fmt: skip
LINK_KINDS = ("link", "link_state")


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
    table: str, seq: int, kind: str, round_id: str | None, p: dict[str, Any], threshold: Decimal
) -> tuple[str, str, str] | None:
    """(severity, kind, message) for a journal entry that deserves an alert, else None."""
    rid = f"round {round_id}" if round_id else "the table"
    t = entry_type(kind)  # today's type (an old journal's spelling mapped); payloads read leniently:
    # a scan never stops on one odd entry
    if t is EntryType.ROUND_NO_SPIN:
        return "warning", "miss-spin", f"no-spin on {rid}: {p.get('reason') or 'no reason given'}"
    if t is EntryType.ROUND_RESULT_BEFORE_CLOSE:
        return "warning", "irregularity", f"result {p.get('number')} before bets closed on {rid}"
    if t is EntryType.ROUND_IRREGULARITY:
        what = p.get("reason") or str(p.get("kind") or "no reason given").replace("_", " ")
        return "warning", "irregularity", f"{rid} on hold: {what}"
    if t is EntryType.ROUND_RESULT and p.get("source") == "manual":
        return (
            "warning",
            "manual result",
            f"{p.get('number')} entered by hand on {rid}: {p.get('reason') or ''}",
        )
    if t is EntryType.ROUND_VOIDED:
        return "warning", "void", f"{rid} voided: {p.get('reason') or ''}"
    if t is EntryType.ROUND_RESULT_CORRECTED:
        return (
            "critical",
            "result overridden",
            f"{rid}: result {p.get('old')} corrected to {p.get('new')}: {p.get('reason') or ''}",
        )
    if t is EntryType.RNG_FAULT:
        return "critical", "rng fault", f"RNG fault on {rid}: {p.get('test') or '?'} failed — play stopped"
    if t is EntryType.ROUND_SETTLED:
        paid = Decimal(str(p.get("total_paid", p.get("paid", "0"))))
        if paid >= threshold:
            return "warning", "large payout", f"{rid} paid {paid} (threshold {threshold})"
    wheel_kind = (t or kind).rsplit(".", 1)[-1]
    if kind.startswith("wheel.") and wheel_kind in WHEEL_FAULTS:
        return "warning", "sensor fault", f"wheel {wheel_kind.replace('_', ' ')} on {rid}"
    if kind.startswith("wheel.") and wheel_kind in LINK_KINDS and p.get("state") not in ("connected", "up"):
        return "critical", "sensor fault", f"wheel link {p.get('state')}: {p.get('detail') or ''}"
    return None


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
    silent_limits: dict[str, tuple[int, timedelta]] = field(default_factory=dict)  # table -> (head, limit)

    def scan(self, store: Store, tables: list[str], now: datetime | None = None) -> list[Alert]:
        found: list[NewEvent] = []
        j = schema.journal
        now = now or datetime.now(UTC)
        with store.read() as conn:
            for table in tables:
                head = conn.execute(
                    sa.select(schema.chain_heads.c.seq).where(schema.chain_heads.c.table_id == table)
                ).scalar()
                if head is None:
                    continue
                start = self.seen.get(table, max(0, int(head) - self.lookback)) + 1
                rows = conn.execute(
                    sa.select(j.c.seq, j.c.time, j.c.type, j.c.round_id, j.c.payload)
                    .where(j.c.table_id == table, j.c.seq >= start)
                    .order_by(j.c.seq)
                ).all()
                for seq, time, kind, round_id, payload in rows:
                    hit = _entry_alert(table, seq, kind, round_id, json.loads(payload), self.payout_threshold)
                    if hit is not None:
                        alert_id = alert_identity(table, seq, hit[1], round_id, time)
                        found.append(_event(alert_id, table, *hit, round_id, at=time, entry=f"{table}:{seq}"))
                self.seen[table] = int(head)
                last = conn.execute(
                    sa.select(j.c.time).where(j.c.table_id == table, j.c.seq == int(head))
                ).scalar()
                open_round = conn.execute(
                    sa.select(schema.rounds.c.status)
                    .where(schema.rounds.c.table_id == table)
                    .order_by(schema.rounds.c.seq.desc())
                    .limit(1)
                ).scalar()
                silence = now - parse_time(last) if last else timedelta(0)
                if (
                    open_round not in (None, "settled", "void")
                    and silence > min(MIN_SILENT_AFTER, self.silent_after)
                    and silence > (limit := self._silent_limit(conn, table, int(head)))
                ):
                    minutes = int(limit.total_seconds() // 60)
                    found.append(
                        _event(
                            f"{table}:silent:{last}",
                            table,
                            "warning",
                            "table silent",
                            f"nothing journaled for over {minutes} min with a round {open_round}",
                            None,
                        )
                    )
        return self._raise(store, found)

    def _silent_limit(self, conn: Any, table: str, head: int) -> timedelta:
        """The table's own silent_after_minutes (a pit boss's table.settings_changed), else the
        scanner's. Read once per silence (the head does not move while a table is silent)."""
        cached = self.silent_limits.get(table)
        if cached is not None and cached[0] == head:
            return cached[1]
        j = schema.journal
        limit = self.silent_after
        for payload in conn.execute(
            sa.select(j.c.payload)
            .where(j.c.table_id == table, j.c.type.in_(spellings(EntryType.TABLE_SETTINGS_CHANGED)))
            .order_by(j.c.seq)
        ).scalars():
            minutes = json.loads(payload).get("changes", {}).get("silent_after_minutes")
            if minutes is not None:
                with contextlib.suppress(ValueError, OverflowError):  # checked when journaled; be safe
                    limit = timedelta(minutes=int(minutes))
        self.silent_limits[table] = (head, limit)
        return limit

    def _raise(self, store: Store, events: list[NewEvent]) -> list[Alert]:
        """`raise_alerts` for the candidates: an alert this scanner has not seen raised is raised,
        a further event of one it has is an update (most repeats stop here, without a query); the
        journal is still checked, for other stations' alerts and entries taken before."""
        if self.known is None:
            self.known = {a.alert_id for a in list_alerts(store, limit=10**9)}
        for e in events:
            self.known.add(e.payload["alert_id"])
        return raise_alerts(store, events)

    def check_view(self, store: Store, view: TableView) -> list[Alert]:
        """Bias and repeats alerts from a surveillance page (at most once per table, kind and day)."""
        s = view.stats
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        found: list[NewEvent] = []
        p = s["chi_square"]["p_value"]
        if p is not None and p < self.bias_p and s["spins"] >= CHI_NEEDS:  # too few: no test to speak of
            found.append(
                _event(
                    f"{view.table}:bias-chi:{day}",
                    view.table,
                    "critical",
                    "bias",
                    f"{s['chi_square'].get('words') or f'chi-square p = {p:.2g}'} at {s['spins']:,} spins"
                    f" ({view.window.label})",
                    None,
                )
            )
        if s["z_scores"]["flagged"]:
            numbers = ", ".join(str(n) for n in s["z_scores"]["flagged"])
            found.append(
                _event(
                    f"{view.table}:bias-z:{day}",
                    view.table,
                    "warning",
                    "bias",
                    f"number(s) {numbers} beyond the Bonferroni limit ({view.window.label})",
                    None,
                )
            )
        sector = s["sectors"].get("5")
        if (
            sector
            and sector["p_value"] is not None
            and sector["p_value"] < self.bias_p
            and s["spins"] >= sector_needs(5)
        ):
            found.append(
                _event(
                    f"{view.table}:bias-sector:{day}",
                    view.table,
                    "warning",
                    "bias",
                    f"sector {sector['numbers']} p = {sector['p_value']:.2g} ({view.window.label})",
                    None,
                )
            )
        if view.repeats["flagged"]:
            r = view.repeats
            found.append(
                _event(
                    f"{view.table}:repeats:{day}",
                    view.table,
                    "warning",
                    "repeats",
                    f"{r['repeats']} repeats in {r['pairs']:,} pairs (expected {r['expected']:.1f}),"
                    f" longest run {r['longest_run']}",
                    None,
                )
            )
        return self._raise(store, found)


def scanner_from_settings(settings: Any, **kw: Any) -> AlertScanner:
    """An AlertScanner with the thresholds of the installation's settings (engine.config.Settings);
    the engine's defaults when `settings` is None."""
    if settings is None:
        return AlertScanner(**kw)
    return AlertScanner(
        payout_threshold=settings.payout_alert_threshold,
        silent_after=timedelta(minutes=settings.silent_table_minutes),
        bias_p=settings.bias_alert_p_value,
        **kw,
    )


def _event(
    alert_id: str,
    table: str,
    severity: str,
    kind: str,
    message: str,
    round_id: str | None,
    *,
    at: str | None = None,
    entry: str | None = None,
) -> NewEvent:
    return write(AlertRaised(alert_id, table, severity, kind, message, round_id, at, entry), table=FLOOR)


def _journaled(conn: sa.Connection, key: str, values: list[str], types: tuple[str, ...]) -> set[str]:
    """Which of `values` a floor entry of `types` names under `key` (a LIKE on the payload text: ids
    and entry names are unique substrings of it)."""
    j = schema.journal
    found: set[str] = set()
    for value in values:
        needle = f'"{key}":{json.dumps(value)}'
        hit = conn.execute(
            sa.select(j.c.seq).where(j.c.table_id == FLOOR, j.c.type.in_(types), j.c.payload.contains(needle))
        ).first()
        if hit is not None:
            found.add(value)
    return found


def raise_alerts(store: Store, events: list[NewEvent]) -> list[Alert]:
    """Journal the candidates (one transaction): a fact not raised before is raised, a further event
    of a raised one (an `entry` not taken before) is an `alert.updated`; returns the new alerts."""
    if not events:
        return []
    with store.begin() as conn:
        known = _journaled(conn, "alert_id", sorted({e.payload["alert_id"] for e in events}), (ALERT_RAISED,))
        entries = [e.payload["entry"] for e in events if e.payload.get("entry")]
        taken = _journaled(conn, "entry", entries, (ALERT_RAISED, ALERT_UPDATED)) if entries else set()
        out: list[NewEvent] = []
        raised: set[str] = set()
        for e in events:
            p = e.payload
            if p.get("entry") is not None and p["entry"] in taken:
                continue
            if p["alert_id"] not in known and p["alert_id"] not in raised:
                raised.add(p["alert_id"])
                out.append(e)
            elif p.get("entry") is not None:  # one more event of the same fact
                update = AlertUpdated(
                    p["alert_id"], p["table"], p["severity"], p["kind"], p["message"], p.get("at"), p["entry"]
                )
                out.append(write(update, table=FLOOR))
            else:
                continue  # a statistic's alert of the day: once
            if p.get("entry") is not None:
                taken.add(p["entry"])
        written = store.journal.append_in(conn, out) if out else []
    store.journal.witness(written)  # committed: the key's witness follows the signed head
    return [_alert(entry.time, entry.payload) for entry in written if entry.type == ALERT_RAISED]


def _alert(time: str, p: dict[str, Any]) -> Alert:
    return Alert(
        p["alert_id"],
        p["table"],
        time,
        p["severity"],
        p["kind"],
        p["message"],
        p.get("round_id"),
        p.get("at"),
    )


def list_alerts(store: Store, *, limit: int = 500) -> list[Alert]:
    """The latest alerts (by their latest event), newest first, each with every event of its fact and
    its acknowledgement if any."""
    j = schema.journal
    with store.read() as conn:
        raised = conn.execute(
            sa.select(j.c.seq, j.c.time, j.c.payload)
            .where(j.c.table_id == FLOOR, j.c.type == ALERT_RAISED)
            .order_by(j.c.seq.desc())
            .limit(limit)
        ).all()
        if not raised:
            return []
        # Updates and acknowledgements come after the alert they name: read from the oldest one listed.
        later = conn.execute(
            sa.select(j.c.time, j.c.type, j.c.user_name, j.c.payload)
            .where(
                j.c.table_id == FLOOR,
                j.c.type.in_((ALERT_UPDATED, ALERT_ACKNOWLEDGED)),
                j.c.seq > raised[-1].seq,
            )
            .order_by(j.c.seq)
        ).all()
    alerts: dict[str, Alert] = {}
    for _seq, time, payload in reversed(raised):
        a = _alert(time, json.loads(payload))
        alerts[a.alert_id] = replace(a, events=((a.at or time, a.severity, a.message),))
    for time, kind, user, payload in later:
        p = json.loads(payload)
        found = alerts.get(str(p.get("alert_id")))
        if found is None:
            continue
        a = found
        if kind == ALERT_ACKNOWLEDGED:
            if not a.acknowledged:
                by = p.get("by") or user or "?"
                alerts[a.alert_id] = replace(a, acknowledged_by=by, acknowledged_at=time)
            continue
        severity = max(a.severity, str(p["severity"]), key=lambda s: SEVERITY_RANK.get(s, 0))
        alerts[a.alert_id] = replace(
            a,
            severity=severity,
            message=str(p["message"]),
            at=p.get("at") or time,
            events=(*a.events, (p.get("at") or time, str(p["severity"]), str(p["message"]))),
            since_acknowledged=a.since_acknowledged + a.acknowledged,
        )
    return sorted(alerts.values(), key=lambda a: (a.at or a.time, a.time), reverse=True)


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
