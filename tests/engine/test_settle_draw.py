"""Issue 14 item 2: `drr settle` refuses rounds no table could have played (exit 2 naming the field)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from engine.bonus_game import reachable_outcomes
from engine.rules import default_rules_path, load_default_rules
from gui.cli import main

ROUND: dict[str, Any] = {
    "lucky": {"17": "199", "5": "49", "23": "99"},
    "bonus_number": 8,
    "result": 17,
    "bonus_odds": {"anna": "129"},
    "wagers": [
        {"id": "w1", "player": "anna", "bet": "straight", "numbers": [17], "amount": "5"},
        {"id": "w2", "player": "bob", "bet": "red", "amount": "20"},
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


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: Any, message: str, *extra: str) -> None:
    code, out, err = _settle(tmp_path, capsys, doc, *extra)
    assert (code, out) == (2, ""), err
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_the_base_round_settles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _settle(tmp_path, capsys, ROUND)
    assert (code, err) == (0, "")
    assert json.loads(out)["total_paid"] == "995.00"


def test_no_lucky_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(
        tmp_path, capsys, {**ROUND, "lucky": {}}, "lucky: 0 Lucky Number(s); the RNG selects 1, 3, 5 or 10"
    )


def test_seventeen_lucky_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lucky = {str(n): "49" for n in range(20, 37)}
    _refused(tmp_path, capsys, {**ROUND, "lucky": lucky}, "lucky: 17 Lucky Number(s)")


def test_count_the_rules_submission_does_not_draw(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "r.toml"
    text = default_rules_path().read_text(encoding="utf-8")
    rules.write_text(
        text.replace("counts = { 1 = 45, 3 = 40, 5 = 10, 10 = 5 }", "counts = { 1 = 45, 5 = 10 }")
    )
    _refused(
        tmp_path,
        capsys,
        ROUND,
        "lucky: 3 Lucky Numbers, but the Rules Submission draws 1, 5",
        "--rules",
        str(rules),
    )


@pytest.mark.parametrize("odds", ["123", "50"])
def test_odds_not_in_the_paytable(odds: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {**ROUND, "lucky": {"17": odds, "5": "49", "23": "99"}}
    _refused(tmp_path, capsys, doc, f"lucky.17: {odds} to 1 is not one of the Rules Submission's Lucky odds")


def test_bonus_number_is_a_lucky_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(tmp_path, capsys, {**ROUND, "bonus_number": 17}, "bonus_number: 17 is also a Lucky Number")


@pytest.mark.parametrize("outcome", ["30", "29.5"])
def test_unreachable_bonus_outcome(outcome: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {**ROUND, "result": 8, "bonus_odds": {"anna": outcome}}
    shown = "30" if outcome == "30" else "59/2"
    _refused(
        tmp_path,
        capsys,
        doc,
        f"bonus_odds.anna: {shown} to 1 is no outcome of the Rules Submission's bonus game",
    )


def test_reachable_outcomes_of_the_default_game() -> None:
    reach = reachable_outcomes(load_default_rules())
    assert {Fraction(29), Fraction(99), Fraction(129), Fraction(49)} <= reach  # 29 + 20 cashed out at 3
    assert Fraction(30) not in reach and Fraction(59, 2) not in reach
    assert max(reach) == 4999 and min(reach) == 29


def test_duplicate_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = json.dumps(ROUND).replace('"lucky": {"17": "199"', '"lucky": {"17": "49", "17": "499"')
    assert '"17": "49", "17": "499"' in text
    _refused(tmp_path, capsys, text, "lucky: the key '17' appears twice")
    top = json.dumps(ROUND)[:-1] + ', "result": 5}'
    _refused(tmp_path, capsys, top, "the round: the key 'result' appears twice")


@pytest.mark.parametrize("key", ["017", "+17", " 17", "17.0"])
def test_non_canonical_lucky_key(key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {**ROUND, "lucky": {key: "199", "5": "49", "23": "99"}}
    _refused(tmp_path, capsys, doc, f"lucky: the key {key!r} is not a number written canonically")


def test_non_ascii_digits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(
        tmp_path,
        capsys,
        {**ROUND, "lucky": {"\u0661\u0667": "199", "5": "49", "23": "99"}},
        "non-ASCII digit",
    )
    _refused(
        tmp_path, capsys, {**ROUND, "lucky": {"17": "\u0661\u0669\u0669", "5": "49", "23": "99"}}, "lucky.17"
    )
    wagers = [{**ROUND["wagers"][0], "amount": "\uff15"}]  # fullwidth 5
    _refused(tmp_path, capsys, {**ROUND, "wagers": wagers}, "wagers[0].amount: ")


def test_straight_up_over_maximum_inside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "limits.toml"
    rules.write_text(
        default_rules_path().read_text(encoding="utf-8") + '\n[limits]\nmaximum_inside = "100"\n'
    )
    wagers = [{"id": "big", "player": "anna", "bet": "straight", "numbers": [17], "amount": "1000000"}]
    _refused(
        tmp_path,
        capsys,
        {**ROUND, "wagers": wagers},
        "wager big: 1000000 is above the inside maximum 100",
        "--rules",
        str(rules),
    )
    ok = [{**wagers[0], "amount": "100"}]
    code, _, err = _settle(tmp_path, capsys, {**ROUND, "wagers": ok}, "--rules", str(rules))
    assert (code, err) == (0, "")
