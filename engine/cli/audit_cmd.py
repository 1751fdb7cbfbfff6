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
    from engine.store.verify import verify

    with open_from_args(args) as store:
        report = verify(store, args.only_table)
    if report.ok:
        print(report.summary())
        return 0
    print(f"drr audit verify: {report.problem}", file=sys.stderr)
    return 1
