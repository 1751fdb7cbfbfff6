"""Issue 23 finding 7: one public list of bet wire names, with the aliases `trio` and `first_four` that
`drr math --json` uses, accepted by `drr settle`, listed in its help and in the docs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.bets import (
    ACCEPTED_BET_NAMES,
    KINDS,
    WIRE_ALIASES,
    WIRE_BET_NAMES,
    BetKind,
    bet_names_text,
    wager_from_wire,
)
from engine.errors import IllegalWager
from gui.cli import main

ROOT = Path(__file__).resolve().parents[2]
ROUND: dict[str, Any] = {"lucky": {"17": "199"}, "bonus_number": 8, "result": 2}


def _settle(tmp_path: Path, capsys: pytest.CaptureFixture[str], wagers: list[Any]) -> tuple[int, Any, str]:
    path = tmp_path / "round.json"
    path.write_text(json.dumps({**ROUND, "wagers": wagers}), encoding="utf-8")
    code = main(["settle", str(path)])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def test_the_public_list_is_every_kinds_wire_name_and_the_aliases_are_the_maths() -> None:
    assert WIRE_BET_NAMES == (
        "straight", "split", "street", "corner", "six_line",
        "red", "black", "odd", "even", "low", "high", "dozen", "column",
    )  # fmt: skip
    assert set(WIRE_BET_NAMES) == {info.wire for info in KINDS}
    assert dict(WIRE_ALIASES) == {"trio": BetKind.TRIO, "first_four": BetKind.FIRST_FOUR}
    assert (*WIRE_BET_NAMES, "trio", "first_four") == ACCEPTED_BET_NAMES


def test_the_aliases_are_drr_math_json_row_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["math", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["bets"]
    assert {"trio", "first_four"} <= set(rows)


def test_drr_settle_accepts_trio_and_first_four(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wagers = [
        {"id": "t", "player": "a", "bet": "trio", "numbers": [0, 1, 2], "amount": "1"},
        {"id": "f", "player": "a", "bet": "first_four", "numbers": [0, 1, 2, 3], "amount": "1"},
        {"id": "s", "player": "a", "bet": "street", "numbers": [0, 1, 2], "amount": "1"},
        {"id": "c", "player": "a", "bet": "corner", "numbers": [0, 1, 2, 3], "amount": "1"},
    ]
    code, out, err = _settle(tmp_path, capsys, wagers)
    assert code == 0, err
    paid = {w["id"]: (w["odds"], w["payout"]) for w in out["wagers"]}
    # A trio is paid as a street (9 to 1), first four as a corner (6.5 to 1): the same as their wire names.
    assert paid == {"t": ("9", "9.00"), "s": ("9", "9.00"), "f": ("13/2", "6.50"), "c": ("13/2", "6.50")}


def test_an_alias_takes_only_its_own_kinds_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _settle(
        tmp_path, capsys, [{"id": "t", "player": "a", "bet": "trio", "numbers": [1, 2, 3], "amount": "1"}]
    )
    assert (code, out) == (2, None)
    assert "wager t: numbers 1-2-3 form a street, not a trio" in err
    with pytest.raises(IllegalWager, match="form a corner, not a first_four"):
        wager_from_wire(
            {"id": "f", "player": "a", "bet": "first_four", "numbers": [1, 2, 4, 5], "amount": "1"},
            unit=__import__("decimal").Decimal("0.01"),
        )
    code, _, err = _settle(
        tmp_path, capsys, [{"id": "x", "player": "a", "bet": "six", "numbers": [1], "amount": "1"}]
    )
    assert code == 2 and "unknown bet 'six'" in err and "first_four" in err  # the names it takes


def test_drr_settle_help_and_the_docs_list_every_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["settle", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert bet_names_text() in shown
    for name in ACCEPTED_BET_NAMES:
        assert name in shown
    docs = " ".join((ROOT / "docs" / "certification.md").read_text(encoding="utf-8").split())
    for name in ACCEPTED_BET_NAMES:
        assert f"`{name}`" in docs
