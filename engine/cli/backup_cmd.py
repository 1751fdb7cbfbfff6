"""`drr backup DIR` / `drr restore DIR`: a table's SQLite store, key and witness copied with a manifest of
digests, and put back verified (engine.store.backup, docs/backup-restore.md)."""

from __future__ import annotations

import argparse

from engine.cli.store_args import add_db, add_table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    b = sub.add_parser(
        "backup",
        help="copy a table's SQLite store (online, while the table runs), its key file and witness into "
        "a new folder with a manifest of their SHA-256 digests; the copy is verified first",
    )
    b.add_argument("directory", metavar="DIR", help="a new (or empty) folder for this backup")
    add_db(b)
    add_table(b, help="the table (default: this PC's table, settings table.id)")
    b.add_argument("--json", action="store_true", help="print the manifest's summary as one JSON object")
    b.set_defaults(func=run_backup)

    r = sub.add_parser(
        "restore",
        help="put a backup back as the table's store (the store there is moved aside, kept), its key only "
        "where the table has none, and verify the result",
    )
    r.add_argument("directory", metavar="DIR", help="a folder written by drr backup")
    add_db(r)
    add_table(r, help="the table (default: the backup's own table)")
    r.set_defaults(func=run_restore)


def _sqlite_target(args: argparse.Namespace, table: str) -> str:
    from engine.errors import DrrError
    from engine.store.db import resolve_url

    url = resolve_url(args.db, table)
    if not url.startswith("sqlite:///"):
        raise DrrError(
            "drr backup and drr restore copy a table PC's SQLite store; back up a PostgreSQL floor "
            "database with pg_dump (docs/backup-restore.md)"
        )
    return url[len("sqlite:///") :]


def run_backup(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from engine.store.backup import backup
    from engine.store.db import DEFAULT_TABLE

    table = args.only_table or getattr(args.settings, "table_id", None) or DEFAULT_TABLE
    done = backup(Path(_sqlite_target(args, table)), table, Path(args.directory))
    if args.json:
        print(
            json.dumps(
                {
                    "directory": str(done.directory),
                    "table": done.table,
                    "head": {"seq": done.entries, "hash": done.head},
                    "key_fingerprint": done.key_fingerprint,
                    "files": done.files,
                }
            )
        )
        return 0
    print(f"backed up table {table}: {done.entries} entries, head {done.head[:16]}…, verified")
    print(f"into {done.directory} (store, key file, witness, manifest.json); keep it off the table PC")
    return 0


def run_restore(args: argparse.Namespace) -> int:
    from pathlib import Path

    from engine.store.backup import read_manifest, restore

    table = args.only_table or str(read_manifest(Path(args.directory))["table"])
    done = restore(Path(args.directory), Path(_sqlite_target(args, table)), table)
    if done.moved_aside is not None:
        print(f"the store that was there is kept, untouched, at {done.moved_aside}")
    if done.key_restored:
        print("the table had no key file: the backup's key file and witness were put back")
    if done.problem is not None:
        print(done.problem)
        return 1
    seq, head = done.verified.tables.get(table, (0, ""))
    print(f"restored table {table} to {done.path}: verifies, {seq} entries, head {head[:16]}…")
    print("rounds after the backup's moment are not in it: record the gap in the incident log")
    return 0
