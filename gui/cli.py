"""The `drr` command: one program, subcommands gathered from every layer.

This module sits at the top of the layer stack so it may reach engine, hardware and
gui commands; it imports each command module only to register its arguments, and
each handler imports its own heavy dependencies (Qt, numpy, SQLAlchemy) lazily.

Settings convention (one mechanism for every command, see engine/config.py):
- A command declares the common options ``--db``, ``--table``, ``--wheel``, ``--rules``,
  ``--station``, ``--protocol`` and the serial options (``--baudrate``, ``--bytesize``,
  ``--parity``, ``--stopbits``, ``--rtscts``/``--xonxoff`` as BooleanOptionalAction) with
  ``default=None`` through
  ``engine.config.add_settings_options(parser, "db", "table", ...)`` (or declares them itself and
  calls ``engine.config.mark_settings_options``), and does NOT fall back itself. A ``--table``
  that filters (None = every table) is not marked and stays None.
- After parsing, `main` loads the installation's settings file once and fills each marked
  option the user left at None from it, else from the embedded default
  (`engine.config.fill_from_settings`); a value the user typed always wins. A value that is
  still None afterwards means "the layer's own embedded default" (the store's SQLite journal,
  the shipped Rules Submission). Handlers also get the effective settings as ``args.settings``.
- A command that must run even when the settings file is broken (``drr config check``) sets
  ``load_settings=False`` on its parser.
- Logging to the rotating JSON-lines file is set up here, once (``--log-level``,
  env ``DRR_LOG_LEVEL``, settings ``logging.level``).
"""

from __future__ import annotations

import sys

# The product runs no byte-code but its sources' own (docs/certification.md, Software identity): it
# writes no caches, and it refuses to start with one planted, before any engine module is imported.
sys.dont_write_bytecode = True
from gui.bytecode_guard import refuse_planted_bytecode  # noqa: E402 - must come before the engine

refuse_planted_bytecode()

import argparse  # noqa: E402
import importlib  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402

from engine import __version__  # noqa: E402
from engine.errors import DrrError  # noqa: E402

# Each module defines register(subparsers) and sets a `func` default on its parsers.
COMMAND_MODULES: tuple[str, ...] = (
    "engine.cli.rules_cmd",
    "engine.cli.settle_cmd",
    "engine.cli.config_cmd",
    "hardware.cli",
    "engine.cli.db_cmd",
    "engine.cli.backup_cmd",
    "engine.cli.audit_cmd",
    "engine.cli.stats_cmd",
    "engine.cli.history_cmd",
    "engine.cli.users_cmd",
    "engine.cli.floor_cmd",
    "engine.cli.math_cmd",
    "engine.cli.simulate_cmd",
    "engine.cli.rng_cmd",
    "engine.cli.certify_cmd",
    "gui.commands",
    "gui.par_pdf",
    "hardware.table_run_cmd",
)


# The benchmarks are not part of the program a lab certifies (bench/, run from a checkout): `drr bench`,
# with whatever options it was given, says so in one line instead of failing as an unknown command.
BENCH_NOTICE = (
    "drr bench: the benchmarks are not part of the installed product; "
    "run `make bench` (python -m bench) from a checkout"
)


def _bench_notice(args: argparse.Namespace) -> int:
    print(BENCH_NOTICE, file=sys.stderr)
    return 2


# What plain `drr` (no command) takes from the settings file, as `drr gui` takes them as options.
DEFAULT_COMMAND_OPTIONS = ("station", "wheel", "table", "rules", "db")


# Starting a station (`drr gui …`, or plain `drr`) registers only the `gui` command: importing every
# command module and building their parsers was a fifth of the croupier station's time to its first
# frame (issue 28). Anything else — another command, --help, --version, an abbreviated option —
# builds the whole parser, so every answer and every error stays the whole parser's.
STATION_COMMAND_MODULES = ("gui.commands",)
_TOP_OPTIONS_WITH_VALUE = ("--config", "--log-level")


def command_modules(argv: Sequence[str]) -> tuple[str, ...]:
    """The command modules the parser of `argv` needs: the station's alone for a station start."""
    index = 0
    while index < len(argv):
        word = argv[index]
        if word in _TOP_OPTIONS_WITH_VALUE:
            index += 2
        elif word.startswith(tuple(f"{option}=" for option in _TOP_OPTIONS_WITH_VALUE)):
            index += 1
        elif word == "gui":
            return STATION_COMMAND_MODULES
        else:
            return COMMAND_MODULES  # another command, or an option the whole parser answers
    return STATION_COMMAND_MODULES  # plain `drr`: the station the settings name


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drr",
        description="Diamond Rush Roulette table system. With no command: start the croupier station.",
    )
    parser.add_argument("--version", action="version", version=f"drr {__version__}")
    parser.add_argument(
        "--config",
        dest="config_file",
        type=Path,
        metavar="FILE",
        help="settings file to use (default: $DRR_CONFIG, else settings.toml in the user config dir)",
    )
    parser.add_argument(
        "--log-level",
        default=None,
        type=str.upper,
        choices=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
        help="level of the log file (default: $DRR_LOG_LEVEL, else the settings file, else INFO)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(sub)
    bench = sub.add_parser(
        "bench", add_help=False, help="not in the installed product: `make bench` in a checkout"
    )
    bench.set_defaults(func=_bench_notice, load_settings=False)
    return parser


def _default_command() -> Callable[[argparse.Namespace], int]:
    """What plain `drr` does: the croupier station if the GUI exists, else a headless demo."""
    try:
        module = importlib.import_module("gui.app")
    except ModuleNotFoundError:
        module = importlib.import_module("engine.cli.demo_cmd")
    return module.run_default  # type: ignore[no-any-return]


def _apply_settings(args: argparse.Namespace) -> None:
    """Load the settings file, fill the options left at None, set up logging (the convention above)."""
    from engine import config, logs

    if not getattr(args, "load_settings", True):
        # The settings file may be the broken thing being checked; run on the embedded defaults.
        args.settings = config.Settings()
        return
    settings = config.load_settings(getattr(args, "config_file", None))
    args.settings = config.fill_from_settings(args, settings)
    logs.setup_logging(args.settings)
    logging.getLogger("drr").debug(
        "command started",
        extra=logs.context(
            command=getattr(args, "command", None), version=__version__, **logs.process_fields()
        ),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(command_modules(sys.argv[1:] if argv is None else argv))
    args, unknown = parser.parse_known_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if unknown and func is not _bench_notice:  # `drr bench` takes any of the old options (see above)
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if func is None:
        # Plain `drr` starts the station the settings name: the same fill as a command's options.
        for dest in DEFAULT_COMMAND_OPTIONS:
            setattr(args, dest, None)
        args.settings_options = DEFAULT_COMMAND_OPTIONS
    try:
        _apply_settings(args)
        code = _default_command()(args) if func is None else int(func(args) or 0)
        sys.stdout.flush()  # inside the try: a reader gone by now is the pipe case below, not exit 120
        return code
    except DrrError as exc:
        if logging.getLogger().handlers:  # not before the log is set up: Python would print it to stderr
            logging.getLogger("drr").warning(
                "command refused",
                extra={
                    "command": getattr(args, "command", None),
                    "exit_code": exc.exit_code,
                    "reason": exc.message,
                },
            )
        print(f"drr: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`drr history list | head`, `drr math | head -1`): what it read is what
        # it asked for, so this is success (exit 0, as `drr wheel decode … | head` always was), quietly;
        # stdout goes to /dev/null so Python's own flush at exit does not fail again (exit 120).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
