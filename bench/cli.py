"""`python -m bench` (`make bench`): run the benchmarks of every layer and print their figures.

Each benchmark module of this package exposes
`BENCHMARKS: dict[str, Callable[[], dict[str, float]]]` (a group name to a function that
measures and returns named figures). Figures are measurements, never pass/fail tests.
`python -m bench --scale` runs the long scale groups instead (bench/scale_cli.py, bench/scale.py).
The benchmarks are not part of the installed program (`drr bench` says so): they run from a checkout.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

from bench import scale_cli
from bench.limits import summary
from bench.scratch_keys import scratch_key_dir

BENCH_MODULES: tuple[str, ...] = (
    "bench.settle_figures",
    "bench.math_figures",
    "bench.store_figures",
    "bench.wheel_figures",
    "bench.table_figures",
    "bench.screen_figures",
    "bench.station_figures",
    "bench.soak_figures",
    "bench.floor_figures",
    "bench.bias_figures",
)


def collect() -> dict[str, Callable[[], dict[str, float]]]:
    found: dict[str, Callable[[], dict[str, float]]] = {}
    for name in BENCH_MODULES:
        found.update(importlib.import_module(name).BENCHMARKS)
    return found


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench", description="run the benchmarks and print their figures"
    )
    p.add_argument("--json", action="store_true", help="one JSON object {figure: value}")
    p.add_argument("--only", action="append", metavar="GROUP", help="run only this group (repeatable)")
    p.add_argument("--list", action="store_true", help="list the benchmark groups and exit")
    scale_cli.add_arguments(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except KeyboardInterrupt:
        return 130


def run(args: argparse.Namespace) -> int:
    if args.scale:
        return scale_cli.run(args)
    if args.out or args.tiny or args.pg or args.workdir:
        print("bench: --out, --tiny, --pg and --workdir go with --scale", file=sys.stderr)
        return 2
    groups = collect()
    if args.list:
        for name in groups:
            print(name)
        return 0
    wanted = args.only or list(groups)
    unknown = [g for g in wanted if g not in groups]
    if unknown:
        print(f"bench: unknown group(s) {', '.join(unknown)}; see python -m bench --list", file=sys.stderr)
        return 2
    figures: dict[str, float] = {}
    # The scratch stores' keys and witnesses go with them, never into the user's key directory.
    with tempfile.TemporaryDirectory(prefix="drr-bench-keys-") as keys, scratch_key_dir(keys):
        for name in wanted:
            started = time.perf_counter()
            result = groups[name]()
            figures.update(result)
            if not args.json:
                for key, value in result.items():
                    print(f"{key:40s} {value:>14,.3f}")
                print(f"  ({name}: {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        table = summary(figures)
        if len(table) > 1:  # each figure beside its limit measured in this run, and their ratio
            print()
            print("\n".join(table))
    return 0
