"""`drr users add|list|disable|enable|role|pin|unlock`: the people who may use the stations, their roles
and PINs; every change journaled (engine.store.users)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.auth import User
    from engine.store.db import Store

from engine.cli.store_args import add_db, add_signer


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "users", help="add, list or disable users (roles: croupier, surveillance, pitboss, admin)"
    )
    usub = p.add_subparsers(dest="users_command", metavar="ACTION", required=True)

    add = usub.add_parser("add", help="add a user (the first user of a store must be an admin)")
    add.add_argument("name", metavar="NAME")
    add.add_argument("--role", required=True, choices=("croupier", "surveillance", "pitboss", "admin"))
    add.add_argument(
        "--pin",
        metavar="PIN",
        help="4-12 digits, a pit boss's or admin's 6 or more (asked for twice when left out)",
    )
    _admin(add)
    add_db(add)
    add.set_defaults(func=run_add)

    ls = usub.add_parser("list", help="list users, roles and lock-outs")
    add_db(ls)
    ls.add_argument("--json", action="store_true")
    add_signer(ls, who="the admin listing the users")
    ls.set_defaults(func=run_list)

    dis = usub.add_parser("disable", help="disable a user (kept for the record)")
    dis.add_argument("name", metavar="NAME")
    _admin(dis)
    add_db(dis)
    dis.set_defaults(func=run_disable)

    en = usub.add_parser("enable", help="enable a disabled user again")
    en.add_argument("name", metavar="NAME")
    _admin(en)
    add_db(en)
    en.set_defaults(func=run_change, change="enable")

    ro = usub.add_parser("role", help="change a user's role")
    ro.add_argument("name", metavar="NAME")
    ro.add_argument("--role", required=True, choices=("croupier", "surveillance", "pitboss", "admin"))
    _admin(ro)
    add_db(ro)
    ro.set_defaults(func=run_change, change="role")

    un = usub.add_parser("unlock", help="end a user's lock-out and clear the count of wrong PINs")
    un.add_argument("name", metavar="NAME")
    _admin(un)
    add_db(un)
    un.set_defaults(func=run_change, change="unlock")

    pn = usub.add_parser("pin", help="set a user's new PIN (a commitment to its hash is journaled)")
    pn.add_argument("name", metavar="NAME")
    pn.add_argument(
        "--pin",
        metavar="PIN",
        help="the new PIN, 4-12 digits, a supervisor's 6 or more (asked for twice when left out)",
    )
    _admin(pn)
    add_db(pn)
    pn.set_defaults(func=run_change, change="pin")


def _admin(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--as", dest="admin", metavar="ADMIN", help="the admin doing this (needed once a store has one)"
    )
    p.add_argument("--admin-pin", metavar="PIN", help="that admin's PIN (asked for when left out)")


def _login_admin(store: Store, args: argparse.Namespace) -> User | None:
    from engine.auth import AuthenticationFailed
    from engine.cli.store_args import read_pin
    from engine.store.users import authenticate, count_active_admins

    if args.admin is None:
        if count_active_admins(store):
            raise AuthenticationFailed("this store has admins: name one with --as ADMIN (and --admin-pin)")
        return None
    pin = args.admin_pin if args.admin_pin is not None else read_pin(f"PIN for {args.admin}: ")
    return authenticate(store, args.admin, pin, station="cli")


def _supervisor_digits(args: argparse.Namespace) -> int | None:
    """The settings file's users.supervisor_pin_digits (None: the default, 6)."""
    return getattr(getattr(args, "settings", None), "supervisor_pin_digits", None)


def _new_pin(args: argparse.Namespace) -> str:
    """`--pin`, else the new PIN asked for twice (refused when the two differ)."""
    from engine.cli.store_args import read_pin
    from engine.errors import DrrError

    if args.pin is not None:
        return str(args.pin)
    pin = read_pin(f"new PIN for {args.name}: ")
    if read_pin("the same PIN again: ") != pin:
        raise DrrError("the two PINs differ; nothing changed")
    return pin


def run_add(args: argparse.Namespace) -> int:
    from engine.cli.store_args import open_from_args
    from engine.store.users import add_user, check_pin

    pin = _new_pin(args)
    digits = _supervisor_digits(args)
    check_pin(pin, args.role, digits)  # before the store is created or touched
    with open_from_args(args, migrate=True) as store:
        by = _login_admin(store, args)
        add_user(store, args.name, args.role, pin, by=by, supervisor_digits=digits)
    print(f"user {args.name} added as {args.role}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict

    from engine.cli.store_args import open_from_args, sign_in_if_users
    from engine.store.users import list_users

    with open_from_args(args) as store:
        sign_in_if_users(store, args, "manage_users", doing="drr users list")
        users = list_users(store)
    if args.json:  # one JSON array, `[]` when there are none (a script reads it whole)
        print(json.dumps([asdict(u) for u in users], sort_keys=True))
        return 0
    for u in users:
        state = (
            "disabled" if u.disabled else (f"locked until {u.locked_until}" if u.locked_until else "active")
        )
        print(f"{u.name:<20} {u.role:<13} {state}")
    return 0


def run_disable(args: argparse.Namespace) -> int:
    from engine.auth import AuthenticationFailed
    from engine.cli.store_args import open_from_args
    from engine.store.users import disable_user

    with open_from_args(args) as store:
        by = _login_admin(store, args)
        if by is None:
            raise AuthenticationFailed("disabling a user needs an admin: --as ADMIN")
        disable_user(store, args.name, by=by)
    print(f"user {args.name} disabled")
    return 0


def run_change(args: argparse.Namespace) -> int:
    from engine.auth import AuthenticationFailed
    from engine.cli.store_args import open_from_args
    from engine.store import users

    new_pin = None
    if args.change == "pin":
        new_pin = _new_pin(args)
        users.check_pin(new_pin)
    with open_from_args(args) as store:
        by = _login_admin(store, args)
        if by is None:
            raise AuthenticationFailed(f"{args.change} needs an admin: --as ADMIN")
        if args.change == "enable":
            users.enable_user(store, args.name, by=by)
            said = "enabled"
        elif args.change == "role":
            users.change_role(store, args.name, args.role, by=by, supervisor_digits=_supervisor_digits(args))
            said = f"is now {args.role}"
        elif args.change == "unlock":
            users.unlock_user(store, args.name, by=by)
            said = "unlocked"
        else:
            assert new_pin is not None
            users.set_pin(store, args.name, new_pin, by=by, supervisor_digits=_supervisor_digits(args))
            said = "has a new PIN"
    print(f"user {args.name} {said} (journaled)")
    return 0
