"""`drr bench`: run the benchmarks of every layer and print their figures.

Each layer keeps its benchmarks in a `bench` module exposing
`BENCHMARKS: dict[str, Callable[[], dict[str, float]]]` (a group name to a function that
measures and returns named figures). Figures are measurements, never pass/fail tests.
`drr bench --scale` runs the long scale groups instead (gui/bench_scale_cmd.py, engine/bench_scale.py).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import time
from collections.abc import Callable

from engine.bench_keys import scratch_key_dir

BENCH_MODULES: tuple[str, ...] = (
    "engine.bench",
    "engine.math.bench",
    "engine.store.bench",
    "hardware.bench",
    "hardware.table_bench",
    "gui.bench",
    "gui.bench_stations",
)


def collect() -> dict[str, Callable[[], dict[str, float]]]:
    found: dict[str, Callable[[], dict[str, float]]] = {}
    for name in BENCH_MODULES:
        found.update(importlib.import_module(name).BENCHMARKS)
    return found


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("bench", help="run the benchmarks and print their figures")
    p.add_argument("--json", action="store_true", help="one JSON object {figure: value}")
    p.add_argument("--only", action="append", metavar="GROUP", help="run only this group (repeatable)")
    p.add_argument("--list", action="store_true", help="list the benchmark groups and exit")
    from gui.bench_scale_cmd import add_arguments

    add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.scale:
        from gui import bench_scale_cmd

        return bench_scale_cmd.run(args)
    if args.out or args.tiny or args.pg or args.workdir:
        print("drr bench: --out, --tiny, --pg and --workdir go with --scale", file=sys.stderr)
        return 2
    groups = collect()
    if args.list:
        for name in groups:
            print(name)
        return 0
    wanted = args.only or list(groups)
    unknown = [g for g in wanted if g not in groups]
    if unknown:
        print(f"drr bench: unknown group(s) {', '.join(unknown)}; see drr bench --list", file=sys.stderr)
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
    return 0
