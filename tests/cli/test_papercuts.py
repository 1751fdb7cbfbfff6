"""The command line's papercuts of issue 29: every help page prints, a closed pipe is a quiet success,
an empty `--json` listing is `[]`."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gui.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def _every_parser(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _every_parser(sub, (*path, name))


def test_every_commands_help_prints() -> None:
    """`drr rng --help` crashed on a bare `%` in a help string: format every help page of every command."""
    pages = list(_every_parser(build_parser()))
    assert len(pages) > 40  # the whole tree, not only the top
    for path, parser in pages:
        text = parser.format_help()  # raises ValueError on a bad format string
        assert text.startswith("usage: drr"), path


def test_rng_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["rng", "--help"])
    assert stop.value.code == 0
    assert "99%" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["math"],  # rich's console: exited 1
        ["wheel", "decode", "--protocol", "ss2", "--results", "tests/data/ss2-capture-b.log"],  # exited 120
        ["math", "--json"],
    ],
)
def test_a_reader_that_goes_away_is_a_quiet_success(argv: list[str]) -> None:
    """`drr … | head`: the reader closes the pipe before drr writes; no traceback, exit 0."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from gui.cli import main; sys.exit(main())", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def test_users_list_json_with_no_users_is_an_empty_array(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "t.sqlite")
    assert main(["db", "upgrade", "--db", db]) == 0
    capsys.readouterr()
    assert main(["users", "list", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_the_build_uses_a_license_expression() -> None:
    """The first build printed ~40 lines of setuptools deprecation warnings: `project.license` as a table
    (PEP 639 wants an SPDX expression, which setuptools reads from 77 on)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert isinstance(project["project"]["license"], str)
    assert "setuptools>=77" in project["build-system"]["requires"]


def test_make_run_says_how_to_put_drr_on_path() -> None:
    out = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert 'export PATH="$PWD/.venv/bin:$PATH"' in out
