"""Users of the stations in the store: salted scrypt PINs, lock-out after repeated failures, journaled.

Every login, failed login, lock-out and change to a user is appended to the journal of the table the
action concerns (`table`, "floor" for the back office) in the same transaction as the user row, so
the count of failures and the record of them cannot disagree.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import socket
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from engine.auth import AuthenticationFailed, User, check_role, require
from engine.errors import DrrError
from engine.floor_events import UserAdded, UserDisabled, UserLockedOut, UserLogin, UserLoginFailed
from engine.journal_types import write
from engine.store import schema
from engine.store.canonical import format_time, parse_time
from engine.store.db import Store
from engine.store.records import NewEvent

FLOOR = "floor"
MAX_FAILURES = 5
LOCKOUT = timedelta(minutes=15)
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
_PIN = re.compile(r"^[0-9]{4,12}$")


@dataclass(frozen=True)
class UserInfo:
    name: str
    role: str
    disabled: bool
    failures: int
    locked_until: str | None
    created_at: str


def hash_pin(pin: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def pin_matches(pin: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(pin.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=32)
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


_DUMMY_HASH = hash_pin("0000")


def check_pin(pin: str) -> str:
    if not _PIN.match(pin):
        raise DrrError("a PIN is 4 to 12 digits")
    return pin


def _now() -> datetime:
    return datetime.now(UTC)


def _row(conn: sa.Connection, name: str) -> sa.Row | None:  # type: ignore[type-arg]
    return conn.execute(sa.select(schema.users).where(schema.users.c.name == name)).first()


def count_active_admins(store: Store) -> int:
    u = schema.users
    with store.read() as conn:
        return int(
            conn.execute(
                sa.select(sa.func.count()).where(u.c.role == "admin", u.c.disabled.is_(False))
            ).scalar_one()
        )


def add_user(
    store: Store, name: str, role: str, pin: str, *, by: User | None, table: str = FLOOR
) -> UserInfo:
    """Add a user. `by` must be an admin, except for the very first admin of an empty store."""
    if not _NAME.match(name):
        raise DrrError(f"bad user name {name!r}: a letter, then letters, digits, '.', '_' or '-'")
    check_role(role)
    check_pin(pin)
    if by is None:
        if count_active_admins(store):
            raise AuthenticationFailed("this store has admins: adding a user needs an admin's name and PIN")
        if role != "admin":
            raise DrrError("the first user of a store must be an admin")
    else:
        require(by, "manage_users")
    created = format_time(_now())
    with store.begin() as conn:
        if _row(conn, name) is not None:
            raise DrrError(f"user {name} already exists")
        conn.execute(
            sa.insert(schema.users).values(
                name=name, role=role, pin_hash=hash_pin(pin), disabled=False, failures=0, created_at=created
            )
        )
        store.journal.append_in(
            conn, [write(UserAdded(name, role), table=table, user=by.name if by else name)]
        )
    return UserInfo(name, role, False, 0, None, created)


def list_users(store: Store) -> list[UserInfo]:
    u = schema.users
    with store.read() as conn:
        rows = conn.execute(sa.select(u).order_by(u.c.name)).all()
    return [
        UserInfo(r.name, r.role, bool(r.disabled), r.failures, r.locked_until, r.created_at) for r in rows
    ]


def disable_user(store: Store, name: str, *, by: User, table: str = FLOOR) -> None:
    require(by, "manage_users")
    with store.begin() as conn:
        row = _row(conn, name)
        if row is None:
            raise DrrError(f"no user {name}")
        conn.execute(sa.update(schema.users).where(schema.users.c.name == name).values(disabled=True))
        store.journal.append_in(conn, [write(UserDisabled(name), table=table, user=by.name)])


def authenticate(store: Store, name: str, pin: str, *, table: str = FLOOR, station: str = "cli") -> User:
    """The user if `pin` is right and the account usable; every outcome journaled with its real
    reason. The PIN is always checked first, and a wrong one gets the same answer whether the name is
    unknown, disabled, locked out or right (names cannot be probed); only the holder of the right PIN
    learns that the account is disabled or locked out.

    The user's row is read FOR UPDATE (PostgreSQL: a row lock held until commit; SQLite: the store's
    write transaction already serialises), so simultaneous attempts are counted one after another:
    at most MAX_FAILURES "wrong PIN" verdicts before "locked out"."""
    now = _now()
    host = socket.gethostname()
    wrong = f"unknown user or wrong PIN for {name}"

    def failed(why: str, failures: int | None = None) -> NewEvent:
        return write(UserLoginFailed(name, why, failures, station, host), table=table, user=name)

    refusal: str | None = None
    user: User | None = None
    u = schema.users
    with store.begin() as conn:
        row = conn.execute(sa.select(u).where(u.c.name == name).with_for_update()).first()
        # The same scrypt work whether or not the name exists: names cannot be probed by timing.
        right = pin_matches(pin, row.pin_hash if row is not None else _DUMMY_HASH) and row is not None
        if row is None:
            store.journal.append_in(conn, [failed("unknown user")])
            refusal = wrong
        elif row.disabled:
            store.journal.append_in(conn, [failed("disabled")])
            refusal = f"user {name} is disabled" if right else wrong
        elif row.locked_until is not None and parse_time(row.locked_until) > now:
            store.journal.append_in(conn, [failed("locked out")])
            locked = f"user {name} is locked out after {MAX_FAILURES} wrong PINs until {row.locked_until}"
            refusal = locked if right else wrong
        elif not right:
            failures = row.failures + 1
            values: dict[str, object] = {"failures": failures}
            events = [failed("wrong PIN", failures)]
            refusal = wrong
            if failures >= MAX_FAILURES:
                until = format_time(now + LOCKOUT)
                values.update(failures=0, locked_until=until)
                events.append(write(UserLockedOut(name, until), table=table, user=name))
            conn.execute(sa.update(u).where(u.c.name == name).values(**values))
            store.journal.append_in(conn, events)
        else:
            conn.execute(sa.update(u).where(u.c.name == name).values(failures=0, locked_until=None))
            login = UserLogin(name, row.role, station, host)
            store.journal.append_in(conn, [write(login, table=table, user=name)])
            user = User(name, row.role)
    if user is None:
        raise AuthenticationFailed(refusal or f"login refused for {name}")
    return user
