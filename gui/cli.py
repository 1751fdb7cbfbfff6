"""The `drr` command: one program, subcommands gathered from every layer.

This module sits at the top of the layer stack so it may reach engine, hardware and
gui commands; it imports each command module only to register its arguments, and
each handler imports its own heavy dependencies (Qt, numpy, SQLAlchemy) lazily.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from engine import __version__
from engine.errors import DrrError

# Each module defines register(subparsers) and sets a `func` default on its parsers.
COMMAND_MODULES: tuple[str, ...] = (
    "engine.cli.rules_cmd",
    "engine.cli.settle_cmd",
    "gui.bench_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drr",
        description="Diamond Rush Roulette table system. With no command: start the croupier station.",
    )
    parser.add_argument("--version", action="version", version=f"drr {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _default_command() -> Callable[[argparse.Namespace], int]:
    """What plain `drr` does: the croupier station if the GUI exists, else a headless demo."""
    try:
        module = importlib.import_module("gui.app")
    except ModuleNotFoundError:
        module = importlib.import_module("engine.cli.demo_cmd")
    return module.run_default  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    try:
        if func is None:
            return _default_command()(args)
        return int(func(args) or 0)
    except DrrError as exc:
        print(f"drr: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
