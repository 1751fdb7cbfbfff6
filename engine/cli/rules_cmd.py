"""`drr rules check FILE` and `drr rules show [FILE]`: validate and print a Rules Submission.

`check` prints a short summary and exits 0 when the file satisfies § 617b.12 and every wager
kind returns less than 100% under every bonus strategy (warnings on stderr for a return outside
the `[math]` band), or lists every violation (key path, what is wrong, the clause) on stderr
and exits 1. `show` prints the
parsed paytable: base, Lucky and bonus odds for every inside bet size.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("rules", help="check or show a Rules Submission (paytable TOML)")
    rsub = p.add_subparsers(dest="rules_command", metavar="ACTION", required=True)
    check = rsub.add_parser("check", help="validate a Rules Submission against § 617b.12")
    check.add_argument("file", metavar="FILE", help="the Rules Submission TOML file")
    check.set_defaults(func=run_check)
    show = rsub.add_parser("show", help="print the parsed paytable of a Rules Submission")
    show.add_argument("file", metavar="FILE", nargs="?", help="the TOML file (default: the shipped one)")
    show.set_defaults(func=run_show)


def run_check(args: argparse.Namespace) -> int:
    # The handlers import the engine themselves: `drr` imports every command module at start-up.
    from engine.math.rules_gate import check_rules_file, math_check
    from engine.rules_text import summary

    rules, problems = check_rules_file(args.file)
    if rules is None:
        print(f"{args.file}: {len(problems)} problem(s); the Rules Submission is NOT valid:", file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        return 1
    print(f"{args.file}: valid Rules Submission (schema 1, § 617b.12)")
    print(summary(rules))
    # Valid, but a return to player outside the file's [math] band deserves a second look.
    for line in math_check(rules)[1]:
        print(f"  {line}", file=sys.stderr)
    return 0


def run_show(args: argparse.Namespace) -> int:
    from engine.rules import default_rules_path, load_rules
    from engine.rules_text import paytable, summary

    path = args.file or default_rules_path()
    rules = load_rules(path)  # a bad file is refused before anything is printed
    print(f"Rules Submission {path}")
    print(summary(rules))
    print()
    print(paytable(rules))
    return 0
