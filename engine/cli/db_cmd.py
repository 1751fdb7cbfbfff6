"""`drr db upgrade`: create the store or bring its schema to this program's version (Alembic)."""

from __future__ import annotations

import argparse

from engine.cli.store_args import add_db, add_table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("db", help="create or upgrade a store (SQLite file or PostgreSQL)")
    dsub = p.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    up = dsub.add_parser("upgrade", help="create the store or migrate it to the current schema")
    add_db(up)
    add_table(up, help="table id naming the default SQLite file (without --db)")
    up.set_defaults(func=run_upgrade)


def run_upgrade(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args
    from engine.store.migrate import head_revision

    with open_from_args(args, migrate=True) as store:
        if store.upgraded_from is None:
            print(f"{store.where}: schema {head_revision()} is current")
        else:
            print(f"{store.where}: schema upgraded from {store.upgraded_from} to {head_revision()}")
    return 0
