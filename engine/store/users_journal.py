"""The users table as a projection of the store's own user entries (its "floor" chain).

Every change to a user is a journal entry on the chain `FLOOR` of the store that holds the users
(added with the PIN's scrypt hash, role changed, PIN changed, disabled, enabled, a wrong PIN counted,
locked out, unlocked, a login that clears the count). `step` is the one fold of those entries: the
append keeps the `users` row in the entry's own transaction with it (`apply`, called by
engine.store.projections), `drr db rebuild` folds the floor chain through it (`rebuild`), and `drr audit
verify` compares the table with `expected` (engine.store.users_check). A table's chain (and so a
table chain forwarded to the floor database) never carries user entries: the users of a store are
that store's own.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine.auth import ROLES
from engine.entry_types import USER_TYPES, entry_type
from engine.errors import DrrError
from engine.floor_events import (
    COMMITTED,
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
from engine.store import schema
from engine.store.records import Entry, row_to_entry

FLOOR: Final = "floor"  # the store's own chain: its users, alerts, sign-ins and floor actions
NO_PIN: Final = "!"  # an old journal's user.added without a PIN hash: no PIN matches until one is set
PIN_DIGITS: Final = 4  # the fewest digits of any PIN (an old journal's PINs: their rule)
# The users row's pin_hash of a committed PIN: "<PinHash text>#<commitment key hex>#<min_digits>"; the
# journal's fold gives "committed$<commitment>$<min_digits>" (engine.floor_events.PinCommitment).
SECRET_SEP: Final = "#"


@dataclass(frozen=True)
class UserRow:
    """One `users` row, as the journal says it is."""

    name: str
    role: str
    pin_hash: str
    disabled: bool
    failures: int
    locked_until: str | None
    created_at: str


def commit(hash_text: str, key: bytes, min_digits: int) -> PinCommitment:
    """The keyed commitment the journal keeps of a PIN hash (engine.floor_events.PinCommitment)."""
    mac = hmac.new(key, f"{hash_text}${min_digits}".encode(), hashlib.sha256).hexdigest()
    return PinCommitment(mac, min_digits)


def pin_agrees(stored: str, journaled: str) -> bool:
    """The users row's `pin_hash` is the one the floor journal set: the same text (an old journal's
    hash in the clear, or none), or, for a committed PIN, a hash whose commitment is the journaled one."""
    if not journaled.startswith(COMMITTED + "$"):
        return stored == journaled
    parts = stored.split(SECRET_SEP)
    if len(parts) != 3:
        return False
    hashed, key, digits = parts
    try:
        raw = bytes.fromhex(key)
        made = commit(hashed, raw, int(digits))
    except ValueError:
        return False
    return len(raw) == 32 and hmac.compare_digest(made.text(), journaled)


def min_digits(stored: str) -> int:
    """The digits rule a PIN was chosen under, from the journal's fold ("committed$…$N") or a users
    row; an old journal's PIN: the least of any PIN."""
    parts = stored.split("$") if stored.startswith(COMMITTED + "$") else stored.split(SECRET_SEP)
    return int(parts[2]) if len(parts) == 3 and parts[2].isdigit() else PIN_DIGITS


def _where(entry: Entry) -> str:
    return f"journal entry {entry.seq} ({entry.type}) of table {entry.table}"


def step(stored: UserRow | None, entry: Entry) -> UserRow | None:
    """The user's row after `entry` (`stored`: before it); None when the entry changes no row (a
    wrong PIN for an unknown name). A change to a user no `user.added` precedes, a second
    `user.added`, an unknown role or a count of wrong PINs that does not follow the one before is
    refused (DrrError naming the entry); so is a PIN hash with weak parameters (engine.floor_events)."""
    # Imported here: the registry imports engine.store.records, whose package loads this module.
    from engine.journal_types import read

    p = read(entry)
    if isinstance(p, UserAdded):
        if stored is not None:
            raise DrrError(f"{_where(entry)} adds user {p.name} a second time")
        if p.role not in ROLES:
            raise DrrError(f"{_where(entry)} gives user {p.name} the unknown role {p.role!r}")
        pin = _pin_text(p.pin_commitment, p.pin) or NO_PIN
        return UserRow(p.name, p.role, pin, False, 0, None, entry.time)
    name = str(getattr(p, "name", ""))
    if stored is None:
        if isinstance(p, UserLoginFailed):
            return None  # "unknown user": journaled, no row to change
        raise DrrError(f"{_where(entry)} changes user {name!r}, whom no user.added precedes")
    if isinstance(p, UserRoleChanged):
        if p.role not in ROLES:
            raise DrrError(f"{_where(entry)} gives user {name} the unknown role {p.role!r}")
        return replace(stored, role=p.role)
    if isinstance(p, UserPinChanged):
        text = _pin_text(p.pin_commitment, p.pin)
        if text is None:
            raise DrrError(f"{_where(entry)} changes user {name}'s PIN to none")
        return replace(stored, pin_hash=text)
    if isinstance(p, UserDisabled | UserEnabled):
        return replace(stored, disabled=isinstance(p, UserDisabled))
    if isinstance(p, UserLogin):
        return replace(stored, failures=0, locked_until=None)
    if isinstance(p, UserLoginFailed):
        if p.why != "wrong PIN":
            return None  # disabled / locked out: journaled with its reason, nothing counted
        count = stored.failures + 1
        if p.failures is not None and p.failures != count:
            raise DrrError(
                f"{_where(entry)} counts {p.failures} wrong PINs in a row for {name}, "
                f"the entries before it {count}"
            )
        return replace(stored, failures=count)
    if isinstance(p, UserLockedOut):
        return replace(stored, failures=0, locked_until=p.until)
    if isinstance(p, UserUnlocked):
        return replace(stored, failures=0, locked_until=None)
    return None


def _pin_text(commitment: PinCommitment | None, pin: PinHash | None) -> str | None:
    """The fold's pin_hash: a commitment's text (the hash is in the users row only), or an old
    journal's hash itself."""
    if commitment is not None:
        return commitment.text()
    return pin.text() if pin is not None else None


def is_user_entry(entry: Entry) -> bool:
    """An entry the users table is made from: a user type on the store's own floor chain."""
    return entry.table == FLOOR and entry_type(entry.type) in USER_TYPES


def user_named(entry: Entry) -> str:
    """The user a user entry is about (its typed payload's `name`)."""
    from engine.journal_types import read  # (imported here: see `step`)

    return str(getattr(read(entry), "name", ""))


def fold(entries: Iterable[Entry]) -> dict[str, UserRow]:
    """Every user's row after the floor chain's entries (in chain order)."""
    users: dict[str, UserRow] = {}
    for entry in entries:
        if not is_user_entry(entry):
            continue
        name = user_named(entry)
        row = step(users.get(name), entry)
        if row is not None:
            users[name] = row
    return users


def _stored(conn: Connection, name: str) -> UserRow | None:
    u = schema.users
    row = conn.execute(sa.select(u).where(u.c.name == name)).first()
    return None if row is None else from_row(row)


def from_row(row: Mapping[str, object] | sa.Row) -> UserRow:  # type: ignore[type-arg]
    r = row._mapping if isinstance(row, sa.Row) else row
    until = r["locked_until"]
    return UserRow(
        str(r["name"]),
        str(r["role"]),
        str(r["pin_hash"]),
        bool(r["disabled"]),
        int(str(r["failures"])),
        None if until is None else str(until),
        str(r["created_at"]),
    )


def apply(conn: Connection, entry: Entry) -> None:
    """Keep the `users` row in step with one entry (in the entry's transaction; engine.store.projections)."""
    if not is_user_entry(entry):
        return
    name = user_named(entry)
    stored = _stored(conn, name)
    row = step(stored, entry)
    if row is None:
        return
    values = {
        "role": row.role,
        "pin_hash": row.pin_hash,
        "disabled": row.disabled,
        "failures": row.failures,
        "locked_until": row.locked_until,
        "created_at": row.created_at,
    }
    if stored is None:
        conn.execute(sa.insert(schema.users).values(name=name, **values))
    else:
        conn.execute(sa.update(schema.users).where(schema.users.c.name == name).values(**values))


def rebuild(conn: Connection) -> None:
    """The users table made again from the floor chain (`drr db rebuild`, in the caller's transaction).

    A committed PIN's hash is not in the journal: a row's hash is kept when it is the one the journal's
    commitment names; else the user has no PIN (NO_PIN) until an admin sets one (drr users pin)."""
    users = expected(conn)
    kept = {
        str(name): str(text)
        for name, text in conn.execute(sa.select(schema.users.c.name, schema.users.c.pin_hash)).all()
    }
    for name, row in users.items():
        if row.pin_hash.startswith(COMMITTED + "$"):
            have = kept.get(name)
            users[name] = replace(row, pin_hash=have if have and pin_agrees(have, row.pin_hash) else NO_PIN)
    conn.execute(sa.delete(schema.users))
    if users:
        conn.execute(sa.insert(schema.users), [asdict(u) for u in users.values()])


def expected(conn: Connection) -> dict[str, UserRow]:
    """The users table as the store's floor chain says it is."""
    j = schema.journal
    rows = conn.execute(sa.select(j).where(j.c.table_id == FLOOR).order_by(j.c.seq))
    return fold(row_to_entry(r) for r in rows)
