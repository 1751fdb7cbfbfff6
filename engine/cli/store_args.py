"""Shared `--db` / `--table` arguments of the store commands (light: argparse only)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.auth import User
    from engine.store.db import Store

DB_HELP = (
    "store URL: sqlite:///PATH, a file path or postgresql://user@host/db "
    "(default: the table's SQLite file in the user data directory)"
)


def add_db(parser: argparse.ArgumentParser) -> None:
    """`--db`, filled from the settings file (database.url) when left out."""
    from engine.config import mark_settings_options

    parser.add_argument("--db", metavar="URL", default=None, help=DB_HELP)
    mark_settings_options(parser, "db")


def add_table(parser: argparse.ArgumentParser, *, required: bool = False, help: str = "table id") -> None:
    """`--table` as this command's own filter (dest `only_table`): left out, it means every table.

    Its dest is not the settings convention's `table`, which would fill in the PC's own table id.
    """
    parser.add_argument("--table", dest="only_table", metavar="ID", required=required, help=help)


def open_from_args(
    args: argparse.Namespace, *, migrate: bool = False, allow_older: bool = False, heads: bool = True
) -> Store:
    """The store named by --db (and --table for the default file); never creates one unless `migrate`
    (`allow_older`: see engine.store.migrate.ensure_current). With `heads` a store with a chain whose
    head row is missing is refused in one line (engine.store.heads; `drr audit verify` names it itself)."""
    from engine.store.db import DEFAULT_TABLE, open_store
    from engine.store.heads import refuse_missing_heads

    # Without --table the default file is this PC's own table's (settings table.id), not table 1's.
    settings = getattr(args, "settings", None)
    table = getattr(args, "only_table", None) or getattr(settings, "table_id", None) or DEFAULT_TABLE
    store = open_store(args.db, table=table, migrate=migrate, allow_older=allow_older)
    if heads:
        try:
            with store.read() as conn:
                refuse_missing_heads(conn)
        except BaseException:
            store.close()
            raise
    return store


def read_pin(prompt: str) -> str:
    """A PIN typed without echo; a clear error when there is no terminal to type it on."""
    import getpass
    import sys

    from engine.errors import DrrError

    if not sys.stdin.isatty():
        raise DrrError("no PIN given and no terminal to ask for one: pass --pin")
    try:
        return getpass.getpass(prompt)
    except EOFError:
        # Ctrl-D (or input that ends) at the prompt is a cancel, not a crash.
        raise DrrError("no PIN typed; nothing changed") from None


def add_signer(parser: argparse.ArgumentParser, *, who: str = "the user reading") -> None:
    """`--user NAME` and `--pin PIN` (asked for when left out), needed once the store has users."""
    parser.add_argument("--user", metavar="NAME", help=f"{who} (needed once the store has users)")
    parser.add_argument("--pin", metavar="PIN", help="the user's PIN (asked for when left out)")


def sign_in_if_users(
    store: Store, args: argparse.Namespace, permission: str, *, doing: str, table: str | None = None
) -> User | None:
    """On a store that has users, the signed-in `--user` holding `permission` (every outcome
    journaled; a refusal raises AuthenticationFailed/PermissionDenied, exit 3); None on a store
    without users (a fresh or test store, where nothing can be signed). Readers' sign-ins go to the
    "floor" journal (`table` left out): a table's own chain on the floor database is the forwarded
    copy, written by the table alone."""
    from engine.auth import AuthenticationFailed
    from engine.floor.actions import authorize
    from engine.store.users import FLOOR, list_users

    name = getattr(args, "user", None)
    if name is None:
        if not list_users(store):
            return None
        raise AuthenticationFailed(f"this store has users: {doing} needs --user NAME (and its PIN)")
    pin = args.pin if getattr(args, "pin", None) is not None else read_pin(f"PIN for {name}: ")
    return authorize(store, name, pin, permission, table=table or FLOOR, station="cli")
