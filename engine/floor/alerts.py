"""Surveillance alerts: found in the tables' journals and statistics, journaled, acknowledged by a person.

An alert is an `alert.raised` entry on the back office's own chain (`FLOOR`), naming the table,
a severity (info, warning, critical), a kind and words; its id makes it once-only (the same event
never raises twice, a statistics alert at most once per table, kind and UTC day). Acknowledging
appends `alert.acknowledged` with who and when — only a role with `acknowledge_alert` may.

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
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.auth import User, require
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.floor_events import AlertAcknowledged, AlertRaised
from engine.journal_types import entry_type, spellings, write
from engine.store import schema
from engine.store.canonical import parse_time
from engine.store.records import NewEvent
from engine.store.users import FLOOR

if TYPE_CHECKING:
    from engine.floor.surveillance import TableView
    from engine.store.db import Store

ALERT_RAISED = EntryType.ALERT_RAISED.value
ALERT_ACKNOWLEDGED = EntryType.ALERT_ACKNOWLEDGED.value
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
    message: str
    round_id: str | None = None
    at: str | None = None  # when the event behind the alert happened (the journal entry's time)
    acknowledged_by: str | None = None
    acknowledged_at: str | None = None

    @property
    def acknowledged(self) -> bool:
        return self.acknowledged_by is not None


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
        return "warning", "irregularity", f"irregularity on {rid}: {p.get('kind') or p.get('reason') or '?'}"
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
                        found.append(_event(f"{table}:{seq}", table, *hit, round_id, at=time))
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
        """`raise_alerts` for the candidates this scanner has not seen raised (most repeats stop here,
        without a query); the rest are still checked against the journal, for other stations' alerts."""
        if self.known is None:
            self.known = {a.alert_id for a in list_alerts(store, limit=10**9)}
        fresh = [e for e in events if e.payload["alert_id"] not in self.known]
        self.known.update(e.payload["alert_id"] for e in fresh)
        return raise_alerts(store, fresh)

    def check_view(self, store: Store, view: TableView) -> list[Alert]:
        """Bias and repeats alerts from a surveillance page (at most once per table, kind and day)."""
        s = view.stats
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        found: list[NewEvent] = []
        p = s["chi_square"]["p_value"]
        if p is not None and p < self.bias_p:
            found.append(
                _event(
                    f"{view.table}:bias-chi:{day}",
                    view.table,
                    "critical",
                    "bias",
                    f"chi-square p = {p:.2g} at {s['spins']:,} spins ({view.window.label})",
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
        if sector and sector["p_value"] is not None and sector["p_value"] < self.bias_p:
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
) -> NewEvent:
    return write(AlertRaised(alert_id, table, severity, kind, message, round_id, at), table=FLOOR)


def _known_ids(conn: sa.Connection, ids: list[str]) -> set[str]:
    """Which of `ids` are already raised (a LIKE on the payload text: ids are unique substrings)."""
    j = schema.journal
    known: set[str] = set()
    for alert_id in ids:
        needle = json.dumps(alert_id)
        hit = conn.execute(
            sa.select(j.c.seq).where(
                j.c.table_id == FLOOR, j.c.type == ALERT_RAISED, j.c.payload.contains(f'"alert_id":{needle}')
            )
        ).first()
        if hit is not None:
            known.add(alert_id)
    return known


def raise_alerts(store: Store, events: list[NewEvent]) -> list[Alert]:
    """Journal the alerts not raised before (one transaction); returns the new ones."""
    if not events:
        return []
    with store.begin() as conn:
        known = _known_ids(conn, [e.payload["alert_id"] for e in events])
        fresh, ids = [], set()
        for e in events:
            if e.payload["alert_id"] not in known and e.payload["alert_id"] not in ids:
                ids.add(e.payload["alert_id"])
                fresh.append(e)
        written = store.journal.append_in(conn, fresh) if fresh else []
    return [_alert(entry.time, entry.payload) for entry in written]


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
    """The latest alerts, newest first, each with its acknowledgement if any."""
    j = schema.journal
    with store.read() as conn:
        rows = conn.execute(
            sa.select(j.c.time, j.c.type, j.c.user_name, j.c.payload)
            .where(j.c.table_id == FLOOR, j.c.type.in_((ALERT_RAISED, ALERT_ACKNOWLEDGED)))
            .order_by(j.c.seq.desc())
            .limit(limit * 2)
        ).all()
    acks: dict[str, tuple[str, str]] = {}
    alerts: list[Alert] = []
    for time, kind, user, payload in rows:
        p = json.loads(payload)
        if kind == ALERT_ACKNOWLEDGED:
            acks.setdefault(p["alert_id"], (p.get("by") or user or "?", time))
        else:
            a = _alert(time, p)
            if a.alert_id in acks:
                by, at = acks[a.alert_id]
                a = Alert(**{**a.__dict__, "acknowledged_by": by, "acknowledged_at": at})
            alerts.append(a)
    return alerts[:limit]


def acknowledge_alert(store: Store, alert_id: str, user: User, note: str = "") -> None:
    """Record who acknowledged the alert and when; refused for a role without `acknowledge_alert`."""
    require(user, "acknowledge_alert")
    current = {a.alert_id: a for a in list_alerts(store, limit=100_000)}
    alert = current.get(alert_id)
    if alert is None:
        raise DrrError(f"no alert {alert_id}")
    if alert.acknowledged:
        raise DrrError(
            f"alert {alert_id} was acknowledged by {alert.acknowledged_by} at {alert.acknowledged_at}"
        )
    ack = AlertAcknowledged(alert_id, alert.table, user.name, user.role, note.strip())
    store.journal.append_many([write(ack, table=FLOOR, round_id=alert.round_id, user=user.name)])
