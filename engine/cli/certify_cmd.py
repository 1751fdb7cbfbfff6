"""`drr certify DIR [--rules FILE] [--draws N]`: the whole certification pack for a test lab.

The pack's contents and formats are engine.certify's (docs/certification.md). A progress bar goes
to stderr when it is a terminal. Exit 0 when the pack is written and the RNG battery passed, 1 when
the battery failed (the pack is still written, with the failing results in rng/battery.*), 2 for a
Rules Submission `drr rules check` refuses (its lines; no pack is written).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.errors import DrrError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from engine.config import mark_settings_options

    p = sub.add_parser("certify", help="write the certification pack for a test lab into DIR")
    p.add_argument("dir", type=Path, metavar="DIR", help="a new (or empty) folder for the pack")
    p.add_argument("--rules", metavar="FILE", help="the Rules Submission TOML (default: the installation's)")
    p.add_argument(
        "--draws", metavar="N", default=None, help="Lucky/Bonus draws to collect and test (default 200,000)"
    )
    p.set_defaults(func=run)
    mark_settings_options(p, "rules")


@contextmanager
def _bar() -> Iterator[Callable[[str, int, int], None] | None]:
    """One rich bar over the whole pack, the step as its description, when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description:<20}",
        BarColumn(),
        TaskProgressColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("certify", total=None)

        def update(step: str, done: int, total: int) -> None:
            bar.update(task, description=step, completed=done, total=total)

        yield update


def run(args: argparse.Namespace) -> int:
    from engine.certify import DEFAULT_DRAWS, write_pack
    from engine.cli.math_cmd import PDF_WRITERS
    from engine.cli.rng_cmd import MAX_COUNT
    from engine.cli.simulate_cmd import whole_number
    from engine.rng_battery import MIN_DRAWS
    from engine.rules import default_rules_path

    draws = DEFAULT_DRAWS if args.draws is None else whole_number(args.draws, "--draws", MIN_DRAWS, MAX_COUNT)
    if not PDF_WRITERS:
        raise DrrError("drr certify: the PAR sheet's PDF needs the GUI package (Qt), which is not installed")
    rules = Path(args.rules) if args.rules else default_rules_path()
    with _bar() as progress:
        pack = write_pack(args.dir, rules, draws, PDF_WRITERS[-1], progress)
    verdict = "passed" if pack.battery_passed else "FAILED (see rng/battery.txt)"
    print(
        f"{pack.root}: {len(pack.files)} files and manifest.json; {pack.draws:,} draws, "
        f"{pack.bonus_games:,} bonus games, {pack.raw_bytes:,} raw bytes; RNG battery {verdict}"
    )
    return 0 if pack.battery_passed else 1
