"""`drr db upgrade` / `rebuild` / `forward` / `quarantine` / `rotate-key` / `enroll` / `root-key` /
`writer-key`: the store's own maintenance.

`upgrade` creates the store or brings its schema to this program's version (Alembic), and on a
PostgreSQL floor database keys its floor chain (the root key, engine.store.floor_sign); `quarantine`,
`rotate-key`, `enroll` (admit a station's writer key to sign the floor chain), `root-key` (print the
floor's root key, or pin it on a table's PC: its provisioning) and `writer-key` (the key this host signs
the floor chain with) are the journal-evidence procedures of docs/journal-evidence.md."""

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

    rb = dsub.add_parser(
        "rebuild",
        help="recompute rounds and aggregates from the journal (after an upgrade, or to check them)",
    )
    add_db(rb)
    add_table(rb, help="only this table (default: every table in the store)")
    rb.set_defaults(func=run_rebuild)

    fw = dsub.add_parser("forward", help="forward a table's journal to the floor database (PostgreSQL)")
    add_db(fw)
    fw.add_argument("--to", required=True, metavar="URL", help="the floor database, e.g. postgresql://…")
    add_table(fw, required=True, help="the table whose chain to forward (repeatable)")
    fw.add_argument("--once", action="store_true", help="forward what is there and exit (else keep going)")
    fw.add_argument("--interval", type=float, default=0.5, metavar="S", help="seconds between polls")
    fw.set_defaults(func=run_forward)

    q = dsub.add_parser(
        "quarantine",
        help="move a store that fails drr audit verify aside (a SQLite file; on PostgreSQL the table's rows, "
        "to a quarantine schema), kept untouched, and start a new chain linked to its last good signed head "
        "(journaled)",
    )
    add_db(q)
    add_table(q, required=True, help="the table whose store is quarantined")
    q.add_argument("--user", required=True, help="who does it (journaled in table.quarantined)")
    q.set_defaults(func=run_quarantine)

    rk = dsub.add_parser(
        "rotate-key", help="replace the table's signing key (journaled, signed by the old key)"
    )
    add_db(rk)
    add_table(rk, required=True, help="the table whose key is rotated")
    rk.add_argument("--user", required=True, help="who does it (the entry's user)")
    rk.set_defaults(func=run_rotate_key)

    en = dsub.add_parser(
        "enroll",
        help="admit a station host's writer key to sign the floor chain of a PostgreSQL floor database "
        "(run where the floor's root key is; journaled, signed by the root key)",
    )
    add_db(en)
    en.add_argument("--host", required=True, help="the station host's name (as drr db writer-key prints it)")
    en.add_argument("--key", required=True, metavar="HEX", help="its writer key (drr db writer-key)")
    en.add_argument("--user", required=True, help="who enrolls it (journaled)")
    en.set_defaults(func=run_enroll)

    rt = dsub.add_parser(
        "root-key",
        help="print the floor database's root key (where it is held, whether this PC has it pinned), or "
        "install it on a table's PC with --pin (the forwarder takes no floor action until it is)",
    )
    add_db(rt)
    rt.add_argument(
        "--pin",
        metavar="HEX",
        help="the root key to pin here, as drr db root-key prints it on the admin's PC",
    )
    rt.set_defaults(func=run_root_key)

    wk = dsub.add_parser(
        "writer-key",
        help="print the key this host signs a PostgreSQL floor database's floor chain with (made if none)",
    )
    add_db(wk)
    wk.set_defaults(func=run_writer_key)


def run_quarantine(args: argparse.Namespace) -> int:
    from pathlib import Path

    from engine.store.db import resolve_url
    from engine.store.evidence import quarantine

    url = resolve_url(args.db, args.only_table)
    if not url.startswith("sqlite:///"):
        from engine.store.quarantine_pg import quarantine_in_database

        name, report, (seq, hash_, _) = quarantine_in_database(url, args.only_table, user=args.user)
        print(f"quarantined: {report.problem}")
        print(f"the damaged chain's rows are kept, untouched, in the schema {name}")
        print(f"table {args.only_table} starts a new chain from its last good signed head, entry {seq} ")
        print(f"({hash_})")
        return 0
    done = quarantine(Path(url[len("sqlite:///") :]), args.only_table, user=args.user)
    seq, hash_, _ = done.last_good
    print(f"quarantined: {done.report.problem}")
    print(f"the damaged store is kept at {done.moved_to}")
    print(
        f"a new store continues table {args.only_table} from its last good signed head, entry {seq} ({hash_})"
    )
    return 0


def run_rotate_key(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args
    from engine.store.evidence import rotate_key

    with open_from_args(args) as store:
        old, new = rotate_key(store, args.only_table, user=args.user)
    print(f"table {args.only_table}: key {old} rotated to {new} (journaled, signed by the old key)")
    return 0


def _floor_database(store: object) -> None:
    from engine.errors import DrrError

    if getattr(store, "is_sqlite", True):
        raise DrrError(
            "writer keys are for a PostgreSQL floor database (--db postgresql://…): a SQLite store's "
            "floor chain is signed by its own key"
        )


def run_enroll(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args
    from engine.store import floor_keying, keys

    with open_from_args(args) as store:
        _floor_database(store)
        done = floor_keying.enroll(store, args.host, args.key.strip().lower(), by=args.user)
    fp = keys.fingerprint(args.key.strip().lower())
    if done:
        print(f"writer key {fp} of host {args.host} enrolled on the floor chain (signed by the root key)")
    else:
        print(f"writer key {fp} is already enrolled on the floor chain")
    return 0


def run_root_key(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args
    from engine.errors import DrrError
    from engine.store import floor_sign, keys

    with open_from_args(args) as store:
        where = store.where
        with store.read() as conn:
            named = floor_sign.chain_root(conn)
    if args.pin:
        public = args.pin.strip().lower()
        made = floor_sign.pin_root(where, public)
        fp = keys.fingerprint(public)
        state = f"pinned at {floor_sign.root_pin_path(where)}" if made else "was pinned already"
        print(f"floor root key {fp} {state}")
        if named is not None and named != public:
            print(
                f"warning: the floor chain is keyed by {keys.fingerprint(named)}, not this key: "
                "the forwarder refuses every floor action of it (compare the fingerprints with the admin)"
            )
        return 0
    held = floor_sign.root_key(where)
    try:
        pinned = floor_sign.pinned_root(where)
    except DrrError:  # an unreadable pin is named by the forwarder; printing the key still helps
        pinned = None
    if named is None:
        print("the floor chain is not keyed yet: run drr db upgrade --db URL on the admin's PC")
        return 1
    fp = keys.fingerprint(named)
    if held is not None and held.public == named:
        where_is = (
            f"held here ({held.path}): pin it on each table's PC with drr db root-key --db URL --pin {named}"
        )
    elif pinned == named:
        where_is = f"pinned here ({floor_sign.root_pin_path(where)})"
    elif pinned is not None:
        where_is = f"NOT the key pinned here ({keys.fingerprint(pinned)}): the floor chain was keyed again"
    else:
        where_is = "not pinned here: compare the fingerprint with the admin's, then pin it (--pin HEX)"
    print(f"floor root key {named} (fingerprint {fp}), {where_is}")
    return 0


def run_writer_key(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args
    from engine.store import floor_sign, keys

    with open_from_args(args) as store:
        _floor_database(store)
        key = floor_sign.writer_key(store.where)
        with store.read() as conn:
            enrolled = key.public in floor_sign.keying(conn)[1]
    host = floor_sign.this_host()
    state = (
        "enrolled" if enrolled else f"not enrolled: drr db enroll --db URL --host {host} --key {key.public}"
    )
    print(f"host {host} writer key {key.public} (fingerprint {keys.fingerprint(key.public)}, {state})")
    return 0


def run_upgrade(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args
    from engine.store import keys
    from engine.store.migrate import head_revision

    with open_from_args(args, migrate=True) as store:
        if args.only_table:  # the table's key is made here or at its first start (docs/journal-evidence.md)
            key, made = keys.ensure(store.where, args.only_table)
            if made:
                fp = keys.fingerprint(key.public)
                print(f"table {args.only_table}: signing key {fp} created at {key.path}")
        if not store.is_sqlite:  # the floor chain's root key (engine.store.floor_keying)
            from engine.store import floor_keying

            named, root, made = floor_keying.ensure_root(store)
            fp = keys.fingerprint(named)
            if made and root is not None:
                print(f"floor chain: root key {fp} created at {root.path} (journaled as chain.keyed)")
            elif root is not None:
                print(f"floor chain: keyed by root key {fp} ({root.path})")
            else:
                print(f"floor chain: keyed by root key {fp}, whose key file is on the admin's PC, not here")
        if store.upgraded_from is None:
            print(f"{store.where}: schema {head_revision()} is current")
        else:
            print(f"{store.where}: schema upgraded from {store.upgraded_from} to {head_revision()}")
    return 0


def run_forward(args: argparse.Namespace) -> int:
    import logging
    import signal
    import sys
    import threading

    from engine.cli.store_args import open_from_args
    from engine.floor.inbox import FloorInbox
    from engine.logs import stderr_is_journal
    from engine.store.db import open_store
    from engine.store.forward import Forwarder

    with open_from_args(args) as local:
        if args.once:
            with open_store(args.to) as central:
                forwarder = Forwarder(local, central, [args.only_table])
                sent = forwarder.forward_once()
                once = FloorInbox(local, central, args.only_table)
                taken = once.take()
                if taken:  # the table's answer to the floor goes with this run
                    sent += forwarder.forward_once()
            print(f"forwarded {sent} entries of table {args.only_table}")
            if once.missing is not None:
                print(f"drr db forward: {once.missing}")
            for t in taken:
                print(
                    f"floor action {t.action} (floor entry {t.floor_seq}): {t.outcome}"
                    + (f": {t.why}" if t.why else "")
                )
            return 0
        # Whoever runs the forwarder in a terminal sees an outage and the catch-up, not only the log file
        # (under systemd every record already goes to the journal: engine.logs).
        forward_log = logging.getLogger("drr.store.forward")
        forward_log.setLevel(logging.INFO)
        if not stderr_is_journal():
            notices = logging.StreamHandler(sys.stderr)
            notices.setFormatter(logging.Formatter("drr db forward: %(message)s"))
            notices.setLevel(logging.INFO)
            forward_log.addHandler(notices)
        forwarder = Forwarder(local, args.to, [args.only_table])
        inbox: list[FloorInbox] = []  # made once the floor database is reachable

        def take_back() -> int:
            if not inbox:
                inbox.append(FloorInbox(local, forwarder.central_store(), args.only_table))
            was = inbox[0].missing
            done = len(inbox[0].take())
            if inbox[0].missing is not None and was is None:  # once, where the outage notices go too
                forward_log.warning("%s", inbox[0].missing)
            return done

        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            forwarder.run(stop, interval=args.interval, after=take_back)
        except KeyboardInterrupt:
            stop.set()
        finally:
            forwarder.close()
        if forwarder.status.last_error:
            print(f"drr db forward: {forwarder.status.last_error}")
            return 1
    return 0


def run_rebuild(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args
    from engine.errors import DrrError
    from engine.store.projections import rebuild
    from engine.store.verify import verify

    with open_from_args(args) as store:
        report = verify(store, args.only_table)
        if not report.ok:
            raise DrrError(f"the journal does not verify, nothing rebuilt: {report.problem}")
        for table in sorted(report.tables):
            with store.begin() as conn:
                count = rebuild(conn, table)
            print(f"table {table}: projections rebuilt from {count} journal entries")
    return 0
