"""`drr config show|check|init`: the installation's settings file, its effective values and their origin."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from engine.config import SERIAL_OPTIONS, add_settings_options
from engine.errors import DrrError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "config",
        help="show, check or create the installation's settings file",
        description="The settings file (TOML) of this installation. Command-line options override it.",
    )
    actions = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)

    show = actions.add_parser("show", help="effective settings and where each value came from")
    show.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    # The common options, declared the conventional way (default=None), so an operator can preview
    # what a command would run with: `drr config show --table 4 --wheel serial:COM3`.
    add_settings_options(show, "table", "station", "wheel", "protocol", "db", "rules", *SERIAL_OPTIONS)
    show.set_defaults(func=run_show)

    check = actions.add_parser("check", help="validate a settings file: a summary, or every problem (exit 1)")
    check.add_argument("file", nargs="?", type=Path, help="the file to check (default: the one in use)")
    # The file in use may be the broken one: the dispatcher must not refuse to start because of it.
    check.set_defaults(func=run_check, load_settings=False)

    init = actions.add_parser("init", help="write a commented settings file holding every default")
    init.add_argument(
        "file", nargs="?", type=Path, help="where (default: $DRR_CONFIG or the user config dir)"
    )
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    init.set_defaults(func=run_init, load_settings=False)


def run_show(args: argparse.Namespace) -> int:
    from engine import config

    settings: config.Settings = args.settings
    described = config.describe(settings)
    if args.json:
        doc = {
            "file": str(settings.source) if settings.source else None,
            "settings": described,
            "derived": config.derived_paths(settings),
        }
        print(json.dumps(doc, indent=2))
        return 0
    print(f"settings file: {settings.source or 'none (embedded defaults)'}")
    width = max(len(k) for k in described)
    for key, entry in described.items():
        value = entry["value"]
        shown = (
            "(embedded default)" if value is None else json.dumps(value) if isinstance(value, str) else value
        )
        if isinstance(value, bool):
            shown = "true" if value else "false"
        print(f"  {key:<{width}}  {shown!s:<40} {entry['origin']}")
    for name, path in config.derived_paths(settings).items():
        print(f"  {name + ' (effective)':<{width}}  {path}")
    return 0


def run_check(args: argparse.Namespace) -> int:
    from engine import config

    path = args.file or getattr(args, "config_file", None) or config.settings_path()
    if path is None:
        looked = f"${config.CONFIG_ENV}, {config.user_settings_path()}, {config.site_settings_path()}"
        print(f"OK: no settings file ({looked}); the embedded defaults apply")
        return 0
    values, problems = config.read_settings_file(path)
    if problems:
        for problem in problems:
            print(problem)
        print(f"{path}: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    settings = config.load_settings(path, environ={})
    db = settings.database_url or "the SQLite journal in the user data directory"
    rules = settings.rules_path or "the shipped default"
    if settings.rules_path is not None and not settings.rules_path.is_file():
        print(f"{path}: rules.path: no such file {settings.rules_path}")
        return 1
    print(
        f"OK: {path}: {len(values)} key(s) set; table {settings.table_id}, station {settings.station}, "
        f"wheel {settings.wheel}, database {db}, rules {rules}"
    )
    return 0


def run_init(args: argparse.Namespace) -> int:
    from engine import config

    named = os.environ.get(config.CONFIG_ENV, "").strip()
    path: Path = args.file or args.config_file or (Path(named) if named else config.user_settings_path())
    if path.exists() and not args.force:
        raise DrrError(f"{path} already exists (use --force to overwrite it)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(config.template(), encoding="utf-8")
    except OSError as exc:
        raise DrrError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"wrote {path}")
    return 0
