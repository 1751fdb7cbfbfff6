"""A Rules Submission in words: the summary and paytable `drr rules show` prints and the pit boss previews."""

from __future__ import annotations

from fractions import Fraction

from engine.bets import PAYOUT_LINES
from engine.rules import RulesSubmission


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
