"""`drr rng collect …` and `drr rng test …`: RNG output for a test lab and the built-in battery.

    drr rng collect --raw BYTES --out FILE           raw bytes of the game's generator
    drr rng collect --draws N --out FILE.csv         Lucky/Bonus draws (draw,lucky_numbers,…)
    drr rng collect --bonus-games N --out FILE.csv   bonus-game boxes (game,round,boxes)
    drr rng test [--draws N] [--json]                collect and test at 99%; exit 0 pass, 1 fail

All through the production generator (engine.rng.SystemRng) and the production draw code
(engine.rng_collect, engine.rng_battery); `--rules FILE` on each, default the installation's.
A progress bar goes to stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.errors import DrrError

if TYPE_CHECKING:
    from engine.rng_collect import Collection

# Far beyond any useful run, but it keeps a typo of a few extra digits from running for days.
MAX_COUNT = 10**12


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from engine.config import mark_settings_options

    p = sub.add_parser("rng", help="collect RNG output for a test lab, or run the built-in battery")
    rng_sub = p.add_subparsers(dest="rng_command", metavar="COLLECT|TEST")
    p.set_defaults(func=lambda _args: _need_subcommand(p))

    c = rng_sub.add_parser("collect", help="write RNG output through the production generator")
    what = c.add_mutually_exclusive_group()
    what.add_argument("--raw", metavar="BYTES", help="raw bytes of the generator")
    what.add_argument("--draws", metavar="N", help="N Lucky/Bonus draws as CSV")
    what.add_argument("--bonus-games", metavar="N", help="N bonus games (six rounds each) as CSV")
    c.add_argument("--out", metavar="FILE", help="the file to write (replaced when complete)")
    c.add_argument("--rules", metavar="FILE", help="the Rules Submission TOML (default: the installation's)")
    c.set_defaults(func=run_collect)
    mark_settings_options(c, "rules")

    t = rng_sub.add_parser("test", help="collect and run the statistical battery at 99%%")
    t.add_argument("--draws", metavar="N", default=None, help="draws to test (default 200,000)")
    t.add_argument("--bonus-games", metavar="N", default=None, help="bonus games to test (default draws/10)")
    t.add_argument("--rules", metavar="FILE", help="the Rules Submission TOML (default: the installation's)")
    t.add_argument("--json", action="store_true", help="one JSON object")
    t.set_defaults(func=run_test)
    mark_settings_options(t, "rules")


def _need_subcommand(p: argparse.ArgumentParser) -> int:
    raise DrrError("drr rng: say `collect` or `test` (drr rng --help)", exit_code=2)


def run_collect(args: argparse.Namespace) -> int:
    from engine.cli.console import progress_bar
    from engine.cli.simulate_cmd import whole_number
    from engine.math.rules_gate import load_rules_or_refuse
    from engine.rng_collect import collect_bonus_games, collect_draws, collect_raw

    if args.out is None:
        raise DrrError("drr rng collect: --out FILE is required", exit_code=2)
    fn: Callable[..., Collection]
    if args.raw is not None:
        n, fn, what = whole_number(args.raw, "--raw", 1, MAX_COUNT), collect_raw, "bytes"
    elif args.draws is not None:
        n, fn, what = whole_number(args.draws, "--draws", 1, MAX_COUNT), collect_draws, "draws"
    elif args.bonus_games is not None:
        n, fn, what = (
            whole_number(args.bonus_games, "--bonus-games", 1, MAX_COUNT),
            collect_bonus_games,
            "games",
        )
    else:
        raise DrrError(
            "drr rng collect: say what to collect: --raw BYTES, --draws N or --bonus-games N", exit_code=2
        )
    rules = load_rules_or_refuse(args.rules)
    with progress_bar(what) as progress:
        result = fn(n, args.out, rules, progress)
    print(
        f"{result.path}: {result.count:,} {what} from {result.rng} in {result.seconds:.2f} s "
        f"({result.per_second:,.0f}/s), rules sha256 {result.rules_sha256}"
    )
    return 0


DEFAULT_TEST_DRAWS = 200_000


def run_test(args: argparse.Namespace) -> int:
    import json

    from engine.cli.console import progress_bar
    from engine.cli.simulate_cmd import whole_number
    from engine.math.rules_gate import load_rules_or_refuse
    from engine.rng_battery import run_battery

    draws = DEFAULT_TEST_DRAWS if args.draws is None else whole_number(args.draws, "--draws", 100, MAX_COUNT)
    games = (
        None if args.bonus_games is None else whole_number(args.bonus_games, "--bonus-games", 10, MAX_COUNT)
    )
    rules = load_rules_or_refuse(args.rules)
    with progress_bar("collecting") as progress:
        result = run_battery(draws, rules, progress, bonus_games=games)
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        for line in result.lines():
            print(line)
    return 0 if result.passed else 1
