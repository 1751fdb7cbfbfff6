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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

    from engine.rules import RulesSubmission


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
    from engine.rules import check_rules_file

    rules, problems = check_rules_file(args.file)
    if rules is None:
        print(f"{args.file}: {len(problems)} problem(s); the Rules Submission is NOT valid:", file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        return 1
    from engine.rules import math_check

    print(f"{args.file}: valid Rules Submission (schema 1, § 617b.12)")
    print(summary(rules))
    # Valid, but a return to player outside the file's [math] band deserves a second look.
    for line in math_check(rules)[1]:
        print(f"  {line}", file=sys.stderr)
    return 0


def run_show(args: argparse.Namespace) -> int:
    from engine.rules import default_rules_path, load_rules

    path = args.file or default_rules_path()
    rules = load_rules(path)  # a bad file is refused before anything is printed
    print(f"Rules Submission {path}")
    print(summary(rules))
    print()
    print(paytable(rules))
    return 0


def _odds(x: Fraction) -> str:
    if x.denominator == 1:
        return f"{x.numerator:,}"
    # The decimal is for reading only; the exact fraction comes first.
    shown = f"{float(x):,.4f}".rstrip("0").rstrip(".")
    return f"{x.numerator:,}/{x.denominator} ({shown})"


def _weights(table: dict[Fraction, int] | dict[int, int]) -> str:
    total = sum(table.values())
    return ", ".join(f"{k} ({w}/{total})" for k, w in table.items())


def summary(rules: RulesSubmission) -> str:
    """A few lines saying what the Rules Submission offers."""
    lines = [
        f"  name            {rules.name}",
        f"  sha256          {rules.sha256}",
        f"  wagers          unit {rules.unit}, payouts rounded down to {rules.rounding}; "
        f"trios {'on' if rules.trios else 'off'}, first four {'on' if rules.first_four else 'off'}",
        f"  Lucky Numbers   how many (weight): {_weights(dict(rules.lucky_counts))}",
        f"  Lucky odds      X to 1 (weight): {_weights(dict(rules.lucky_odds))}",
        f"  bonus game      six rounds, {rules.bonus_timer_seconds} s per pick, largest outcome "
        f"{_odds(rules.max_bonus)} to 1",
    ]
    for i, table in enumerate(rules.bonus_rounds, start=1):
        lines.append(f"    round {i}       {_weights(dict(table))}")
    limits = rules.limits
    parts = [
        f"{name} {value}"
        for name, value in (
            ("minimum", limits.minimum),
            ("max inside", limits.maximum_inside),
            ("max outside", limits.maximum_outside),
            ("max per player", limits.maximum_per_player),
        )
        if value is not None
    ]
    lines.append(f"  limits          {', '.join(parts) if parts else 'none'}")
    return "\n".join(lines)


def paytable(rules: RulesSubmission) -> str:
    """Base, Lucky and bonus odds ("to 1") of every bet, as a fixed-width table."""
    from fractions import Fraction

    from engine.bets import PAYOUT_LINES

    low_x, high_x = min(rules.lucky_odds), max(rules.lucky_odds)
    low_b, high_b = min(rules.bonus_rounds[0]), rules.max_bonus
    rows = [("bet", "base", "Lucky", "Bonus")]
    for line in PAYOUT_LINES:  # engine.bets' table of bet kinds
        n, base = line.size, _odds(rules.base_odds[line.key])
        if line.inside:
            lucky = f"{_odds(low_x / n)} - {_odds(high_x / n)}"
            rows.append((line.label, base, lucky, f"{_odds(Fraction(low_b) / n)} - {_odds(high_b / n)}"))
        else:
            rows.append((line.label, base, "-", "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(
        "  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows
    )
