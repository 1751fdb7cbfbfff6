"""`drr rules check`: the shipped file passes; each kind of violation names its key and clause."""

from __future__ import annotations

import re
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from engine.rules import default_rules_path, load_rules, parse_rules
from gui.cli import main

SHIPPED = default_rules_path().read_text(encoding="utf-8")
# Violations are made by editing a fixed file's text, so a new shipped paytable cannot break them.
DEFAULT = (Path(__file__).parents[1] / "data" / "worked-example-rules.toml").read_text(encoding="utf-8")


def _check(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> tuple[int, str, str]:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    code = main(["rules", "check", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_default_is_valid_and_summarised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _check(tmp_path, capsys, SHIPPED)
    assert (code, err) == (0, "")
    assert "valid Rules Submission" in out and "sha256" in out and "round 6" in out
    rules = load_rules(default_rules_path())
    assert rules.base_odds["corner"] == Fraction(13, 2)
    assert rules.unit == rules.rounding == Decimal("0.01")
    assert list(rules.lucky_counts) == [1, 3, 5, 10]


def test_show_prints_the_paytable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show"]) == 0
    out = capsys.readouterr().out
    assert "corner / first four" in out and "13/2 (6.5)" in out
    assert "499/6 (83.1667)" in out  # six-line Lucky top: 499 to 6


# (replace this, with that) in the default file -> (key path, clause) expected in the output
VIOLATIONS = [
    (
        "counts = { 1 = 20, 3 = 45, 5 = 30, 10 = 5 }",
        "counts = { 1 = 20, 2 = 45 }",
        "lucky.counts.2",
        "§ 617b.12(e)",
    ),
    ("counts = { 1 = 20, 3 = 45, 5 = 30, 10 = 5 }", "counts = {}", "lucky.counts", "§ 617b.12(e)"),
    ("49 = 500, 99 = 300", "48 = 500, 99 = 300", "lucky.odds.48", "§ 617b.12(f)"),
    ("199 = 50, 499 = 8", "199 = 50, 500 = 8", "lucky.odds.500", "§ 617b.12(f)"),
    ("    { 500 = 60, 1000 = 30, 2000 = 10 },\n", "", "bonus.rounds", "§ 617b.12(h)"),
    ("{ 29 = 60, 49 = 30, 99 = 10 }", "{ 28 = 60, 49 = 30, 99 = 10 }", "bonus.rounds[1]", "§ 617b.12(k),(l)"),
    (
        "{ 500 = 60, 1000 = 30, 2000 = 10 }",
        "{ 500 = 60, 1000 = 30, 3101 = 10 }",
        "bonus.rounds",
        "§ 617b.12(l)",
    ),
    ("{ 20 = 50, 50 = 40, 100 = 10 }", "{ 20 = 0, 50 = 40, 100 = 10 }", "bonus.rounds[2].20", "§ 617b.12(h)"),
    ("{ 20 = 50, 50 = 40, 100 = 10 }", "{ 20 = 1.5, 50 = 40 }", "bonus.rounds[2].20", "§ 617b.12(h)"),
    ("counts = { 1 = 20,", "counts = { 1 = -20,", "lucky.counts.1", "§ 617b.12(e)"),
    ("even_money = 1", "even_money = 0", "payouts.even_money", "§ 617b.12(b)"),
    ("dozen = 2", "dozen = -2", "payouts.dozen", "§ 617b.12(b)"),
    # Was straight 28 refused under § 617b.12(l), which governs bonus payouts only (issue 14): base
    # odds are bounded by the return-to-player check now; outside odds keep to Chapter 617a.
    ("even_money = 1", "even_money = 2", "payouts.even_money", "§ 617b.12(b), Chapter 617a"),
    ("column = 2\n", "", "payouts.column", "§ 617b.12(b)"),
    ("timer_seconds = 20", "timer_seconds = 2", "bonus.timer_seconds", "§ 617b.12(i)"),
    ("trios = true", "trios = 1", "wagers.trios", "§ 617a.3(e)"),
    ('unit = "0.01"', 'unit = "-1"', "wagers.unit", "§ 601a.2"),
    ('rounding = "0.01"', 'rounding = "cents"', "wagers.rounding", "§ 601a.2"),
    ("schema = 1", "schema = 2", "schema", "docs/rules-submission.md"),
    ('name = "Diamond Rush Roulette default"', 'name = ""', "name", "§ 601a.2"),
    ("[bonus]", "colour = 'red'\n[bonus]", "lucky.colour", "docs/rules-submission.md"),
    ("[bonus]", "[limits]\nminimum = 5\nmaximum_inside = 2\n[bonus]", "limits.maximum_inside", "§ 601a.2"),
    # Values TOML reads as floats that no exact number matches, and exponents that would take
    # minutes to turn into a Fraction: each a one-line violation, never a traceback or a hang.
    ("straight = 29", "straight = 1e400", "payouts.straight", "§ 617b.12(b)"),
    ("straight = 29", "straight = inf", "payouts.straight", "§ 617b.12(b)"),
    ("straight = 29", "straight = nan", "payouts.straight", "§ 617b.12(b)"),
    ('unit = "0.01"', 'unit = "1e-999999999"', "wagers.unit", "§ 601a.2"),
    ("49 = 500, 99 = 300", '"1e999999999" = 500, 99 = 300', "lucky.odds.1e999999999", "§ 617b.12(f)"),
    # An unquoted 6.5 in an inline table is TOML's dotted key 6 -> 5: say how to write it.
    ("{ 29 = 60, 49 = 30, 99 = 10 }", "{ 29.5 = 60, 49 = 30, 99 = 10 }", "bonus.rounds[1].29", "quoted"),
]


@pytest.mark.parametrize(("old", "new", "key", "clause"), VIOLATIONS)
def test_each_violation_names_key_and_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, key: str, clause: str
) -> None:
    assert old in DEFAULT
    code, out, err = _check(tmp_path, capsys, DEFAULT.replace(old, new, 1))
    assert (code, out) == (1, "")
    assert "NOT valid" in err
    assert any(line.strip().startswith(f"{key}:") and clause in line for line in err.splitlines()), err
    assert "Traceback" not in err


def test_every_violation_is_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        DEFAULT.replace("schema = 1", "schema = 3")
        .replace("49 = 500", "40 = 500")
        .replace("dozen = 2", "dozen = 0")
    )
    code, _, err = _check(tmp_path, capsys, text)
    assert code == 1
    for key in ("schema:", "lucky.odds.40:", "payouts.dozen:"):
        assert key in err


@pytest.mark.parametrize(
    ("content", "message"),
    [("schema = 1\nname = ", "not valid TOML"), (b"\xff\xfe", "not UTF-8")],
)
def test_unreadable_files_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes, message: str
) -> None:
    path = tmp_path / "bad.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert main(["rules", "check", str(path)]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert main(["rules", "check", str(tmp_path / "missing.toml")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_byte_order_mark_is_not_part_of_the_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + SHIPPED.encode("utf-8"))
    assert main(["rules", "check", str(path)]) == 0
    assert "valid Rules Submission" in capsys.readouterr().out


def test_show_of_a_bad_file_prints_nothing_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(DEFAULT.replace("schema = 1", "schema = 2"))
    assert main(["rules", "show", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "schema: must be 1" in err


def test_rules_check_as_a_program(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(DEFAULT.replace("counts = { 1 = 20,", "counts = { 7 = 20,"))
    proc = subprocess.run(
        [sys.executable, "-m", "gui.cli", "rules", "check", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1 and "lucky.counts.7" in proc.stderr and "Traceback" not in proc.stderr


def test_the_documented_example_is_a_valid_submission() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "rules-submission.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", doc, re.DOTALL)
    assert example is not None
    rules = parse_rules(example.group(1).encode(), source="docs/rules-submission.md")
    assert rules.limits.maximum_per_player == Decimal(2500)
