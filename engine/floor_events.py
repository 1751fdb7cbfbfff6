"""Journal payloads of the floor: users and logins, surveillance alerts, refused actions, imported history.

Written by engine.store.users, engine.floor.alerts, engine.floor.actions and engine.store.history;
registered by engine.journal_types (see there for `read` / `write`). Payloads are exactly the JSON
journaled today; a login's `station` and `host` say where it was tried.

- `user.added` {name, role}; `user.disabled` {name}; `user.login` {name, role, station, host};
  `user.login_failed` {name, why, failures?, station, host}; `user.locked_out` {name, until}
- `alert.raised` {alert_id, table, severity, kind, message, round_id?, at?};
  `alert.acknowledged` {alert_id, table, by, role, note}
- `action.refused` {name, role, permission, station}
- `history.imported` {number, time, source, direction?}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.entry_types import EntryType


def _put(out: dict[str, Any], **facts: Any) -> dict[str, Any]:
    out.update({k: v for k, v in facts.items() if v is not None})
    return out


def _opt_str(v: Any) -> str | None:
    return None if v is None else str(v)


@dataclass(frozen=True)
class UserAdded:
    type: ClassVar[EntryType] = EntryType.USER_ADDED
    name: str
    role: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserAdded:
        return cls(str(d["name"]), str(d["role"]))


@dataclass(frozen=True)
class UserDisabled:
    type: ClassVar[EntryType] = EntryType.USER_DISABLED
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserDisabled:
        return cls(str(d["name"]))


@dataclass(frozen=True)
class UserLogin:
    type: ClassVar[EntryType] = EntryType.USER_LOGIN
    name: str
    role: str
    station: str | None = None
    host: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _put({"name": self.name, "role": self.role}, station=self.station, host=self.host)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserLogin:
        return cls(str(d["name"]), str(d["role"]), _opt_str(d.get("station")), _opt_str(d.get("host")))


@dataclass(frozen=True)
class UserLoginFailed:
    type: ClassVar[EntryType] = EntryType.USER_LOGIN_FAILED
    name: str
    why: str  # "unknown user", "disabled", "locked out", "wrong PIN"
    failures: int | None = None  # wrong PINs in a row (with "wrong PIN")
    station: str | None = None
    host: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"name": self.name, "why": self.why}
        return _put(out, failures=self.failures, station=self.station, host=self.host)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserLoginFailed:
        failures = d.get("failures")
        return cls(
            str(d["name"]),
            str(d["why"]),
            None if failures is None else int(failures),
            _opt_str(d.get("station")),
            _opt_str(d.get("host")),
        )


@dataclass(frozen=True)
class UserLockedOut:
    type: ClassVar[EntryType] = EntryType.USER_LOCKED_OUT
    name: str
    until: str  # ISO 8601 time

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "until": self.until}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserLockedOut:
        return cls(str(d["name"]), str(d["until"]))


@dataclass(frozen=True)
class AlertRaised:
    type: ClassVar[EntryType] = EntryType.ALERT_RAISED
    alert_id: str
    table: str
    severity: str
    kind: str
    message: str
    round_id: str | None = None
    at: str | None = None  # when the event behind the alert happened
    entry: str | None = None  # "<table>:<seq>" of the journal entry behind it (None: a statistic)

    def to_json(self) -> dict[str, Any]:
        out = {
            "alert_id": self.alert_id,
            "table": self.table,
            "severity": self.severity,
            "kind": self.kind,
            "message": self.message,
        }
        return _put(out, round_id=self.round_id, at=self.at, entry=self.entry)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AlertRaised:
        return cls(
            str(d["alert_id"]),
            str(d["table"]),
            str(d["severity"]),
            str(d["kind"]),
            str(d["message"]),
            _opt_str(d.get("round_id")),
            _opt_str(d.get("at")),
            _opt_str(d.get("entry")),
        )


@dataclass(frozen=True)
class AlertUpdated:
    """One more event of the fact an alert stands for (engine.floor.alerts: a held round is one alert,
    each further irregularity of it an update, not a new alert)."""

    type: ClassVar[EntryType] = EntryType.ALERT_UPDATED
    alert_id: str
    table: str
    severity: str
    kind: str
    message: str
    at: str | None = None
    entry: str | None = None  # "<table>:<seq>" of the journal entry behind the update

    def to_json(self) -> dict[str, Any]:
        out = {
            "alert_id": self.alert_id,
            "table": self.table,
            "severity": self.severity,
            "kind": self.kind,
            "message": self.message,
        }
        return _put(out, at=self.at, entry=self.entry)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AlertUpdated:
        return cls(
            str(d["alert_id"]),
            str(d["table"]),
            str(d["severity"]),
            str(d["kind"]),
            str(d["message"]),
            _opt_str(d.get("at")),
            _opt_str(d.get("entry")),
        )


@dataclass(frozen=True)
class AlertAcknowledged:
    type: ClassVar[EntryType] = EntryType.ALERT_ACKNOWLEDGED
    alert_id: str
    table: str | None = None
    by: str | None = None
    role: str | None = None
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _put({"alert_id": self.alert_id}, table=self.table, by=self.by, role=self.role, note=self.note)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AlertAcknowledged:
        return cls(
            str(d["alert_id"]),
            _opt_str(d.get("table")),
            _opt_str(d.get("by")),
            _opt_str(d.get("role")),
            _opt_str(d.get("note")),
        )


@dataclass(frozen=True)
class ActionRefused:
    """A pit-boss action refused: the user's role does not hold the permission."""

    type: ClassVar[EntryType] = EntryType.ACTION_REFUSED
    name: str
    role: str
    permission: str
    station: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "permission": self.permission, "station": self.station}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ActionRefused:
        return cls(str(d["name"]), str(d["role"]), str(d["permission"]), str(d["station"]))


@dataclass(frozen=True)
class HistoryImported:
    """A round of another system's history (CSV): its number and when it fell."""

    type: ClassVar[EntryType] = EntryType.HISTORY_IMPORTED
    number: int
    time: str | None = None  # ISO 8601 (the entry's own time when missing)
    source: str | None = None
    direction: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _put({"number": self.number}, time=self.time, source=self.source, direction=self.direction)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HistoryImported:
        number = d["number"]
        if isinstance(number, bool) or not isinstance(number, int):
            raise ValueError(f"number {number!r} is not a whole number")
        return cls(number, _opt_str(d.get("time")), _opt_str(d.get("source")), _opt_str(d.get("direction")))
