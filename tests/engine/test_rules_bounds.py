"""Issue 13 item 7: inputs that raised a traceback or were silently accepted are one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui.cli import main

DEFAULT = (Path(__file__).parents[1] / "data" / "worked-example-rules.toml").read_text(encoding="utf-8")
DEEP = "schema = 1\na = " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_TABLE = "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n"


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("text", [DEEP, DEEP_TABLE])
def test_toml_nested_5000_deep_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = _write(tmp_path, text)
    assert main(["rules", "check", path]) == 1
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "Traceback" not in err
    round_file = tmp_path / "round.json"
    round_file.write_text(json.dumps({"result": 1, "wagers": []}), encoding="utf-8")
    assert main(["settle", "--rules", path, str(round_file)]) == 2  # refused for play (issue 23)
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ('rounding = "0.01"', 'rounding = "100"', "wagers.rounding"),
        ("counts = { 1 = 20,", 'counts = { " 1" = 20,', "lucky.counts. 1"),
        ("counts = { 1 = 20,", 'counts = { "01" = 20,', "lucky.counts.01"),
        ("counts = { 1 = 20,", 'counts = { 1 = 15, "01" = 5,', "lucky.counts.01"),
    ],
)
def test_rounding_and_count_keys_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, key: str
) -> None:
    assert old in DEFAULT
    assert main(["rules", "check", _write(tmp_path, DEFAULT.replace(old, new, 1))]) == 1
    err = capsys.readouterr().err
    assert "NOT valid" in err and "Traceback" not in err
    assert any(line.strip().startswith(f"{key}:") for line in err.splitlines()), err
