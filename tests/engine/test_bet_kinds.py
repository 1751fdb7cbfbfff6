"""engine.bets' table of bet kinds (KINDS) and every reader of it agree: the layout's bets, the
Rules Submission's paytable keys and ranges, the math report's rows, the statistics' house edges,
`drr rules`' paytable, the wire names and the felt's spots."""

from __future__ import annotations

import tomllib
from decimal import Decimal
from fractions import Fraction

import pytest

from engine.bets import (
    EVEN_MONEY_KINDS,
    INSIDE_LINES,
    INSIDE_SIZES,
    KIND,
    KINDS,
    NUMBERED_BET_NAMES,
    PAYOUT_KEYS,
    PAYOUT_LINES,
    BetKind,
    legal_bets,
    math_rows,
    offered_kinds,
    wager_from_wire,
)
from engine.rules import BONUS_RANGE_BY_SIZE, LUCKY_RANGE_BY_SIZE, default_rules_path, load_default_rules


def test_every_kind_has_one_row_in_display_order() -> None:
    assert [info.kind for info in KINDS] == list(BetKind)
    assert len({info.name for info in KINDS}) == len(KINDS)
    assert INSIDE_SIZES == (1, 2, 3, 4, 6)  # § 617b.12(f), (l): the five inside bet sizes
    assert NUMBERED_BET_NAMES == ("straight", "split", "street", "corner", "six_line")


@pytest.mark.parametrize("trios,first_four", [(True, True), (False, True), (True, False), (False, False)])
def test_the_layouts_bets_are_the_tables_kinds(trios: bool, first_four: bool) -> None:
    bets = legal_bets(trios, first_four)
    assert {b.kind for b in bets} == {info.kind for info in offered_kinds(trios, first_four)}
    for bet in bets:
        info = KIND[bet.kind]
        assert bet.size == info.size and bet.inside == info.inside, bet.label
        assert bet.wire_name == info.wire
        if info.numbers is not None:
            assert bet.numbers == info.numbers
    # 37 straights, 60 splits, 12 streets, 2 trios, 22 corners, first four, 11 six lines, 6 + 3 + 3 outside.
    assert len(bets) == 157 - 2 * (not trios) - (not first_four)


def test_every_kind_survives_the_wire() -> None:
    for info in KINDS:
        bet = info.example_bet()
        data = {"id": "w1", "player": "p", "amount": "1", **bet.to_wire()}
        assert wager_from_wire(data, unit=Decimal("0.01")).bet == bet, info.name


def test_the_rules_submission_pays_every_kind_from_its_line() -> None:
    rules = load_default_rules()
    doc = tomllib.loads(default_rules_path().read_text(encoding="utf-8"))
    assert list(doc["payouts"]) == list(PAYOUT_KEYS)
    assert set(rules.base_odds) == set(PAYOUT_KEYS)
    for info in KINDS:
        assert rules.base_payout(info.example_bet()) == rules.base_odds[info.payout_key]
    assert list(BONUS_RANGE_BY_SIZE) == list(LUCKY_RANGE_BY_SIZE) == list(INSIDE_SIZES)
    assert BONUS_RANGE_BY_SIZE[4] == (Fraction(13, 2), Fraction(4999, 4))  # § 617b.12(l): 6.5 - 1,249.75
    assert LUCKY_RANGE_BY_SIZE[6] == (Fraction(49, 6), Fraction(499, 6))  # § 617b.12(f): 49 to 6 - 499 to 6
    assert [line.key for line in INSIDE_LINES] == [KIND[k].payout_key for k in NUMBERED_BET_NAMES]


def test_the_math_report_has_a_row_per_table_row() -> None:
    from engine.math.report import markdown
    from engine.math.wager_math import KIND_ORDER, KIND_TITLES, game_math

    rules = load_default_rules()
    m = game_math(rules)
    rows = math_rows()
    assert list(m.wagers) == list(KIND_ORDER) == list(rows)
    for row, info in rows.items():
        assert m.wagers[row].numbers == info.size and m.wagers[row].bet.kind is info.kind
    # Every kind of the table is in a row: the six even-money kinds in one, every other kind its own.
    assert {info.math_row for info in KINDS} == set(rows)
    assert {KIND[k].math_row for k in EVEN_MONEY_KINDS} == {"even_money"}
    text = markdown(m)
    for title in KIND_TITLES.values():
        assert text.count(f"| {title} |") == 2, title  # the RTP table and the coverage table


def test_house_edges_cover_every_wire_name() -> None:
    from engine.math.bonus_value import Strategy
    from engine.math.wager_math import game_math
    from engine.store.stats import MATH_KIND_OF_BET, house_edges

    rules = load_default_rules()
    edges = house_edges(rules)
    assert set(edges) == {info.wire for info in KINDS} == set(MATH_KIND_OF_BET)
    wagers = game_math(rules).wagers
    for info in KINDS:
        assert edges[info.wire] == wagers[info.math_row].house_edge(Strategy.OPTIMAL), info.name


def test_drr_rules_lists_every_paytable_line() -> None:
    from engine.rules_text import paytable

    lines = paytable(load_default_rules()).splitlines()
    assert [ln.split("  ")[1].strip() for ln in lines[1:]] == [line.label for line in PAYOUT_LINES]
    assert lines[3].split()[:3] == ["street", "/", "trio"]


def test_the_felt_places_exactly_the_tables_kinds() -> None:
    from gui.widgets import felt_geometry as geo

    assert {kind for kind, _ in geo.EVEN_MONEY_ORDER} == EVEN_MONEY_KINDS
    seen = set()
    step = 0.05
    y = -0.2
    while y < geo.HEIGHT:
        x = -0.2
        while x < geo.WIDTH:
            bet = geo.bet_at(x, y)
            if bet is not None:
                seen.add(bet.kind)
                assert bet in legal_bets(), bet.label
            x += step
        y += step
    assert seen == set(BetKind)
    for bet in legal_bets():
        assert geo.bet_at(*geo.spot(bet)) == bet
