"""`drr simulate --spins N [--seed S] [--strategy …] [--rules FILE] [--json]`: Monte Carlo check.

Plays N whole spins (one wager of every kind each spin, bonus games by the strategy) with
the vectorised simulator of engine.math.simulate on every core, and prints each kind's
RTP estimate with its 99% interval next to the exact RTP of `drr math`. Without --seed a
fresh seed is drawn and printed, so any run can be repeated.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from engine.errors import DrrError

if TYPE_CHECKING:
    from engine.math.simulate import SimulationResult

STRATEGY_NAMES = ("optimal", "cash_out_at_3", "play_to_end")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("simulate", help="Monte Carlo check of the game math: play N whole spins")
    p.add_argument("--spins", metavar="N", default="1000000", help="how many spins (default 1,000,000)")
    p.add_argument("--seed", metavar="S", help="seed for a repeatable run (default: a fresh one, printed)")
    # Checked in run() rather than by argparse `choices`, so a typo gets the one-line error.
    p.add_argument(
        "--strategy",
        metavar="|".join(STRATEGY_NAMES),
        default="optimal",
        help="how bonus games are played (default optimal)",
    )
    p.add_argument("--rules", metavar="FILE", help="the Rules Submission TOML (default: the shipped one)")
    p.add_argument("--workers", metavar="W", help="processes to use (default: every core)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=run)
    # --rules left out: the settings file's rules.path, else the shipped file (engine.config convention).
    from engine.config import mark_settings_options

    mark_settings_options(p, "rules")


# Far beyond any useful run (hours on this machine), but it keeps a typo of a few extra
# digits from queueing millions of tasks instead of answering.
MAX_SPINS = 10**11


def whole_number(text: str, option: str, minimum: int, maximum: int | None = None) -> int:
    """`text` as an integer in minimum..maximum ("1_000_000" and "1,000,000" allowed), else a
    one-line DrrError."""
    cleaned = str(text).strip().replace("_", "").replace(",", "")
    if not cleaned.lstrip("-").isdigit():
        raise DrrError(f"{option} must be a whole number, not {text!r}", exit_code=2)
    value = int(cleaned)
    if value < minimum:
        raise DrrError(f"{option} must be at least {minimum:,}, not {value:,}", exit_code=2)
    if maximum is not None and value > maximum:
        raise DrrError(f"{option} must be at most {maximum:,}, not {value:,}", exit_code=2)
    return value


def run(args: argparse.Namespace) -> int:
    spins = whole_number(args.spins, "--spins", 1, MAX_SPINS)
    seed = None if args.seed is None else whole_number(args.seed, "--seed", 0)
    workers = None if args.workers is None else whole_number(args.workers, "--workers", 1)
    if args.strategy not in STRATEGY_NAMES:
        raise DrrError(
            f"--strategy must be one of {', '.join(STRATEGY_NAMES)}, not {args.strategy!r}", exit_code=2
        )

    import numpy as np

    from engine.cli.console import progress_bar
    from engine.math.bonus_value import Strategy
    from engine.math.rules_gate import load_rules_or_refuse
    from engine.math.simulate import simulate

    rules = load_rules_or_refuse(args.rules)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) % (1 << 64)  # type: ignore[arg-type]
    strategy = Strategy(args.strategy)
    # The bar goes to stderr, so it can run beside --json on stdout.
    with progress_bar("spins", spins) as update:
        advance = None if update is None else lambda n: update(advance=n)
        result = simulate(rules, spins, seed=seed, strategy=strategy, workers=workers, progress=advance)
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        _print_table(result, rules.name)
    return 0


def _print_table(result: SimulationResult, name: str) -> None:
    from rich import box
    from rich.table import Table

    from engine.cli.console import stdout_console
    from engine.math.wager_math import KIND_TITLES

    console = stdout_console()
    table = Table(
        title=(
            f"{name}: {result.spins:,} spins, bonus games played {result.strategy.value} "
            f"(seed {result.seed}), {result.spins_per_second:,.0f} spins/s"
        ),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("bet", no_wrap=True)
    for col in ("exact RTP %", "estimate %", "s.e. %", "99% from", "99% to", "hits %"):
        table.add_column(col, justify="right", no_wrap=True)
    for kind, e in result.kinds.items():
        exact = "-" if e.exact_rtp is None else f"{float(e.exact_rtp) * 100:.3f}"
        # An exact RTP outside the 99% interval is flagged next to the estimate.
        flag = " [red]*[/red]" if e.exact_inside_ci99 is False else ""
        table.add_row(
            KIND_TITLES[kind],
            exact,
            f"{e.rtp * 100:.3f}{flag}",
            f"{e.stderr * 100:.3f}",
            f"{e.ci99[0] * 100:.3f}",
            f"{e.ci99[1] * 100:.3f}",
            f"{e.hit_frequency * 100:.2f}",
        )
    console.print(table)
    console.print(
        f"{result.bonus_games:,} bonus games"
        + (f", mean outcome {result.bonus_mean:,.4f} to 1. " if result.bonus_games else ". ")
        + "* = the exact RTP is outside the 99% interval (about one kind in a hundred, by chance).",
        highlight=False,
    )
