"""`drr gui` (start one station) and `drr screenshots DIR` (render every station to PNG).

Only argparse at import time: Qt loads inside the handlers.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.stations import STATIONS, spoken


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("gui", help=f"start a station: {spoken()}")
    p.add_argument(
        "--station", choices=STATIONS, default=None, help="default: the settings file's, else croupier"
    )
    p.add_argument(
        "--wheel",
        default=None,
        metavar="SPEC",
        help="sim | serial:PORT | replay:FILE (default: the settings file's, else sim)",
    )
    p.add_argument("--db", default=None, metavar="URL", help="journal database URL (default: local SQLite)")
    p.add_argument("--table", default=None, metavar="ID", help="table id (default: the settings file's)")
    p.add_argument("--rules", default=None, metavar="FILE", help="Rules Submission TOML (default: shipped)")
    p.add_argument(
        "--all-windows", action="store_true", help="with the croupier: player display and bonus screen too"
    )
    p.add_argument(
        "--first-frame-exit", action="store_true", help="print the ms to the first painted frame and exit"
    )
    p.set_defaults(func=run_gui)
    # Options left out come from the settings file (engine.config), else the embedded defaults.
    from engine.config import mark_settings_options

    mark_settings_options(p, "station", "wheel", "db", "table", "rules")

    s = sub.add_parser("screenshots", help="render each station with demo data to PNG files in DIR")
    s.add_argument("dir", type=Path, metavar="DIR")
    s.set_defaults(func=run_screenshots)


def run_gui(args: argparse.Namespace) -> int:
    from gui.app import run_station

    settings = getattr(args, "settings", None)
    return run_station(
        station=args.station or "croupier",
        # The effective settings already carry --wheel; their spec adds the serial line settings.
        wheel=settings.wheel_link_spec if settings is not None else (args.wheel or "sim"),
        rules=str(args.rules) if args.rules else None,
        db=args.db,
        table_id=str(args.table or "T1"),
        all_windows=args.all_windows,
        first_frame_exit=args.first_frame_exit,
        settings=settings,
    )


def run_screenshots(args: argparse.Namespace) -> int:
    from gui.app import offscreen_if_headless

    offscreen_if_headless()
    from gui.screenshots import render_all

    for path in render_all(args.dir):
        print(path)
    return 0
