"""`drr math [--rules FILE] [--json | --markdown]`: the exact game math of a Rules Submission.

Readable tables by default; `--json` gives every exact value as a fraction string;
`--markdown` prints docs/math.md (the shipped file is this output for the default rules).
`--report FILE.pdf|FILE.md` writes the PAR sheet a test lab files (engine.math.report.par_sheet);
the PDF writer needs Qt, so gui/par_pdf.py plugs it into PDF_WRITERS.
A Rules Submission that fails `drr rules check` is refused with the same messages.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import DrrError

if TYPE_CHECKING:
    from engine.math.wager_math import GameMath

# (markdown text, path) -> path: registered by gui/par_pdf.py when the GUI package is there.
PDF_WRITERS: list[Callable[[str, Path], Path]] = []
REPORT_SUFFIXES = (".pdf", ".md")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("math", help="exact return to player and bonus-game value of a Rules Submission")
    p.add_argument("--rules", metavar="FILE", help="the Rules Submission TOML (default: the shipped one)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="exact values as fraction strings, one JSON object")
    out.add_argument("--markdown", action="store_true", help="the docs/math.md report")
    out.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        help="write the PAR sheet for a test lab to FILE.pdf or FILE.md (docs/certification.md)",
    )
    p.set_defaults(func=run)
    # --rules left out: the settings file's rules.path, else the shipped file (engine.config convention).
    from engine.config import mark_settings_options

    mark_settings_options(p, "rules")


def check_report_path(path: Path) -> None:
    if path.suffix.lower() not in REPORT_SUFFIXES:
        raise DrrError(f"--report: {path} must end in .pdf or .md", exit_code=2)
    if not path.parent.is_dir():
        raise DrrError(f"--report: the folder {path.parent} does not exist", exit_code=2)


def write_report(path: Path, text: str) -> Path:
    """The PAR sheet written as Markdown or, through the registered Qt writer, as PDF."""
    check_report_path(path)
    if path.suffix.lower() == ".md":
        path.write_text(text, encoding="utf-8")
        return path
    if not PDF_WRITERS:
        raise DrrError(f"--report: {path}: writing PDF needs the GUI package (Qt); write a .md instead")
    return PDF_WRITERS[-1](text, path)


def run(args: argparse.Namespace) -> int:
    # The math is imported by the handler only: `drr` imports every command module at start-up.
    from engine.math.report import markdown, par_sheet_text, to_json
    from engine.math.rules_gate import load_rules_or_refuse
    from engine.math.wager_math import game_math

    if args.report is not None:
        check_report_path(args.report)
    m = game_math(load_rules_or_refuse(args.rules))
    if args.report is not None:
        print(write_report(args.report, par_sheet_text(m, args.rules)))
    elif args.json:
        print(json.dumps(to_json(m), indent=1))
    elif args.markdown:
        sys.stdout.write(markdown(m, args.rules) if args.rules else markdown(m))
    else:
        _print_tables(m)
    return 0


def _print_tables(m: GameMath) -> None:
    from rich.table import Table

    from engine.cli.console import stdout_console
    from engine.math.bonus_value import STRATEGIES, Strategy
    from engine.math.report import STRATEGY_TITLES, frac, outcome_bands
    from engine.math.wager_math import KIND_TITLES, percent, sqrt_decimal

    console = stdout_console()
    console.print(f"[bold]{m.rules.name}[/bold]  sha256 {m.rules.sha256}")
    console.print(
        f"E[Lucky Numbers per spin] = {frac(m.lucky.mean_count)}, "
        f"E[Lucky odds] = {frac(m.lucky.mean_odds)} to 1; exact fractions: drr math --json"
    )

    rtp = Table(title="Return to player (one unit staked, stake included)", title_justify="left")
    rtp.add_column("bet")
    rtp.add_column("n", justify="right")
    for s in STRATEGIES:
        rtp.add_column(f"RTP {STRATEGY_TITLES[s]}", justify="right")
    rtp.add_column("house edge (optimal)", justify="right")
    for kind, w in m.wagers.items():
        rtp.add_row(
            KIND_TITLES[kind],
            str(w.numbers),
            *(f"{percent(w.rtp[s])}%" for s in STRATEGIES),
            f"{percent(w.house_edge(Strategy.OPTIMAL))}%",
        )
    console.print(rtp)

    stats = Table(title="Hits, Lucky/Bonus coverage, spread (optimal play)", title_justify="left")
    for col in ("bet", "hit frequency", "P(Lucky)", "P(Bonus)", "stdev", "largest payout (to 1)"):
        stats.add_column(col, justify="left" if col == "bet" else "right")
    for kind, w in m.wagers.items():
        stats.add_row(
            KIND_TITLES[kind],
            f"{percent(w.hit_frequency, 3)}%",
            f"{percent(w.p_lucky, 3)}%",
            f"{percent(w.p_bonus, 3)}%",
            sqrt_decimal(w.variance[Strategy.OPTIMAL], 4),
            frac(w.max_payout),
        )
    console.print(stats)

    bonus = Table(title="Bonus game value E[B] (straight-up odds)", title_justify="left")
    bonus.add_column("strategy")
    bonus.add_column("E[B]", justify="right")
    bonus.add_column("exact", justify="right")
    bonus.add_column("largest outcome", justify="right")
    for s in STRATEGIES:
        v = m.bonus[s]
        bonus.add_row(STRATEGY_TITLES[s], f"{float(v.mean):,.6f}", frac(v.mean), frac(v.maximum))
    console.print(bonus)

    dist = Table(title="Bonus outcomes under optimal play", title_justify="left")
    dist.add_column("B (to 1)")
    dist.add_column("probability", justify="right")
    dist.add_column("P(B or more)", justify="right")
    for band in outcome_bands(m.bonus[Strategy.OPTIMAL].distribution):
        dist.add_row(band.label, f"{float(band.probability):.6g}", f"{float(band.at_least):.6g}")
    console.print(dist)

    policy = Table(
        title="Optimal cash-out points (amount at risk = sum - round-1 multiplier)", title_justify="left"
    )
    for col in ("round", "plays on up to", "cashes out from"):
        policy.add_column(col, justify="right")
    for p in m.optimal_policy:
        policy.add_row(
            str(p.round),
            "-" if p.continue_max_at_risk is None else frac(p.continue_max_at_risk),
            "-" if p.cash_out_min_at_risk is None else frac(p.cash_out_min_at_risk),
        )
    console.print(policy)
