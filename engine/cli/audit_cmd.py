"""`drr audit verify`: prove the journal untampered (hash chain, checkpoints, heads)."""

from __future__ import annotations

import argparse

from engine.cli.store_args import add_db, add_table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("audit", help="audit the journal")
    asub = p.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    v = asub.add_parser(
        "verify", help="verify the hash chain: exit 0 when intact, 1 naming the first bad entry"
    )
    add_db(v)
    add_table(v, help="verify only this table's chain (default: every chain in the store)")
    v.set_defaults(func=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    import sys

    from engine.cli.store_args import open_from_args
    from engine.store.verify import file_damage, verify

    # An older schema is read as it is: the audit needs only the journal tables, and it must not
    # have to upgrade (alter) the copy it is judging.
    with open_from_args(args, allow_older=True) as store:
        report = verify(store, args.only_table)
        damage = file_damage(store) if report.ok else None
    if report.ok and damage is None:
        print(report.summary())
        return 0
    if report.ok:
        print(
            f"drr audit verify: the hash chain is intact ({report.events} events, head {report.head}), "
            f"but the file {store.where} is damaged ({damage}): keep a copy of it and restore the store "
            "from a backup (docs/backup-restore.md)",
            file=sys.stderr,
        )
        return 1
    print(f"drr audit verify: {report.problem}", file=sys.stderr)
    return 1
