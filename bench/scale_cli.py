"""`python -m bench --scale`: run the scale groups (bench.scale) with a progress bar and write their figures.

The groups live in the modules of `SCALE_MODULES` (each registers its groups when imported). The bar
goes to stderr; the figures to stdout (a table with each goal, or with `--json` one JSON object
{figure: value}) and, with `--out FILE`, the same JSON object to FILE. A module not yet present is
named on stderr and its figures are absent.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.scale import Goal, ScaleContext, ScaleGroup, ScaleSkip, groups

SCALE_MODULES: tuple[str, ...] = (
    "bench.scale_store",  # scalestore: rebuild_entries_per_s, history_page_ms_at_1M_rounds
    "bench.scale_chain",  # chain: verify speed, incremental verify, table start at 5M
    "bench.scale_floor",  # scalefloor: forwarding, the 100-table floor
)


def load_groups() -> tuple[dict[str, ScaleGroup], list[str]]:
    """The registered groups, and the modules of SCALE_MODULES that do not exist (yet)."""
    missing: list[str] = []
    for name in SCALE_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise  # the module exists but imports something missing: a real failure
            missing.append(name)
    return groups(), missing


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--scale",
        action="store_true",
        help="run the long scale benchmarks instead (5M-entry journals, 1M rounds, 100 tables; up to 20 min)",
    )
    p.add_argument("--out", metavar="FILE", help="with --scale: also write the figures as JSON to FILE")
    p.add_argument(
        "--tiny",
        action="store_true",
        help="with --scale: tiny sizes (checks the run end to end)",
    )
    p.add_argument(
        "--pg",
        metavar="URL",
        help="with --scale: a scratch PostgreSQL the floor groups may fill (default $DRR_BENCH_PG_URL)",
    )
    p.add_argument(
        "--workdir",
        metavar="DIR",
        help="with --scale: build the journals in DIR and keep them",
    )


def run(args: argparse.Namespace) -> int:
    found, missing = load_groups()
    if args.list:
        for name, group in found.items():
            print(f"{name:24s} {', '.join(group.goals) or '-'}")
        return 0
    wanted = args.only or list(found)
    unknown = [g for g in wanted if g not in found]
    if unknown:
        print(
            f"bench --scale: unknown group(s) {', '.join(unknown)}; see python -m bench --scale --list",
            file=sys.stderr,
        )
        return 2
    for name in missing:
        print(f"bench --scale: {name} is not there yet; its figures are absent", file=sys.stderr)
    pg_url = args.pg or os.environ.get("DRR_BENCH_PG_URL") or None
    if args.workdir:
        Path(args.workdir).mkdir(parents=True, exist_ok=True)
        return _run_in(Path(args.workdir), args, [found[g] for g in wanted], pg_url)
    with tempfile.TemporaryDirectory(prefix="drr-scale-") as tmp:
        return _run_in(Path(tmp), args, [found[g] for g in wanted], pg_url)


def _run_in(workdir: Path, args: argparse.Namespace, chosen: list[ScaleGroup], pg_url: str | None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    # The run's keys stay in the scratch folder, never in the user's key directory.
    before = os.environ.get("DRR_KEY_DIR")
    os.environ["DRR_KEY_DIR"] = str(workdir / "keys")
    figures: dict[str, float] = {}
    goals: dict[str, Goal] = {}
    skipped: dict[str, str] = {}
    total = sum(g.weight for g in chosen) or 1.0
    console = Console(stderr=True)
    try:
        with Progress(
            TextColumn("{task.description:<22}"),
            BarColumn(),
            TextColumn("{task.percentage:>3.0f}%"),
            TimeElapsedColumn(),
            TextColumn("{task.fields[note]}"),
            console=console,
            transient=False,
        ) as bar:
            task = bar.add_task("scale", total=total, note="")
            done_before = 0.0
            ctx = (ScaleContext.tiny_sizes if args.tiny else ScaleContext.full)(workdir, pg_url=pg_url)
            for group in chosen:

                def progress(
                    done: float, note: str, _base: float = done_before, _g: ScaleGroup = group
                ) -> None:
                    share = _g.weight * min(max(done, 0.0), 1.0)
                    bar.update(task, completed=_base + share, description=_g.name, note=note[:60])

                ctx.progress = progress  # one context for the run: its long journals are built once
                progress(0.0, "starting")
                started = time.perf_counter()
                if group.needs_pg and not pg_url:
                    skipped[group.name] = "no PostgreSQL given (--pg or $DRR_BENCH_PG_URL)"
                else:
                    try:
                        result = group.fn(ctx)
                    except ScaleSkip as skip:
                        skipped[group.name] = str(skip)
                    else:
                        figures.update(result)
                        goals.update(group.goals)
                done_before += group.weight
                bar.update(
                    task, completed=done_before, note=f"{group.name} {time.perf_counter() - started:.0f} s"
                )
    finally:
        if before is None:
            os.environ.pop("DRR_KEY_DIR", None)
        else:
            os.environ["DRR_KEY_DIR"] = before
    for name, reason in skipped.items():
        print(f"bench --scale: {name} skipped: {reason}", file=sys.stderr)
    text = json.dumps(figures, sort_keys=True)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    if args.json:
        print(text)
    else:
        for key, value in figures.items():
            goal = goals.get(key)
            verdict = "" if goal is None else f"goal {goal}  {'holds' if goal.holds(value) else 'MISSED'}"
            print(f"{key:44s} {value:>14,.1f}  {verdict}")
    return 0
