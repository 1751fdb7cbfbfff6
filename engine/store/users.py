"""Users of the stations in the store: salted scrypt PINs, lock-out after repeated failures, journaled.

Every change to a user and every sign-in (added, role changed, PIN changed, disabled, enabled, a
wrong PIN counted, locked out, unlocked, logged in) is an entry on the store's own "floor" chain,
and the `users` table is its projection (engine.store.users_journal), kept in the entry's own
transaction: the table and the record of it cannot disagree, `drr db rebuild` makes it again and
`drr audit verify` checks it (engine.store.users_check). The station's table is named in a sign-in's
payload; a table's own chain never holds user entries.

On a SQLite store the floor chain is signed by its own key (engine.store.keys, table id "floor"),
made at the first user change; on a PostgreSQL floor database each entry is signed by its writing
host's enrolled key (engine.store.floor_sign, in the journal's append). Whoever can write the store
but not read those keys cannot rewrite the users' journal without `drr audit verify` failing.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import secrets
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.auth import AuthenticationFailed, User, check_role, require
from engine.errors import DrrError
from engine.floor_events import (
    ChainKeyed,
    PinCommitment,
    PinHash,
    UserAdded,
    UserDisabled,
    UserEnabled,
    UserLockedOut,
    UserLogin,
    UserLoginFailed,
    UserPinChanged,
    UserRoleChanged,
    UserUnlocked,
)
from engine.journal_types import Payload, write
from engine.store import schema, users_journal
from engine.store.canonical import format_time, parse_time
from engine.store.db import Store
from engine.store.journal import read_head
from engine.store.records import Entry, NewEvent, row_to_entry
from engine.store.users_journal import FLOOR, PIN_DIGITS, SECRET_SEP, commit, min_digits, pin_agrees

if TYPE_CHECKING:
    from engine.store.keys import TableKey

__all__ = ["FLOOR", "LOCKOUT", "MAX_FAILURES", "UserInfo", "add_user", "authenticate", "list_users"]

MAX_FAILURES = 5
LOCKOUT = timedelta(minutes=15)
# Today's PIN hash: scrypt with n*r three times the old minimum's (about 0.1 s and 48 MiB a hash on
# one core of the lab's PC, where n=2**14, r=8 did 31 hashes a second). scrypt, not Argon2: Python's
# hashlib has it (OpenSSL), the journal's PinHash already carries its parameters, and an old hash of
# the weaker minimum still verifies (and is re-hashed with these at its next sign-in).
PIN_KDF = (2**15, 12, 1)  # scrypt (n, r, p) of a new PIN hash
SCRYPT_N, SCRYPT_R, SCRYPT_P = PIN_KDF
_MAXMEM = 64 * 1024 * 1024 + 1024 * 1024  # engine.floor_events.SCRYPT_MAX_WORK, with hashlib's margin
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
_PIN = re.compile(r"^[0-9]{4,12}$")
SUPERVISOR_PIN_DIGITS = 6  # a pit boss's or admin's, at least (settings users.supervisor_pin_digits)
SUPERVISORS = frozenset({"pitboss", "admin"})


def digits_for(role: str, supervisor_digits: int | None = None) -> int:
    """The fewest digits a PIN of `role` may have (`supervisor_digits`: the settings file's, at least 6)."""
    if role not in SUPERVISORS:
        return PIN_DIGITS
    return max(SUPERVISOR_PIN_DIGITS, supervisor_digits or SUPERVISOR_PIN_DIGITS)


def digits_rule(pin: str, supervisor_digits: int | None = None) -> int:
    """The digits rule journaled with a PIN (PinCommitment.min_digits): a pit boss's if the PIN is
    that long, else any PIN's (a croupier's long PIN may later be promoted without a new one)."""
    least = digits_for("admin", supervisor_digits)
    return least if len(pin) >= least else PIN_DIGITS


@dataclass(frozen=True)
class UserInfo:
    name: str
    role: str
    disabled: bool
    failures: int
    locked_until: str | None
    created_at: str


def make_pin_hash(pin: str) -> PinHash:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        pin.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32, maxmem=_MAXMEM
    )
    return PinHash(SCRYPT_N, SCRYPT_R, SCRYPT_P, salt.hex(), digest.hex())


def make_pin_secret(pin: str, digits: int) -> tuple[str, PinCommitment]:
    """A new PIN hash as the users row keeps it (the hash, its commitment key, the digits rule), and
    the commitment the journal keeps."""
    hashed = make_pin_hash(pin).text()
    key = secrets.token_bytes(32)
    return f"{hashed}{SECRET_SEP}{key.hex()}{SECRET_SEP}{digits}", commit(hashed, key, digits)


def hash_pin(pin: str) -> str:
    """The users table's text of a new salted scrypt hash of `pin`."""
    return make_pin_secret(pin, PIN_DIGITS)[0]


def _hash_part(stored: str) -> str:
    return stored.split(SECRET_SEP, 1)[0]


def needs_rehash(stored: str) -> bool:
    """A PIN hash to re-hash at its next sign-in: journaled in the clear, or of weaker parameters."""
    if SECRET_SEP not in stored:
        return True
    try:
        h = PinHash.from_text(_hash_part(stored))
    except ValueError:
        return False  # no PIN (NO_PIN) or a committed row without its hash: nothing to re-hash
    return h.n * h.r * h.p < SCRYPT_N * SCRYPT_R * SCRYPT_P


def pin_matches(pin: str, stored: str) -> bool:
    """`pin` matches the stored hash; never for a hash with weak parameters (or none)."""
    try:
        h = PinHash.from_text(_hash_part(stored))
        got = hashlib.scrypt(
            pin.encode(), salt=bytes.fromhex(h.salt), n=h.n, r=h.r, p=h.p, dklen=32, maxmem=_MAXMEM
        )
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), h.digest)


@functools.cache
def _dummy_hash() -> str:
    """A hash to check a PIN against when the name is unknown (the same work either way). Made on
    first use, not at import: it is 0.1 s of scrypt, and every station imports this module (issue 28)."""
    return hash_pin("0000")


def check_pin(pin: str, role: str | None = None, supervisor_digits: int | None = None) -> str:
    """`pin` as a PIN of `role` may be: 4 to 12 digits, at least 6 (or the settings file's
    users.supervisor_pin_digits) for a pit boss or admin."""
    if not _PIN.match(pin):
        raise DrrError("a PIN is 4 to 12 digits")
    least = digits_for(role or "", supervisor_digits)
    if len(pin) < least:
        whose = {"pitboss": "a pit boss's", "admin": "an admin's"}.get(role or "", "a PIN")
        raise DrrError(f"{whose} PIN is at least {least} digits")
    return pin


def _now() -> datetime:
    return datetime.now(UTC)


def _row(conn: sa.Connection, name: str) -> sa.Row | None:  # type: ignore[type-arg]
    return conn.execute(sa.select(schema.users).where(schema.users.c.name == name)).first()


def _info(row: sa.Row) -> UserInfo:  # type: ignore[type-arg]
    return UserInfo(row.name, row.role, bool(row.disabled), row.failures, row.locked_until, row.created_at)


def _decided_by(row: Any) -> tuple[str, bool, str | None]:
    """What a sign-in is decided on (the PIN hash apart: engine.store.users_journal.pin_agrees):
    role, disabled, locked until."""
    return (str(row.role), bool(row.disabled), row.locked_until)


def _agrees(journaled: users_journal.UserRow, row: Any) -> bool:
    return _decided_by(journaled) == _decided_by(row) and pin_agrees(str(row.pin_hash), journaled.pin_hash)


def journaled_user(conn: sa.Connection, name: str) -> users_journal.UserRow | None:
    """The user `name` as the floor chain's user entries make it (engine.store.users_journal.fold),
    not as the users table says: the entries naming them, read along the chain (a LIKE on the
    canonical payload narrows the read; `_` is a wildcard there, so the name is checked again)."""
    j = schema.journal
    types = sorted(t.value for t in users_journal.USER_TYPES)
    rows = conn.execute(
        sa.select(j)
        .where(j.c.table_id == FLOOR, j.c.type.in_(types))
        .where(j.c.payload.like(f'%"name":{json.dumps(name)}%'))
        .order_by(j.c.seq)
    ).all()
    entries = [e for e in map(row_to_entry, rows) if users_journal.user_named(e) == name]
    return users_journal.fold(entries).get(name)


def count_active_admins(store: Store) -> int:
    u = schema.users
    with store.read() as conn:
        return int(
            conn.execute(
                sa.select(sa.func.count()).where(u.c.role == "admin", u.c.disabled.is_(False))
            ).scalar_one()
        )


def _floor_key(store: Store) -> TableKey | None:
    """The floor chain's key on a SQLite store (made now if it has none); None on PostgreSQL, whose
    floor chain every station's host writes, each entry signed by its writer (engine.store.floor_sign)."""
    if not store.is_sqlite:
        return None
    from engine.store import keys

    return keys.ensure(store.where, FLOOR)[0]


def _journal(
    store: Store,
    decide: Callable[[sa.Connection], Sequence[Payload]],
    *,
    user: Callable[[Payload], str | None],
    secrets_: Mapping[str, str] | None = None,
) -> list[Entry]:
    """Run `decide` and journal what it returns on the floor chain, in one transaction that first
    locks the floor chain's head: every change to users is decided one after another (PostgreSQL:
    the head row FOR UPDATE; SQLite: the store's write transaction), so a count read is the count
    written over. The users table follows through the projection; `secrets_` (name -> the users
    row's PIN hash with its commitment key) is what the journal's commitment of a new PIN names,
    written into the row in the same transaction (read after `decide`: it may add one)."""
    from engine.store import keys

    key = _floor_key(store)
    with store.begin() as conn:
        read_head(conn, FLOOR, lock=True)
        payloads = list(decide(conn))
        if key is not None and not key.journaled:
            payloads.insert(0, ChainKeyed(key.public))
        events: list[NewEvent] = [write(p, table=FLOOR, user=user(p)) for p in payloads]
        written = store.journal.append_in(conn, events)
        for name, secret in (secrets_ or {}).items():
            u = schema.users
            conn.execute(sa.update(u).where(u.c.name == name).values(pin_hash=secret))
    if not store.is_sqlite:
        store.journal.witness(written)
    if key is not None and written:
        last = written[-1]
        if not key.journaled:
            keys.update(key, journaled=True, high_water=(last.seq, last.hash))
        else:
            keys.note_high_water(store.where, FLOOR, last.seq, last.hash)
    return written


def add_user(
    store: Store,
    name: str,
    role: str,
    pin: str,
    *,
    by: User | None,
    table: str | None = None,
    supervisor_digits: int | None = None,
) -> UserInfo:
    """Add a user. `by` must be an admin, except for the very first admin of an empty store.
    (`table`: the station's table, kept for older callers; the entry goes to the floor chain.)
    The journal keeps a commitment to the PIN's hash, the users row the hash (engine.floor_events)."""
    if not _NAME.match(name):
        raise DrrError(f"bad user name {name!r}: a letter, then letters, digits, '.', '_' or '-'")
    check_role(role)
    check_pin(pin, role, supervisor_digits)
    if by is None:
        if count_active_admins(store):
            raise AuthenticationFailed("this store has admins: adding a user needs an admin's name and PIN")
        if role != "admin":
            raise DrrError("the first user of a store must be an admin")
    else:
        require(by, "manage_users")
    secret, commitment = make_pin_secret(pin, digits_rule(pin, supervisor_digits))

    def decide(conn: sa.Connection) -> list[Payload]:
        if _row(conn, name) is not None:
            raise DrrError(f"user {name} already exists")
        if by is None and conn.execute(sa.select(sa.func.count()).select_from(schema.users)).scalar_one():
            raise AuthenticationFailed("this store has users: adding a user needs an admin's name and PIN")
        return [UserAdded(name, role, pin_commitment=commitment)]

    _journal(store, decide, user=lambda _: by.name if by else name, secrets_={name: secret})
    return get_user(store, name)


def get_user(store: Store, name: str) -> UserInfo:
    with store.read() as conn:
        row = _row(conn, name)
    if row is None:
        raise DrrError(f"no user {name}")
    return _info(row)


def list_users(store: Store) -> list[UserInfo]:
    u = schema.users
    with store.read() as conn:
        rows = conn.execute(sa.select(u).order_by(u.c.name)).all()
    return [_info(r) for r in rows]


def _change(store: Store, name: str, by: User, make: Callable[[sa.Row], Payload | None]) -> None:  # type: ignore[type-arg]
    require(by, "manage_users")

    def decide(conn: sa.Connection) -> list[Payload]:
        row = _row(conn, name)
        if row is None:
            raise DrrError(f"no user {name}")
        change = make(row)
        return [] if change is None else [change]

    _journal(store, decide, user=lambda _: by.name)


def _last_admin(row: sa.Row, store: Store) -> None:  # type: ignore[type-arg]
    if row.role == "admin" and not row.disabled and count_active_admins(store) <= 1:
        raise DrrError(f"{row.name} is the store's last active admin: add another admin first")


def disable_user(store: Store, name: str, *, by: User, table: str | None = None) -> None:
    def make(row: sa.Row) -> Payload | None:  # type: ignore[type-arg]
        if row.disabled:
            raise DrrError(f"user {name} is already disabled")
        return UserDisabled(name)

    _change(store, name, by, make)


def enable_user(store: Store, name: str, *, by: User) -> None:
    def make(row: sa.Row) -> Payload | None:  # type: ignore[type-arg]
        if not row.disabled:
            raise DrrError(f"user {name} is not disabled")
        return UserEnabled(name)

    _change(store, name, by, make)


def change_role(
    store: Store, name: str, role: str, *, by: User, supervisor_digits: int | None = None
) -> None:
    check_role(role)

    def make(row: sa.Row) -> Payload | None:  # type: ignore[type-arg]
        if row.role == role:
            raise DrrError(f"user {name} is already {role}")
        least = digits_for(role, supervisor_digits)
        with store.read() as conn:  # the digits rule as the journal says it (not the users row)
            journaled = journaled_user(conn, name)
        if min_digits(journaled.pin_hash if journaled else str(row.pin_hash)) < least:
            raise DrrError(
                f"user {name}'s PIN was chosen for a {row.role} (fewer than {least} digits allowed): "
                f"set a PIN of at least {least} digits first (drr users pin {name}), then the role"
            )
        if role != "admin":
            _last_admin(row, store)
        return UserRoleChanged(name, role, row.role)

    _change(store, name, by, make)


def set_pin(store: Store, name: str, pin: str, *, by: User, supervisor_digits: int | None = None) -> None:
    """A new PIN for `name` (a commitment to its hash journaled, the hash in the users row); by an
    admin, or by the user themself. A pit boss's or admin's is at least 6 digits (or the settings')."""
    if by.name != name:
        require(by, "manage_users")
    role = get_user(store, name).role
    check_pin(pin, role, supervisor_digits)
    secret, commitment = make_pin_secret(pin, digits_rule(pin, supervisor_digits))

    def decide(conn: sa.Connection) -> list[Payload]:
        row = _row(conn, name)
        if row is None:
            raise DrrError(f"no user {name}")
        if row.role != role:
            raise DrrError(f"user {name}'s role changed meanwhile: nothing changed, try again")
        return [UserPinChanged(name, pin_commitment=commitment)]

    _journal(store, decide, user=lambda _: by.name, secrets_={name: secret})


def unlock_user(store: Store, name: str, *, by: User) -> None:
    def make(row: sa.Row) -> Payload | None:  # type: ignore[type-arg]
        if row.locked_until is None and not row.failures:
            raise DrrError(f"user {name} is not locked out and has no wrong PINs counted")
        return UserUnlocked(name)

    _change(store, name, by, make)


def authenticate(
    store: Store, name: str, pin: str, *, table: str | None = None, station: str = "cli"
) -> User:
    """The user if `pin` is right and the account usable; every outcome journaled with its real
    reason, on the floor chain (`table`: the station's table, named in the entry). The PIN is always
    checked first, and a wrong one gets the same answer whether the name is unknown, disabled,
    locked out or right (names cannot be probed); only the holder of the right PIN learns that the
    account is disabled or locked out.

    The verdict is decided with the floor chain's head locked (engine.store.users._journal), so
    simultaneous attempts are counted one after another: at most MAX_FAILURES "wrong PIN" verdicts
    before "locked out". The scrypt work is done before the lock (and again under it only if the
    PIN hash changed meanwhile)."""
    now = _now()
    host = socket.gethostname()
    wrong = f"unknown user or wrong PIN for {name}"
    with store.read() as conn:
        before = _row(conn, name)
    # The same scrypt work whether or not the name exists: names cannot be probed by timing.
    checked = before.pin_hash if before is not None else _dummy_hash()
    right = pin_matches(pin, checked)
    outcome: dict[str, object] = {}
    secrets_: dict[str, str] = {}
    upgrade = None
    if right and before is not None and needs_rehash(checked):
        upgrade = make_pin_secret(pin, digits_rule(pin))

    def failed(why: str, failures: int | None = None) -> UserLoginFailed:
        return UserLoginFailed(name, why, failures, station, host, table)

    def decide(conn: sa.Connection) -> list[Payload]:
        row = _row(conn, name)
        ok = right if row is None or row.pin_hash == checked else pin_matches(pin, row.pin_hash)
        if row is None:
            outcome["refusal"] = wrong
            return [failed("unknown user")]
        if row.disabled:
            outcome["refusal"] = f"user {name} is disabled" if ok else wrong
            return [failed("disabled")]
        if row.locked_until is not None and parse_time(row.locked_until) > now:
            locked = f"user {name} is locked out after {MAX_FAILURES} wrong PINs until {row.locked_until}"
            outcome["refusal"] = locked if ok else wrong
            return [failed("locked out")]
        if not ok:
            failures = row.failures + 1
            outcome["refusal"] = wrong
            if failures >= MAX_FAILURES:
                return [failed("wrong PIN", failures), UserLockedOut(name, format_time(now + LOCKOUT))]
            return [failed("wrong PIN", failures)]
        journaled = journaled_user(conn, name)
        if journaled is None or not _agrees(journaled, row):
            # The users table is a projection of the floor chain: a row that disagrees with it was
            # edited there (or the projection is behind); the role is never taken from it.
            outcome["refusal"] = (
                f"user {name}'s row in the users table disagrees with the floor journal (role, PIN or "
                "status edited in the database): not signed in; run drr audit verify"
            )
            return [failed("users table disagrees with the journal")]
        outcome["user"] = User(name, journaled.role)
        login: list[Payload] = [UserLogin(name, journaled.role, station, host, table)]
        if upgrade is not None and row.pin_hash == checked:
            # re-hashed with today's parameters; the journal from now on keeps a commitment only
            secret, commitment = upgrade
            secrets_[name] = secret
            login.append(UserPinChanged(name, pin_commitment=commitment, rehash=True))
        return login

    _journal(store, decide, user=lambda _: name, secrets_=secrets_)
    user = outcome.get("user")
    if not isinstance(user, User):
        raise AuthenticationFailed(str(outcome.get("refusal") or f"login refused for {name}"))
    return user
