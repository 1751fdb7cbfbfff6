"""`drr audit verify` (the journal untampered: hash chain, checkpoints, heads) and `drr audit software`
(the SHA-256 of every file of the running program and one digest over them, engine.software_id)."""

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
    v.add_argument(
        "--public-key",
        metavar="HEX",
        help="the table's public key (with --table), for a lab without the key file: "
        "the chain must be signed by it",
    )
    v.set_defaults(func=run_verify)
    s = asub.add_parser(
        "software",
        help="SHA-256 of every file of the running program and the digest over them",
    )
    s.add_argument(
        "--json",
        action="store_true",
        help='one JSON object {"digest": HEX, "files": [{"path", "sha256"}]} (with --hmac-seed each file '
        'also has its "hmac_sha256")',
    )
    s.add_argument(
        "--hmac-seed",
        metavar="HEX",
        help="give the keyed digest: every file's bytes HMAC-SHA256'd with this key (a lab's GAT-style "
        "check; docs/certification.md)",
    )
    s.set_defaults(func=run_software)


def _lost_journal(args: argparse.Namespace) -> str | None:
    """A store that cannot be opened (e.g. a 0-byte file) where a table's key says a journal existed."""
    from engine.store import keys
    from engine.store.db import DEFAULT_TABLE, make_url, resolve_url

    table = args.only_table or getattr(getattr(args, "settings", None), "table_id", None) or DEFAULT_TABLE
    url = make_url(resolve_url(args.db, table))
    if url.get_backend_name() != "sqlite" or not url.database:
        return None
    from pathlib import Path

    where = str(Path(url.database).expanduser().absolute())
    for name in keys.tables_with_keys(where):
        key = keys.load(where, name)
        if key is not None and key.journaled and (args.only_table in (None, name)):
            return (
                f"table {name} entry 1: the journal is missing or empty, but the table's key {key.path} says "
                "it had entries"
            )
    return None


def run_verify(args: argparse.Namespace) -> int:
    import sys

    from engine.cli.store_args import open_from_args
    from engine.errors import DrrError
    from engine.store.verify import audit

    # An older schema is read as it is: the audit needs only the journal tables, and it must not
    # have to upgrade (alter) the copy it is judging.
    if args.public_key and not args.only_table:
        from engine.errors import DrrError

        raise DrrError("--public-key is one table's key: give --table too")
    try:
        store_cm = open_from_args(args, allow_older=True, heads=False)  # verify names it itself
    except DrrError as error:
        lost = _lost_journal(args)
        if lost is None:
            raise
        print(f"drr audit verify: {lost} ({error})", file=sys.stderr)
        return 1
    with store_cm as store:
        found = audit(store, args.only_table, public_key=args.public_key)
    report, damage, derived = found.report, found.damage, found.derived
    if derived is not None:
        print(f"drr audit verify: the journal verifies, but {derived}", file=sys.stderr)
        return 1
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


def run_software(args: argparse.Namespace) -> int:
    import json

    from engine.software_id import software_identity

    ident = software_identity(hmac_seed=args.hmac_seed)
    if args.json:
        print(json.dumps(ident.to_json(), indent=1))
        return 0
    # sha256sum's own format, so a lab can check a copy with `sha256sum -c` from the root.
    for f in ident.files:
        print(f"{f.sha256}  {f.path}")
    kind = "HMAC-SHA256 digest (keyed)" if ident.hmac_seed is not None else "digest"
    where = "bundle" if ident.frozen else "source tree"
    print(f"{kind}: {ident.digest}  ({len(ident.files)} files, {where} {ident.root})")
    return 0
