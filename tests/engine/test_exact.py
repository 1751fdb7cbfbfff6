"""Strict exact-number readers: journal records with floats, exponents or junk are refused at once."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.bonus_game import event_from_json as bonus_event_from_json
from engine.errors import DrrError
from engine.exact import parse_odds, parse_whole
from engine.journal_types import parse
from engine.rng import Draw


@pytest.mark.parametrize(
    ("text", "expected"),
    [("199", Fraction(199)), ("199/2", Fraction(199, 2)), (" 99.5 ", Fraction(199, 2)), (29, Fraction(29))],
)
def test_parse_odds(text: object, expected: Fraction) -> None:
    assert parse_odds(text) == expected


@pytest.mark.parametrize(
    "bad", ["1e999999999", "1/0", "-5", "nan", "inf", "", "1_000", 49.5, True, None, "9" * 13]
)
def test_parse_odds_refuses(bad: object) -> None:
    with pytest.raises(ValueError, match="not an exact number of odds"):
        parse_odds(bad)


def test_parse_whole() -> None:
    assert (parse_whole(17), parse_whole(" 17 "), parse_whole("-1")) == (17, 17, -1)
    for bad in (17.9, True, "1e3", "17.0", None, "x"):
        with pytest.raises(ValueError, match="not a whole number"):
            parse_whole(bad)


def test_journal_records_are_read_strictly() -> None:
    with pytest.raises(DrrError, match=r"\(round\.result\) is malformed"):
        parse("round.result", {"number": 17.9})  # never silently 17
    with pytest.raises(DrrError, match=r"\(round\.bonus_outcome\) is malformed"):
        parse("round.bonus_outcome", {"player": "p", "odds": "1e999999999"})
    with pytest.raises(ValueError, match="Lucky entry"):
        Draw.from_record({"lucky": {"17": "1e999999999"}, "bonus_number": 8})
    with pytest.raises(ValueError, match=r"malformed bonus\.ended"):
        bonus_event_from_json({"type": "bonus.ended", "outcome": "1e999999999", "reason": "x"})
    with pytest.raises(ValueError, match=r"malformed bonus\.box_picked"):
        bonus_event_from_json({"type": "bonus.box_picked", "round": 1.5, "box": 1, "by": "player", "at": 0})
    assert parse("round.result", {"number": "17"}) == parse("round.result", {"number": 17})
