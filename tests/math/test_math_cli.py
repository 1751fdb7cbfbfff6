"""`drr math`: JSON shape with exact fractions, the generated docs/math.md, refusal of bad rules."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from engine.math.report import markdown
from engine.math.wager_math import KIND_ORDER, game_math
from engine.rules import default_rules_path, load_default_rules
from gui.cli import main

ROOT = Path(__file__).parents[2]


def test_docs_math_is_the_generated_report() -> None:
    committed = (ROOT / "docs" / "math.md").read_text(encoding="utf-8")
    assert committed == markdown(game_math(load_default_rules())), (
        "docs/math.md is stale: regenerate it with `drr math --markdown > docs/math.md`"
    )


def test_json_has_exact_fractions_per_kind_and_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["math", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rules = load_default_rules()
    assert doc["rules"] == {"name": rules.name, "sha256": rules.sha256}
    assert list(doc["bets"]) == list(KIND_ORDER)
    straight = doc["bets"]["straight"]
    assert set(straight["rtp"]) == {"optimal", "cash_out_at_3", "play_to_end"}
    for s, value in straight["rtp"].items():
        assert Fraction(value) + Fraction(straight["house_edge"][s]) == 1
    assert Fraction(straight["hit_frequency"]) == Fraction(1, 37)
    assert straight["max_payout"] == "4999"
    assert abs(float(straight["stdev"]) ** 2 - float(Fraction(straight["variance"]))) < 1e-9
    assert doc["bets"]["even_money"]["rtp"]["optimal"] == "36/37"
    assert Fraction(doc["bets"]["six_line"]["max_payout"]) == Fraction(4999, 6)
    dist = doc["bonus"]["distribution"]["optimal"]
    assert sum(Fraction(p) for p in dist.values()) == 1
    mean = sum(Fraction(b) * Fraction(p) for b, p in dist.items())
    assert mean == Fraction(doc["bonus"]["mean"]["optimal"])


def test_kinds_follow_the_trio_and_first_four_switches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "no-trios.toml"
    text = default_rules_path().read_text(encoding="utf-8")
    rules.write_text(
        text.replace("trios = true", "trios = false").replace("first_four = true", "first_four = false")
    )
    assert main(["math", "--json", "--rules", str(rules)]) == 0
    bets = json.loads(capsys.readouterr().out)["bets"]
    assert list(bets) == [k for k in KIND_ORDER if k not in ("trio", "first_four")]


def test_readable_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["math", "--rules", str(default_rules_path())]) == 0
    out = capsys.readouterr().out
    assert "Six line" in out and "cash out at round 3" in out and "97.2973%" in out


def test_invalid_rules_are_refused_like_rules_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        default_rules_path().read_text(encoding="utf-8").replace("29 = 40", "28 = 40"), encoding="utf-8"
    )
    assert main(["rules", "check", str(bad)]) == 1
    check_err = capsys.readouterr().err
    assert main(["math", "--rules", str(bad)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("drr: ") and err.removeprefix("drr: ") == check_err
    assert main(["math", "--rules", str(tmp_path / "missing.toml")]) == 1
    assert "cannot read" in capsys.readouterr().err
