"""`drr alerts`, `drr pitboss` and `drr report`: the floor stations' actions from the command line.

The same engine functions as the surveillance and pit-boss stations (engine/floor), so the same
role checks: every action names the user, takes the PIN (asked for when left out) and a reason,
and is journaled; a role that may not is refused with exit code 3.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from engine.cli.store_args import add_db, add_signer, add_table

if TYPE_CHECKING:
    from decimal import Decimal

    from engine.auth import User
    from engine.store.db import Store

T = TypeVar("T")


def _signer(p: argparse.ArgumentParser, *, reason: bool = True) -> None:
    if reason:
        p.add_argument("--reason", required=True, metavar="TEXT", help="kept in the journal with the action")
    p.add_argument("--user", required=True, metavar="NAME")
    p.add_argument("--pin", metavar="PIN", help="the user's PIN (asked for when left out)")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    a = sub.add_parser("alerts", help="surveillance alerts: list, scan the journals, acknowledge")
    asub = a.add_subparsers(dest="alerts_command", metavar="ACTION", required=True)
    ls = asub.add_parser("list", help="the latest alerts, newest first")
    add_db(ls)
    ls.add_argument("--open", action="store_true", help="only the alerts not acknowledged")
    ls.add_argument("--limit", type=int, default=50, metavar="N")
    ls.add_argument("--json", action="store_true", help="one JSON object per alert")
    add_signer(ls)
    ls.set_defaults(func=run_alerts_list)
    scan = asub.add_parser("scan", help="raise (journal) the alerts found in every table's journal")
    add_db(scan)
    scan.add_argument("--lookback", type=int, default=5000, metavar="N", help="journal entries per table")
    add_signer(scan, who="the user scanning")
    scan.set_defaults(func=run_alerts_scan)
    ack = asub.add_parser("ack", help="acknowledge an alert (surveillance, pit boss or admin)")
    ack.add_argument("alert_id", metavar="ALERT_ID")
    add_db(ack)
    ack.add_argument("--note", default="", metavar="TEXT")
    _signer(ack, reason=False)
    ack.set_defaults(func=run_alerts_ack)

    p = sub.add_parser(
        "pitboss",
        help="pit-boss actions: correct a result, approve a payout, resolve a hold, settings, rules",
    )
    psub = p.add_subparsers(dest="pitboss_command", metavar="ACTION", required=True)
    fix = psub.add_parser("correct", help="correct a round's result (both values kept in the journal)")
    fix.add_argument("round_id", metavar="ROUND_ID")
    fix.add_argument("--number", type=int, required=True, metavar="N", help="the right result, 0..36")
    add_db(fix)
    add_table(fix, help="the round's table, when the id exists on several")
    _signer(fix)
    fix.set_defaults(func=run_correct)
    ok = psub.add_parser("approve", help="approve a round's payout")
    ok.add_argument("round_id", metavar="ROUND_ID")
    add_db(ok)
    add_table(ok, help="the round's table, when the id exists on several")
    _signer(ok)
    ok.set_defaults(func=run_approve)
    rs = psub.add_parser(
        "resolve",
        help="acknowledge the hold of a table's round in play (on the table's own store; the table "
        "goes on at its next message)",
    )
    add_db(rs)
    add_table(rs, required=True, help="the table")
    _signer(rs)
    rs.set_defaults(func=run_resolve)
    st = psub.add_parser("settings", help="change table settings from the next round (KEY=VALUE ...)")
    st.add_argument("changes", nargs="+", metavar="KEY=VALUE")
    add_db(st)
    add_table(st, required=True, help="the table")
    _signer(st)
    st.set_defaults(func=run_settings)
    ws = psub.add_parser(
        "wheel-serviced",
        help="record a wheel change or maintenance of a table: its sequential bias tests start afresh",
    )
    ws.add_argument("what", choices=("wheel-change", "maintenance"), help="what was done to the wheel")
    add_db(ws)
    add_table(ws, required=True, help="the table")
    _signer(ws)
    ws.set_defaults(func=run_wheel_serviced)
    rl = psub.add_parser("rules", help="load a new Rules Submission for a table from its next round")
    rl.add_argument("file", metavar="FILE")
    add_db(rl)
    add_table(rl, required=True, help="the table")
    rl.add_argument("--yes", action="store_true", help="accept after the math report (else only show it)")
    _signer(rl)
    rl.set_defaults(func=run_rules)

    ct = psub.add_parser(
        "clear-tilt",
        help="clear a table's RNG tilt once the generator passes its start-up test again (on the "
        "table's own store and PC; journaled with who and the test's result)",
    )
    add_db(ct)
    add_table(ct, required=True, help="the table")
    _signer(ct)
    ct.set_defaults(func=run_clear_tilt)
    sw = psub.add_parser(
        "approve-software",
        help="approve the software digest a table may run (settings software.approved_digest; journaled)",
    )
    sw.add_argument(
        "digest",
        nargs="?",
        metavar="SHA256",
        help="the digest (as drr audit software prints it); default: the one this program runs",
    )
    add_db(sw)
    add_table(sw, required=True, help="the table")
    _signer(sw)
    sw.set_defaults(func=run_approve_software)

    r = sub.add_parser("report", help="a table's report for a UTC day or shift (rounds, handle, hold, hits)")
    add_db(r)
    add_table(r, required=True, help="the table")
    r.add_argument("--day", required=True, metavar="YYYY-MM-DD", help="the UTC day")
    r.add_argument("--shift", type=int, choices=(1, 2, 3), help="one eight-hour shift (06, 14, 22 UTC)")
    r.add_argument("--csv", metavar="FILE", help="also write the report as CSV")
    add_signer(r)
    r.set_defaults(func=run_report)


def _acting(
    args: argparse.Namespace, permission: str, table: str | None, act: Callable[[Store, User], T]
) -> T:
    """`act(store, user)` on the store of `args`, by `--user` signed in with `--pin` (asked for when
    left out) and holding `permission` at `table` (None: the floor's)."""
    from engine.cli.store_args import open_from_args, read_pin
    from engine.floor.actions import authorize
    from engine.store.users import FLOOR

    with open_from_args(args) as store:
        pin = args.pin if args.pin is not None else read_pin(f"PIN for {args.user}: ")
        return act(store, authorize(store, args.user, pin, permission, table=table or FLOOR, station="cli"))


def run_alerts_list(args: argparse.Namespace) -> int:
    import json

    from engine.cli.store_args import open_from_args, sign_in_if_users
    from engine.floor.alerts import list_alerts

    with open_from_args(args) as store:
        sign_in_if_users(store, args, "view_stats", doing="drr alerts list")
        alerts = [a for a in list_alerts(store, limit=10**6) if not (args.open and a.acknowledged)][
            : args.limit
        ]
    for a in alerts:
        if args.json:
            print(json.dumps(a.__dict__, sort_keys=True))
            continue
        ack = f"  ✓ {a.acknowledged_by} {a.acknowledged_at}" if a.acknowledged else ""
        when = (a.at or a.time)[:19]
        print(f"{when}  {a.table:8s} {a.severity.upper():8s} {a.alert_id:24s} {a.kind}: {a.message}{ack}")
    return 0


def run_alerts_scan(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args, sign_in_if_users
    from engine.floor import alerts as al
    from engine.floor.surveillance import floor_tables

    scanner = al.scanner_from_settings(getattr(args, "settings", None), lookback=args.lookback)
    with open_from_args(args) as store:
        sign_in_if_users(store, args, "view_stats", doing="drr alerts scan")
        found = scanner.scan(store, floor_tables(store))
    for a in found:
        print(f"{(a.at or a.time)[:19]}  {a.table:8s} {a.severity.upper():8s} {a.kind}: {a.message}")
    print(f"{len(found)} new alert(s)")
    return 0


def run_alerts_ack(args: argparse.Namespace) -> int:
    from engine.floor.alerts import acknowledge_alert

    _acting(args, "acknowledge_alert", None, lambda st, u: acknowledge_alert(st, args.alert_id, u, args.note))
    print(f"alert {args.alert_id} acknowledged by {args.user}")
    return 0


def run_correct(args: argparse.Namespace) -> int:
    from engine.floor.actions import correct_result

    def act(store: Store, user: User) -> int | None:
        return correct_result(store, args.round_id, args.number, args.reason, user, table=args.only_table)

    old = _acting(args, "correct_result", args.only_table, act)
    print(f"round {args.round_id}: result {old} corrected to {args.number} by {args.user}")
    return 0


def run_approve(args: argparse.Namespace) -> int:
    from engine.floor.actions import approve_payout

    def act(store: Store, user: User) -> Decimal:
        return approve_payout(store, args.round_id, args.reason, user, table=args.only_table)

    amount = _acting(args, "approve_payout", args.only_table, act)
    print(f"payout {amount} of round {args.round_id} approved by {args.user}")
    return 0


def run_resolve(args: argparse.Namespace) -> int:
    from engine.floor.actions import resolve_hold

    table = args.only_table
    what = _acting(args, "resolve_irregularity", table, lambda st, u: resolve_hold(st, table, args.reason, u))
    print(f"table {args.only_table}: hold acknowledged by {args.user} ({what}); the round goes on")
    return 0


def run_settings(args: argparse.Namespace) -> int:
    from engine.errors import DrrError
    from engine.floor.actions import change_settings

    changes: dict[str, str] = {}
    for item in args.changes:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise DrrError(f"setting {item!r} is not KEY=VALUE (e.g. max_bet=500)")
        changes[key.strip()] = value
    table = args.only_table
    _acting(args, "change_settings", table, lambda st, u: change_settings(st, table, changes, args.reason, u))
    listed = ", ".join(f"{k} = {v}" for k, v in changes.items())
    print(f"table {args.only_table}: {listed} from the next round, by {args.user}")
    return 0


def run_wheel_serviced(args: argparse.Namespace) -> int:
    from engine.floor.actions import wheel_serviced

    what = args.what.replace("-", " ")
    table = args.only_table
    _acting(args, "change_settings", table, lambda st, u: wheel_serviced(st, table, what, args.reason, u))
    print(f"table {args.only_table}: {what} recorded by {args.user}; its bias tests start afresh")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    from engine.floor.actions import load_rules, read_rules_candidate

    candidate = read_rules_candidate(args.file)
    print(candidate.report)
    if not args.yes:
        print(f"\nnot loaded: read the report above, then run again with --yes to accept {args.file}")
        return 1
    table = args.only_table
    _acting(args, "load_rules", table, lambda st, u: load_rules(st, table, candidate, args.reason, u))
    print(f"\n{args.file} accepted for table {args.only_table} from its next round by {args.user}")
    return 0


def run_clear_tilt(args: argparse.Namespace) -> int:
    from engine.table.gate_actions import clear_tilt

    table = args.only_table
    result = _acting(args, "resolve_irregularity", table, lambda st, u: clear_tilt(st, table, args.reason, u))
    print(f"table {args.only_table}: tilt cleared by {args.user} ({result.text()})")
    return 0


def run_approve_software(args: argparse.Namespace) -> int:
    from engine.software_id import running_digest
    from engine.table.gate_actions import approve_software

    digest = args.digest or running_digest()
    source = getattr(getattr(args, "settings", None), "source", None)
    table = args.only_table
    path = _acting(
        args,
        "change_settings",
        table,
        lambda st, u: approve_software(st, table, digest, args.reason, u, settings_file=source),
    )
    print(f"table {args.only_table}: software {digest} approved by {args.user} (written to {path})")
    return 0


def run_report(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime
    from pathlib import Path

    from engine.cli.store_args import open_from_args, sign_in_if_users
    from engine.errors import DrrError
    from engine.floor.reports import report_csv, table_report
    from engine.floor.windows import period_bounds

    try:
        day = datetime.strptime(args.day, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise DrrError(f"--day {args.day!r} is not a date such as 2026-11-29") from None
    since, until = period_bounds(day, args.shift or 0)
    with open_from_args(args) as store:
        sign_in_if_users(store, args, "view_stats", doing="drr report")
        rep = table_report(store, args.only_table, since, until)
    for label, value in rep.figures():
        print(f"{label:22s} {value}")
    for big in rep.largest:
        when = big.time[:19].replace("T", " ")
        print(f"{'largest payout':22s} {big.round_id}  {when}  result {big.result}  paid {big.paid:,.2f}")
    if args.csv:
        Path(args.csv).write_text(report_csv([rep]), encoding="utf-8")
        print(f"written {args.csv}")
    return 0
