"""Journal payloads of the floor: users and logins, surveillance alerts, refused actions, imported history.

Written by engine.store.users, engine.floor.alerts, engine.floor.actions and engine.store.history;
registered by engine.journal_types (see there for `read` / `write`). Each class declares its fields
once (engine.codec's `Record` writes and reads them); payloads are exactly the JSON journaled today;
a login's `station` and `host` say where it was tried.

- users, on the store's own "floor" chain (the users table is their projection,
  engine.store.users_journal): `user.added` {name, role, pin}; `user.role_changed` {name, role, old_role};
  `user.pin_changed` {name, pin}; `user.disabled` {name}; `user.enabled` {name};
  `user.login` {name, role, station, host, table?}; `user.login_failed` {name, why, failures?, station,
  host, table?}; `user.locked_out` {name, until}; `user.unlocked` {name}. `pin` is the PIN's salted
  scrypt hash with its parameters {scheme: "scrypt", n, r, p, salt, hash} (PinHash; weak parameters
  are refused when read). An old journal's `user.added` has no `pin`. Since issue 24 neither carries
  the hash: `pin_commitment` {scheme: "hmac-sha256", commitment, min_digits} (PinCommitment) instead,
  and `user.pin_changed` {name, pin_commitment, rehash?} (rehash: the same PIN under new parameters).
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
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.codec import STRICT_WHOLE, Coder, Invalid, Record, fact
from engine.entry_types import EntryType

# The weakest scrypt a PIN hash may use (a 4-digit PIN has only 10,000 values: the work factor is
# all that stands between a copied hash and the PIN), and the most a stored hash may ask for.
SCRYPT_MIN_N, SCRYPT_MIN_R, SCRYPT_MIN_P = 2**14, 8, 1
SCRYPT_MAX_WORK = 2**19  # n * r * p: 64 MiB of memory at most (engine.store.users' maxmem)
SALT_MIN_BYTES, DIGEST_BYTES = 16, 32


def _hex(low: int, high: int) -> Coder:
    def load(value: Any) -> str:
        text = str(value)
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            raise Invalid("is not hex") from None
        if not low <= len(raw) <= high or raw.hex() != text:
            raise Invalid(f"must be {low}-{high} bytes of lower-case hex")
        return text

    return Coder(load=load)


@dataclass(frozen=True)
class PinHash(Record, const={"scheme": "scrypt"}):
    """A PIN's salted scrypt hash and its parameters, as journaled and as the users table keeps it
    (`text()`: "scrypt$N$r$p$salt$hash"); never the PIN. Weak parameters are refused."""

    n: int = field(metadata=fact(coder=STRICT_WHOLE))
    r: int = field(metadata=fact(coder=STRICT_WHOLE))
    p: int = field(metadata=fact(coder=STRICT_WHOLE))
    salt: str = field(metadata=fact(coder=_hex(SALT_MIN_BYTES, 64)))
    digest: str = field(metadata=fact(key="hash", coder=_hex(DIGEST_BYTES, DIGEST_BYTES)))

    def __post_init__(self) -> None:
        problem = self.weakness()
        if problem is not None:
            raise ValueError(problem)

    @classmethod
    def _malformed(cls, why: str) -> Exception:
        return ValueError(f"the PIN hash's {why}")

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
class PinCommitment(Record, const={"scheme": "hmac-sha256"}):
    """What the journal keeps of a PIN since issue 24: a keyed commitment to its hash, never the hash.

    `commitment` is HMAC-SHA256 under a random 32-byte key that only the users table's row keeps
    (beside the scrypt hash), over the hash's text and `min_digits`: the row's hash is proved to be
    the one journaled (binding), and the journal alone gives nothing to try PINs against (hiding).
    `min_digits`: the fewest digits the PIN could have under the rule it was chosen by (a pit boss's
    or admin's rule, engine.store.users.PinRule), so a promotion can ask for a longer one."""

    commitment: str = field(metadata=fact(coder=_hex(DIGEST_BYTES, DIGEST_BYTES)))
    min_digits: int = field(metadata=fact(coder=STRICT_WHOLE))

    @classmethod
    def _malformed(cls, why: str) -> Exception:
        return ValueError(f"the PIN commitment's {why}")

    def text(self) -> str:
        """The journal's side of the users table's `pin_hash` (engine.store.users_journal.step)."""
        return f"{COMMITTED}${self.commitment}${self.min_digits}"


COMMITTED = "committed"  # the users_journal fold's pin_hash for a committed PIN: "committed$<hex>$<digits>"


@dataclass(frozen=True)
class UserAdded(Record):
    """A user; `pin` (an old journal's: the scrypt hash itself, or none at all before PINs were
    journaled) or, since issue 24, `pin_commitment` (the hash stays in the users table)."""

    type: ClassVar[EntryType] = EntryType.USER_ADDED
    name: str
    role: str
    pin: PinHash | None = None
    pin_commitment: PinCommitment | None = None


@dataclass(frozen=True)
class UserRoleChanged(Record):
    type: ClassVar[EntryType] = EntryType.USER_ROLE_CHANGED
    name: str
    role: str
    old_role: str


@dataclass(frozen=True)
class UserPinChanged(Record):
    """A new PIN: an old journal's carries its scrypt hash (`pin`), today's `pin_commitment`; with
    `rehash` the PIN is the same, re-hashed at a sign-in with today's parameters (engine.store.users)."""

    type: ClassVar[EntryType] = EntryType.USER_PIN_CHANGED
    name: str
    pin: PinHash | None = None
    pin_commitment: PinCommitment | None = None
    rehash: bool | None = None


@dataclass(frozen=True)
class UserEnabled(Record):
    type: ClassVar[EntryType] = EntryType.USER_ENABLED
    name: str


@dataclass(frozen=True)
class UserUnlocked(Record):
    type: ClassVar[EntryType] = EntryType.USER_UNLOCKED
    name: str


@dataclass(frozen=True)
class ChainKeyed(Record):
    """The Ed25519 public key (hex) that signs this chain from this entry on (engine.store.keys)."""

    type: ClassVar[EntryType] = EntryType.CHAIN_KEYED
    key: str


@dataclass(frozen=True)
class WriterEnrolled(Record):
    """A host's Ed25519 writer key (hex) that may sign the floor chain's entries from here on; the
    entry itself is signed by the floor's root key (engine.store.floor_sign). `by`: the admin."""

    type: ClassVar[EntryType] = EntryType.CHAIN_WRITER_ENROLLED
    key: str
    host: str
    by: str | None = None


@dataclass(frozen=True)
class UserDisabled(Record):
    type: ClassVar[EntryType] = EntryType.USER_DISABLED
    name: str


@dataclass(frozen=True)
class UserLogin(Record):
    type: ClassVar[EntryType] = EntryType.USER_LOGIN
    name: str
    role: str
    station: str | None = None
    host: str | None = None
    table: str | None = None  # the table whose station it was


@dataclass(frozen=True)
class UserLoginFailed(Record):
    type: ClassVar[EntryType] = EntryType.USER_LOGIN_FAILED
    name: str
    why: str  # "unknown user", "disabled", "locked out", "wrong PIN"
    failures: int | None = None  # wrong PINs in a row (with "wrong PIN")
    station: str | None = None
    host: str | None = None
    table: str | None = None  # the table whose station it was


@dataclass(frozen=True)
class UserLockedOut(Record):
    type: ClassVar[EntryType] = EntryType.USER_LOCKED_OUT
    name: str
    until: str  # ISO 8601 time


@dataclass(frozen=True)
class AlertRaised(Record):
    type: ClassVar[EntryType] = EntryType.ALERT_RAISED
    alert_id: str
    table: str
    severity: str
    kind: str
    message: str
    round_id: str | None = None
    at: str | None = None  # when the event behind the alert happened
    entry: str | None = None  # "<table>:<seq>" of the journal entry behind it (None: a statistic)


@dataclass(frozen=True)
class AlertUpdated(Record):
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


@dataclass(frozen=True)
class AlertAcknowledged(Record):
    type: ClassVar[EntryType] = EntryType.ALERT_ACKNOWLEDGED
    alert_id: str
    table: str | None = None
    by: str | None = None
    role: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class ActionRefused(Record):
    """A pit-boss action refused: the user's role does not hold the permission."""

    type: ClassVar[EntryType] = EntryType.ACTION_REFUSED
    name: str
    role: str
    permission: str
    station: str


@dataclass(frozen=True)
class FloorAction(Record):
    """A pit-boss action on a table whose chain in this store is the forwarded copy (see the module
    docstring): the action's own entry type and payload, kept whole on the floor's own chain."""

    type: ClassVar[EntryType] = EntryType.FLOOR_ACTION
    table: str
    action: str
    payload: Mapping[str, Any]


@dataclass(frozen=True)
class ChainForwarded(Record):
    """The forwarder's mark: this store's chain of `table` is the copy of the table's own journal."""

    type: ClassVar[EntryType] = EntryType.CHAIN_FORWARDED
    table: str


@dataclass(frozen=True)
class HistoryImported(Record):
    """A round of another system's history (CSV): its number and when it fell."""

    type: ClassVar[EntryType] = EntryType.HISTORY_IMPORTED
    number: int = field(metadata=fact(coder=STRICT_WHOLE))
    time: str | None = None  # ISO 8601 (the entry's own time when missing)
    source: str | None = None
    direction: str | None = None
