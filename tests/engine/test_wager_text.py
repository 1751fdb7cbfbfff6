"""The croupier's keyboard wager grammar (engine.wager_text): every bet kind of engine.bets.KINDS is
typed exactly one way, and a line that is not a wager is refused naming the wrong piece."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.bets import KINDS, BetKind, inside_bet, legal_bets, outside_bet
from engine.errors import IllegalWager
from engine.wager_text import bet_text, parse_wagers, wager_text


def test_the_issue_examples() -> None:
    (straight,) = parse_wagers("17/25")
    assert straight.bet == inside_bet([17]) and straight.amount == Decimal(25)
    (split,) = parse_wagers("17-20/10")
    assert split.bet == inside_bet([17, 20]) and split.bet.kind is BetKind.SPLIT
    assert split.amount == Decimal(10)


@pytest.mark.parametrize(
    "text,bet",
    [
        ("16-17-18/5", inside_bet([16, 17, 18])),
        ("0-1-2/5", inside_bet([0, 1, 2])),
        ("21-17-20-18/5", inside_bet([17, 18, 20, 21])),  # any order
        ("0-1-2-3/5", inside_bet([0, 1, 2, 3])),
        ("16-17-18-19-20-21/5", inside_bet(range(16, 22))),
        ("red/5", outside_bet(BetKind.RED)),
        ("B/5", outside_bet(BetKind.BLACK)),
        ("o/5", outside_bet(BetKind.ODD)),
        ("even/5", outside_bet(BetKind.EVEN)),
        ("lo/5", outside_bet(BetKind.LOW)),
        ("high/5", outside_bet(BetKind.HIGH)),
        ("dozen 2/5", outside_bet(BetKind.DOZEN, 2)),
        ("d3/5", outside_bet(BetKind.DOZEN, 3)),
        ("column1/5", outside_bet(BetKind.COLUMN, 1)),
        ("c 2 / 5", outside_bet(BetKind.COLUMN, 2)),
    ],
)
def test_every_kind_has_its_form(text: str, bet: object) -> None:
    (read,) = parse_wagers(text)
    assert read.bet == bet and read.amount == Decimal(5)


def test_every_legal_bet_round_trips_and_every_kind_is_covered() -> None:
    kinds = set()
    for bet in legal_bets():
        (read,) = parse_wagers(wager_text(bet, Decimal("2.5")))
        assert read.bet == bet and read.amount == Decimal("2.5")
        kinds.add(bet.kind)
    assert kinds == {info.kind for info in KINDS}


def test_several_wagers_on_one_line_and_the_chip_when_no_amount() -> None:
    read = parse_wagers("17/25, 17-20/10  red")
    assert [(w.bet, w.amount) for w in read] == [
        (inside_bet([17]), Decimal(25)),
        (inside_bet([17, 20]), Decimal(10)),
        (outside_bet(BetKind.RED), None),
    ]
    assert bet_text(inside_bet([20, 17])) == "17-20"


@pytest.mark.parametrize(
    "text,says",
    [
        ("", "no wager typed"),
        ("17-19/5", "do not form a legal inside bet"),
        ("37/5", "outside 0-36"),
        ("17/", "no amount after '/'"),
        ("/5", "no bet before '/'"),
        ("17/2,5", "'2,5': write an amount with a point"),
        ("17/5x", "amount '5x' is not a plain amount"),
        ("17/1e3", "is not a plain amount"),
        ("17/0", "more than 0"),
        ("dozen/5", "dozen needs 1, 2 or 3"),
        ("red2/5", "red takes no number"),
        ("dozen4/5", "is no bet"),
        ("purple/5", "is no bet"),
        ("17-17/5", "repeat a number"),
    ],
)
def test_refusals_name_the_piece(text: str, says: str) -> None:
    with pytest.raises(IllegalWager, match=says):
        parse_wagers(text)


def test_the_rules_switches() -> None:
    with pytest.raises(IllegalWager, match="trio bets are not offered"):
        parse_wagers("0-1-2/5", trios=False)
    with pytest.raises(IllegalWager, match="first-four bet is not offered"):
        parse_wagers("0-1-2-3/5", first_four=False)
