"""Journal payloads of the floor: users and logins, surveillance alerts, refused actions, imported history.

Written by engine.store.users, engine.floor.alerts, engine.floor.actions and engine.store.history;
registered by engine.journal_types (see there for `read` / `write`). Payloads are exactly the JSON
journaled today; a login's `station` and `host` say where it was tried.

- users, on the store's own "floor" chain (the users table is their projection,
  engine.store.users_journal): `user.added` {name, role, pin}; `user.role_changed` {name, role, old_role};
  `user.pin_changed` {name, pin}; `user.disabled` {name}; `user.enabled` {name};
  `user.login` {name, role, station, host, table?}; `user.login_failed` {name, why, failures?, station,
  host, table?}; `user.locked_out` {name, until}; `user.unlocked` {name}. `pin` is the PIN's salted
  scrypt hash with its parameters {scheme: "scrypt", n, r, p, salt, hash} (PinHash; weak parameters
  are refused when read). An old journal's `user.added` has no `pin`.
- `chain.keyed` {key}: the Ed25519 key that signs the floor chain from this entry on (on a
  PostgreSQL floor database: its root key, which signs the enrolments);
  `chain.writer_enrolled` {key, host, by?}: a host's writer key admitted by the root key to sign the
  floor chain's entries from this entry on (engine.store.floor_sign).
- `alert.raised` {alert_id, table, severity, kind, message, round_id?, at?};
  `alert.acknowledged` {alert_id, table, by, role, note}
- `action.refused` {name, role, permission, station}
- `floor.action` {table, action, payload}: a pit-boss action (its entry type and payload, e.g.
  round.payout_approved) taken at the floor database on a table whose chain there is the forwarded
  copy: journaled on the floor's own chain, never in the copy (engine.store.forwarded);
  `chain.forwarded` {table}: the forwarder's mark that this store's chain of `table` is its copy
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


# The weakest scrypt a PIN hash may use (a 4-digit PIN has only 10,000 values: the work factor is
# all that stands between a copied hash and the PIN), and the most a stored hash may ask for.
SCRYPT_MIN_N, SCRYPT_MIN_R, SCRYPT_MIN_P = 2**14, 8, 1
SCRYPT_MAX_WORK = 2**19  # n * r * p: 64 MiB of memory at most (engine.store.users' maxmem)
SALT_MIN_BYTES, DIGEST_BYTES = 16, 32


def _hex(value: Any, what: str, low: int, high: int) -> str:
    text = str(value)
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise ValueError(f"the PIN hash's {what} is not hex") from None
    if not low <= len(raw) <= high or raw.hex() != text:
        raise ValueError(f"the PIN hash's {what} must be {low}-{high} bytes of lower-case hex")
    return text


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"the PIN hash's {what} {value!r} is not a whole number")
    return value


@dataclass(frozen=True)
class PinHash:
    """A PIN's salted scrypt hash and its parameters, as journaled and as the users table keeps it
    (`text()`: "scrypt$N$r$p$salt$hash"); never the PIN. Weak parameters are refused."""

    n: int
    r: int
    p: int
    salt: str
    digest: str

    def __post_init__(self) -> None:
        problem = self.weakness()
        if problem is not None:
            raise ValueError(problem)

    def weakness(self) -> str | None:
        if self.n < SCRYPT_MIN_N or self.n & (self.n - 1):
            return f"weak scrypt parameters: n={self.n} (a power of two, at least {SCRYPT_MIN_N})"
        if self.r < SCRYPT_MIN_R or self.p < SCRYPT_MIN_P:
            least = f"at least r={SCRYPT_MIN_R}, p={SCRYPT_MIN_P}"
            return f"weak scrypt parameters: r={self.r}, p={self.p} ({least})"
        if self.n * self.r * self.p > SCRYPT_MAX_WORK:
            work = f"n={self.n}, r={self.r}, p={self.p}"
            return f"scrypt parameters {work} ask for more work than {SCRYPT_MAX_WORK}"
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "scheme": "scrypt",
            "n": self.n,
            "r": self.r,
            "p": self.p,
            "salt": self.salt,
            "hash": self.digest,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PinHash:
        if not isinstance(d, Mapping) or d.get("scheme") != "scrypt":
            raise ValueError("the PIN hash is not a scrypt hash")
        return cls(
            _whole(d.get("n"), "n"),
            _whole(d.get("r"), "r"),
            _whole(d.get("p"), "p"),
            _hex(d.get("salt"), "salt", SALT_MIN_BYTES, 64),
            _hex(d.get("hash"), "hash", DIGEST_BYTES, DIGEST_BYTES),
        )

    def text(self) -> str:
        return f"scrypt${self.n}${self.r}${self.p}${self.salt}${self.digest}"

    @classmethod
    def from_text(cls, text: str) -> PinHash:
        kind, n, r, p, salt, digest = text.split("$")
        if kind != "scrypt":
            raise ValueError("the PIN hash is not a scrypt hash")
        return cls.from_json(
            {"scheme": kind, "n": int(n), "r": int(r), "p": int(p), "salt": salt, "hash": digest}
        )


@dataclass(frozen=True)
class UserAdded:
    type: ClassVar[EntryType] = EntryType.USER_ADDED
    name: str
    role: str
    pin: PinHash | None = None  # None only in an old journal (before PINs were journaled)

    def to_json(self) -> dict[str, Any]:
        return _put({"name": self.name, "role": self.role}, pin=self.pin.to_json() if self.pin else None)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserAdded:
        pin = d.get("pin")
        return cls(str(d["name"]), str(d["role"]), None if pin is None else PinHash.from_json(pin))


@dataclass(frozen=True)
class UserRoleChanged:
    type: ClassVar[EntryType] = EntryType.USER_ROLE_CHANGED
    name: str
    role: str
    old_role: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "old_role": self.old_role}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserRoleChanged:
        return cls(str(d["name"]), str(d["role"]), str(d["old_role"]))


@dataclass(frozen=True)
class UserPinChanged:
    type: ClassVar[EntryType] = EntryType.USER_PIN_CHANGED
    name: str
    pin: PinHash

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "pin": self.pin.to_json()}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserPinChanged:
        return cls(str(d["name"]), PinHash.from_json(d["pin"]))


@dataclass(frozen=True)
class UserEnabled:
    type: ClassVar[EntryType] = EntryType.USER_ENABLED
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserEnabled:
        return cls(str(d["name"]))


@dataclass(frozen=True)
class UserUnlocked:
    type: ClassVar[EntryType] = EntryType.USER_UNLOCKED
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserUnlocked:
        return cls(str(d["name"]))


@dataclass(frozen=True)
class ChainKeyed:
    """The Ed25519 public key (hex) that signs this chain from this entry on (engine.store.keys)."""

    type: ClassVar[EntryType] = EntryType.CHAIN_KEYED
    key: str

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ChainKeyed:
        return cls(str(d["key"]))


@dataclass(frozen=True)
class WriterEnrolled:
    """A host's Ed25519 writer key (hex) that may sign the floor chain's entries from here on; the
    entry itself is signed by the floor's root key (engine.store.floor_sign). `by`: the admin."""

    type: ClassVar[EntryType] = EntryType.CHAIN_WRITER_ENROLLED
    key: str
    host: str
    by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _put({"key": self.key, "host": self.host}, by=self.by)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> WriterEnrolled:
        return cls(str(d["key"]), str(d["host"]), _opt_str(d.get("by")))


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
    table: str | None = None  # the table whose station it was

    def to_json(self) -> dict[str, Any]:
        out = {"name": self.name, "role": self.role}
        return _put(out, station=self.station, host=self.host, table=self.table)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserLogin:
        return cls(
            str(d["name"]),
            str(d["role"]),
            _opt_str(d.get("station")),
            _opt_str(d.get("host")),
            _opt_str(d.get("table")),
        )


@dataclass(frozen=True)
class UserLoginFailed:
    type: ClassVar[EntryType] = EntryType.USER_LOGIN_FAILED
    name: str
    why: str  # "unknown user", "disabled", "locked out", "wrong PIN"
    failures: int | None = None  # wrong PINs in a row (with "wrong PIN")
    station: str | None = None
    host: str | None = None
    table: str | None = None  # the table whose station it was

    def to_json(self) -> dict[str, Any]:
        out = {"name": self.name, "why": self.why}
        return _put(out, failures=self.failures, station=self.station, host=self.host, table=self.table)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UserLoginFailed:
        failures = d.get("failures")
        return cls(
            str(d["name"]),
            str(d["why"]),
            None if failures is None else int(failures),
            _opt_str(d.get("station")),
            _opt_str(d.get("host")),
            _opt_str(d.get("table")),
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
class FloorAction:
    """A pit-boss action on a table whose chain in this store is the forwarded copy (see the module
    docstring): the action's own entry type and payload, kept whole on the floor's own chain."""

    type: ClassVar[EntryType] = EntryType.FLOOR_ACTION
    table: str
    action: str
    payload: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "action": self.action, "payload": dict(self.payload)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> FloorAction:
        payload = d["payload"]
        if not isinstance(payload, Mapping):
            raise ValueError("payload is not an object")
        return cls(str(d["table"]), str(d["action"]), dict(payload))


@dataclass(frozen=True)
class ChainForwarded:
    """The forwarder's mark: this store's chain of `table` is the copy of the table's own journal."""

    type: ClassVar[EntryType] = EntryType.CHAIN_FORWARDED
    table: str

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ChainForwarded:
        return cls(str(d["table"]))


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
