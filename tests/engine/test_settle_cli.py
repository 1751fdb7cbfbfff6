"""`drr settle`: the JSON contract of the engine issue, its errors and exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.rules import default_rules_path
from gui.cli import main

ISSUE_ROUND: dict[str, Any] = {
    "lucky": {"17": "199", "5": "49", "23": "99"},
    "bonus_number": 8,
    "result": 17,
    "bonus_odds": {"anna": "129"},
    "wagers": [
        {"id": "w1", "player": "anna", "bet": "straight", "numbers": [17], "amount": "5"},
        {"id": "w2", "player": "bob", "bet": "split", "numbers": [17, 20], "amount": "10"},
        {"id": "w3", "player": "bob", "bet": "dozen", "which": 2, "amount": "10"},
        {"id": "w4", "player": "bob", "bet": "red", "amount": "20"},
    ],
}


def _settle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: Any, *extra: str
) -> tuple[int, str, str]:
    path = tmp_path / "round.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    code = main(["settle", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_issue_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _settle(tmp_path, capsys, ISSUE_ROUND)
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "result": 17,
        "wagers": [
            {"id": "w1", "kind": "lucky", "odds": "199", "payout": "995.00"},
            {"id": "w2", "kind": "lucky", "odds": "199/2", "payout": "995.00"},
            {"id": "w3", "kind": "base", "odds": "2", "payout": "20.00"},
            {"id": "w4", "kind": "lose", "odds": "0", "payout": "0.00"},
        ],
        "total_wagered": "45.00",
        "total_paid": "2010.00",
    }


def test_bonus_win_uses_the_players_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {**ISSUE_ROUND, "result": 8}
    doc["wagers"] = [
        {"id": "a1", "player": "anna", "bet": "corner", "numbers": [7, 8, 10, 11], "amount": "2"},
        {"id": "a2", "player": "anna", "bet": "street", "numbers": [7, 8, 9], "amount": "1"},
        {"id": "b1", "player": "bob", "bet": "even", "amount": "4"},
    ]
    code, out, _ = _settle(tmp_path, capsys, doc)
    assert code == 0
    got = {w["id"]: (w["kind"], w["odds"], w["payout"]) for w in json.loads(out)["wagers"]}
    assert got == {
        "a1": ("bonus", "129/4", "64.50"),
        "a2": ("bonus", "43", "43.00"),
        "b1": ("base", "1", "4.00"),
    }


def test_missing_bonus_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {**ISSUE_ROUND, "result": 8, "bonus_odds": {}}
    doc["wagers"] = [{"id": "z", "player": "zoe", "bet": "straight", "numbers": [8], "amount": "1"}]
    code, out, err = _settle(tmp_path, capsys, doc)
    assert (code, out) == (1, "")
    assert "wager z: player 'zoe' won on the Bonus Number 8" in err


@pytest.mark.parametrize(
    ("wager", "message"),
    [
        (
            {"id": "bad7", "player": "a", "bet": "split", "numbers": [1, 5], "amount": "1"},
            "wager bad7: numbers 1-5",
        ),
        (
            {"id": "bad7", "player": "a", "bet": "red", "amount": "0.005"},
            "wager bad7: amount 0.005 is not a multiple",
        ),
        ({"id": "bad7", "player": "a", "bet": "red", "amount": -1}, "wager bad7: amount -1 is not positive"),
        ({"id": "bad7", "player": "a", "bet": "straight", "numbers": [37], "amount": "1"}, "outside 0-36"),
        ({"id": "w1", "player": "a", "bet": "red", "amount": "1"}, "wager w1: the id repeats"),
        (
            {"id": "bad7", "player": "a", "bet": "red", "amount": "1e100"},
            "wager bad7: amount 1e100 is too large",
        ),
        ({"id": "bad7", "player": "a", "bet": "red", "amout": "1"}, "wager bad7: unknown field(s) amout"),
        (
            {"id": "bad7", "player": "a", "bet": "red", "numbers": [1], "amount": "1"},
            "wager bad7: bet red covers fixed numbers",
        ),
        (
            {"id": "bad7", "player": "a", "bet": "straight", "numbers": [1], "which": 1, "amount": "1"},
            "wager bad7: bet straight takes numbers, not which",
        ),
    ],
)
def test_illegal_wager_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], wager: dict[str, Any], message: str
) -> None:
    doc = {**ISSUE_ROUND, "wagers": [*ISSUE_ROUND["wagers"], wager]}
    code, out, err = _settle(tmp_path, capsys, doc)
    assert (code, out) == (2, "")
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('{"lucky": ', "not valid JSON"),
        ([1, 2], "must be a JSON object"),
        ({"lucky": {"17": "500"}}, "outside 49 to 1 - 499 to 1"),
        ({"lucky": {"17": 199.0}}, "must be a string"),
        ({"lucky": {"40": "199"}}, "is not a number 0-36"),
        ({"lucky": {"17": "x"}}, "not an exact number"),
        ({"lucky": [17]}, '"lucky" must be an object'),
        # bonus_number 17 (a Lucky Number) exits 2 now, naming the field: tests/engine/test_settle_draw.py
        ({"bonus_number": None}, "bonus_number: None is not a number 0-36"),
        ({"result": 37}, "result: 37 is not a number 0-36"),
        ({"bonus_odds": {"anna": "28"}}, r"outside 29 to 1 - 4,999 to 1"),
        ({"bonus_odds": {"anna": "1/0"}}, "not an exact number"),
        ({"bonus_odds": ["anna"]}, '"bonus_odds" must be an object'),
        ({"wagers": {}}, '"wagers" must be a list'),
        ({"extra": 1}, "unknown field(s) extra"),
        ({"lucky": {"17": "1e999999999"}}, "not an exact number"),  # refused at once, not computed
        ({"lucky": {"9" * 5000: "199"}}, "is not a number 0-36"),  # more digits than int() converts
        ('{"result": 1' + "0" * 5000 + "}", "not valid JSON"),  # more digits than int() converts
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
    ],
)
def test_bad_input_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    doc = change if isinstance(change, str | list) else {**ISSUE_ROUND, **change}
    code, out, err = _settle(tmp_path, capsys, doc)
    assert (code, out) == (1, "")
    assert message in err
    assert err.startswith("drr: ") and err.count("\n") == 1


def test_rules_option_switches_first_four_off(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(default_rules_path().read_text().replace("first_four = true", "first_four = false"))
    doc = {
        **ISSUE_ROUND,
        "wagers": [{"id": "ff", "player": "a", "bet": "corner", "numbers": [0, 1, 2, 3], "amount": "1"}],
    }
    code, out, err = _settle(tmp_path, capsys, doc, "--rules", str(rules))
    assert (code, out) == (2, "")
    assert "wager ff: the first-four bet is not offered" in err
    code, out, err = _settle(tmp_path, capsys, doc, "--rules", str(tmp_path / "missing.toml"))
    assert (code, out) == (1, "")
    assert "cannot read the Rules Submission" in err


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(ISSUE_ROUND)))
    assert main(["settle", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["total_paid"] == "2010.00"


def test_subprocess_contract(tmp_path: Path) -> None:
    """The real `drr` program: exit codes, stdout empty on error, no traceback."""
    good = subprocess.run(
        [sys.executable, "-m", "gui.cli", "settle", "-"],
        input=json.dumps(ISSUE_ROUND),
        capture_output=True,
        text=True,
        check=False,
    )
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["wagers"][1]["odds"] == "199/2"
    bad_doc = {
        **ISSUE_ROUND,
        "wagers": [{"id": "q", "player": "a", "bet": "six_line", "numbers": [1, 2], "amount": "1"}],
    }
    bad = subprocess.run(
        [sys.executable, "-m", "gui.cli", "settle", "-"],
        input=json.dumps(bad_doc),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr.startswith("drr: wager q:") and "Traceback" not in bad.stderr


def test_money_is_written_to_the_same_places(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Totals and payouts all carry the places of the finest money step (unit or rounding)."""
    doc = {
        **ISSUE_ROUND,
        "wagers": [{**ISSUE_ROUND["wagers"][0], "amount": "5.000"}, ISSUE_ROUND["wagers"][3]],
    }
    code, out, _ = _settle(tmp_path, capsys, doc)
    got = json.loads(out)
    assert code == 0
    assert (got["total_wagered"], got["total_paid"]) == ("25.00", "995.00")
    assert [w["payout"] for w in got["wagers"]] == ["995.00", "0.00"]
    rules = tmp_path / "rules.toml"
    rules.write_text(default_rules_path().read_text().replace('rounding = "0.01"', 'rounding = "1"'))
    doc = {**ISSUE_ROUND, "wagers": [{**ISSUE_ROUND["wagers"][0], "amount": "0.35"}]}
    code, out, _ = _settle(tmp_path, capsys, doc, "--rules", str(rules))
    got = json.loads(out)
    # 0.35 x 199 = 69.65, rounded down to a whole unit, written with the wager unit's places.
    assert (code, got["wagers"][0]["payout"], got["total_wagered"], got["total_paid"]) == (
        0,
        "69.00",
        "0.35",
        "69.00",
    )


def test_bad_rules_file_gives_the_rules_check_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules.toml"
    text = default_rules_path().read_text()
    rules.write_text(text.replace("1 = 45, 3 = 40", "2 = 45, 3 = 40").replace("49 = 450", "48 = 450"))
    assert main(["rules", "check", str(rules)]) == 1
    check_lines = [line.strip() for line in capsys.readouterr().err.splitlines()[1:]]
    assert any("lucky.counts.2" in line for line in check_lines)
    assert any("lucky.odds.48" in line for line in check_lines)
    code, out, err = _settle(tmp_path, capsys, ISSUE_ROUND, "--rules", str(rules))
    assert (code, out) == (2, "")  # refused for play: exit 2 (issue 23 finding 5)
    assert "Traceback" not in err
    for line in check_lines:
        assert line in err
