"""Starting a station builds only the `gui` command's parser, with the whole parser's answers (issue 28)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gui import cli

ROOT = Path(__file__).resolve().parents[2]

STARTS = [
    ["gui", "--station", "croupier", "--db", "t.sqlite", "--first-frame-exit"],
    ["--config", "s.toml", "gui", "--station", "display", "--table", "T4"],
    ["--log-level=debug", "gui", "--wheel", "sim"],
    ["screenshots", "out"],
    [],
    ["--config", "s.toml"],
]


@pytest.mark.parametrize("argv", STARTS)
def test_the_station_parser_reads_a_start_as_the_whole_parser_does(argv: list[str]) -> None:
    whole = cli.build_parser().parse_known_args(argv)
    mine = cli.build_parser(cli.command_modules(argv)).parse_known_args(argv)
    assert vars(mine[0]) == vars(whole[0]) and mine[1] == whole[1]


@pytest.mark.parametrize("argv", [["history", "list"], ["--help"], ["--version"], ["--conf", "x", "gui"]])
def test_anything_else_gets_the_whole_parser(argv: list[str]) -> None:
    assert cli.command_modules(argv) == cli.COMMAND_MODULES


def test_starting_a_station_imports_no_other_command(tmp_path: Path) -> None:
    script = (
        "import json, sys\nfrom gui import cli\n"
        "cli.build_parser(cli.command_modules(sys.argv[1:])).parse_known_args(sys.argv[1:])\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script, "gui", "--station", "croupier"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    others = {m for m in cli.COMMAND_MODULES if m not in cli.STATION_COMMAND_MODULES}
    assert "gui.commands" in loaded and not others & loaded
