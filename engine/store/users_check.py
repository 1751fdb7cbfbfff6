"""`drr audit verify`'s check of the users table against the store's floor chain (its projection).

The floor chain's user entries are folded (engine.store.users_journal.step) and every `users` row
must be exactly what they say, column by column: a user inserted, promoted, re-enabled, unlocked,
its failure count reset or its PIN hash swapped with plain SQL is named, and so is a journaled PIN
hash with weak scrypt parameters or a wrong-PIN count that does not follow the one before. Since
issue 24 the journal keeps a keyed commitment to a PIN's hash, not the hash: the row's hash must be
the one it commits to (engine.store.users_journal.pin_agrees).
"""

from __future__ import annotations

from dataclasses import asdict

from engine.errors import DrrError
from engine.floor_events import COMMITTED
from engine.store.db import Store
from engine.store.users_journal import NO_PIN, expected, from_row, pin_agrees

_SHOWN = {"pin_hash": "the PIN hash", "failures": "the count of wrong PINs", "locked_until": "locked until"}


def _show(value: object) -> str:
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def users_problem(store: Store) -> str | None:
    """What in the `users` table the floor chain does not account for (None when it all agrees)."""
    import sqlalchemy as sa

    from engine.store import schema

    with store.read() as conn:
        try:
            want = expected(conn)
        except DrrError as error:
            return f"the users' journal: {error.message}"
        rows = [from_row(r) for r in conn.execute(sa.select(schema.users).order_by(schema.users.c.name))]
    have = {r.name: r for r in rows}
    for name in sorted(set(have) | set(want)):
        if name not in want:
            return f"users row {name} ({have[name].role}) is in no journal entry (added outside the journal)"
        if name not in have:
            return f"users row {name} of the journal is missing (removed outside the journal)"
        stored, journaled = asdict(have[name]), asdict(want[name])
        for column, value in journaled.items():
            if stored[column] == value or (column == "pin_hash" and pin_agrees(stored[column], value)):
                continue
            what = _SHOWN.get(column, column)
            if column == "pin_hash":
                why = (
                    "set before PINs were journaled: an admin sets it again (drr users pin)"
                    if value == NO_PIN
                    else "changed outside the journal"
                )
                if stored[column] == NO_PIN and str(value).startswith(COMMITTED + "$"):
                    return (
                        f"users row {name}: the PIN hash was lost outside the journal (the journal keeps "
                        "only a commitment to it): put the row back from a backup and run drr db rebuild, "
                        "or an admin sets a new PIN (drr users pin)"
                    )
                return f"users row {name}: {what} is not the one the journal set ({why})"
            return (
                f"users row {name}: {what} is {_show(stored[column])}, the journal says {_show(value)} "
                "(changed outside the journal)"
            )
    return None
