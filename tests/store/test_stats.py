"""Statistics: hand-computed figures, scipy's chi-square, sector p-values, and the store's query layer."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps

from engine.store import Store
from engine.store.stats import Tally, compute_stats, expected_lucky_count, hottest_sectors, table_stats
from engine.wheel_layout import WHEEL_ORDER
from gui.cli import main
from tests.payloads import RULES_SHA
from tests.store.helpers import play_round


def _tally(counts: list[int]) -> Tally:
    return Tally(counts=counts, by_direction={"cw": counts})


def test_counts_and_splits_by_hand() -> None:
    counts = [0] * 37
    counts[0], counts[1], counts[2], counts[36] = 2, 3, 1, 4  # 1 red odd low, 2 black even low, 36 red
    s = compute_stats(_tally(counts))
    assert s["spins"] == 10
    assert s["red_black_zero"] == {"red": 7, "black": 1, "zero": 2}
    assert s["odd_even"] == {"odd": 3, "even": 5}
    assert s["low_high"] == {"low": 4, "high": 4}
    assert s["dozens"] == [4, 0, 4]
    assert s["columns"] == [3, 1, 4]  # 1 in column 1, 2 in column 2, 36 in column 3


def test_chi_square_matches_scipy_on_a_known_sample() -> None:
    counts = [(n * 7) % 11 + 20 for n in range(37)]
    s = compute_stats(_tally(counts))
    n = sum(counts)
    by_hand = sum((c - n / 37) ** 2 / (n / 37) for c in counts)
    assert s["chi_square"]["statistic"] == pytest.approx(by_hand)
    assert s["chi_square"]["df"] == 36
    assert s["chi_square"]["p_value"] == pytest.approx(sps.chi2.sf(by_hand, 36))


def test_z_scores_and_bonferroni_flag() -> None:
    counts = [100] * 37
    counts[17] = 190  # far out: z ≈ 9
    s = compute_stats(_tally(counts))
    n = sum(counts)
    sd = math.sqrt(n * (1 / 37) * (36 / 37))
    assert s["z_scores"]["z"][17] == pytest.approx((190 - n / 37) / sd)
    assert s["z_scores"]["flagged"] == [17]
    assert s["z_scores"]["threshold"] == pytest.approx(0.01 / 37)


def test_hottest_sector_finds_the_planted_neighbours_and_calls_it_significant() -> None:
    counts = [200] * 37
    pos = WHEEL_ORDER.index(26)
    planted = [WHEEL_ORDER[(pos + k) % 37] for k in range(5)]  # 26, 0, 32, 15, 19 (wraps round zero)
    for number in planted:
        counts[number] += 60
    sectors = hottest_sectors(counts)
    assert sectors["5"]["numbers"] == planted
    assert sectors["5"]["count"] == 5 * 260
    assert sectors["5"]["p_value"] < 0.01


def test_sector_p_value_is_calibrated_under_the_null() -> None:
    rng = np.random.default_rng(7)
    p_values = [
        hottest_sectors(list(rng.multinomial(740, [1 / 37] * 37)))["3"]["p_value"] for _ in range(200)
    ]
    # Under the null the p-value is uniform: about 5% fall below 0.05 (binomial 200, 0.05: 1..22 at 99.9%).
    below = sum(p < 0.05 for p in p_values)
    assert 1 <= below <= 22


def test_lucky_bonus_and_hold() -> None:
    tally = Tally(
        counts=[10] * 37,
        drawn_spins=370,
        lucky_drawn=370 * 3,
        lucky_hits=40,
        bonus_hits=9,
        settled=370,
        wagered=Decimal("1000.00"),
        paid=Decimal("600.00"),
        returned=Decimal("970.00"),
    )
    s = compute_stats(tally, expected_lucky_count=Fraction(71, 20), house_edge=Fraction(1, 37))
    assert s["lucky"]["rate"] == pytest.approx(40 / 370)
    assert s["lucky"]["expected_rate"] == pytest.approx(3.55 / 37)
    assert s["lucky"]["expected_rate_as_drawn"] == pytest.approx(3 / 37)
    assert s["bonus"]["rate"] == pytest.approx(9 / 370) and s["bonus"]["expected_rate"] == pytest.approx(
        1 / 37
    )
    assert s["hold"]["win"] == "30.00" and s["hold"]["actual"] == pytest.approx(0.03)
    assert s["hold"]["theoretical_win"] == "27.03"


def test_expected_lucky_count_of_weights() -> None:
    assert expected_lucky_count({1: 20, 3: 45, 5: 30, 10: 5}) == Fraction(20 + 135 + 150 + 50, 100)


def test_store_stats_agree_with_the_rounds_played(store: Store) -> None:
    results = [17, 17, 0, 5, 32, 17, 36]
    for i, number in enumerate(results):
        play_round(
            store, "T1", f"R{i}", number, lucky=[(17, "199"), (5, "49")], bonus=36,
            wagered="10.00", paid="5.00", direction="cw" if i % 2 else "ccw",
        )  # fmt: skip
    play_round(store, "T2", "X1", 1)
    s = table_stats(store, "T1")
    expected = [results.count(n) for n in range(37)]
    assert s["counts"] == expected and s["spins"] == len(results)
    assert s["by_direction"]["cw"]["spins"] == 3 and s["by_direction"]["ccw"]["spins"] == 4
    assert s["lucky"]["hits"] == 4 and s["bonus"]["hits"] == 1
    assert s["hold"]["wagered"] == "70.00" and s["hold"]["paid"] == "35.00"
    # The window read from the rounds rows gives the same figures for the same spins.
    assert table_stats(store, "T1", last=100)["counts"] == expected
    assert table_stats(store, "T1", last=2)["spins"] == 2
    assert table_stats(store)["spins"] == len(results) + 1


def test_void_and_correction_move_the_aggregates(store: Store) -> None:
    play_round(store, "T1", "R1", 17, wagered="10.00", paid="0.00")
    store.journal.append(
        "T1", "round.result_corrected", {"old": 17, "new": 18, "reason": "misread"}, round_id="R1", user="pb"
    )
    store.journal.append("T1", "round.voided", {"reason": "dealer error"}, round_id="R1", user="pb")
    s = table_stats(store, "T1")
    assert s["counts"][17] == 0 and s["counts"][18] == 1
    assert s["hold"]["wagered"] == "0.00" and s["hold"]["rounds_settled"] == 0
    assert table_stats(store, "T1", last=10)["counts"] == s["counts"]


def test_stats_cli_json(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    play_round(store, "T1", "R1", 3)
    assert main(["stats", "--db", str(store.path), "--table", "T1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["spins"] == 1 and out["counts"][3] == 1 and len(out["counts"]) == 37
    assert main(["stats", "--db", str(store.path), "--since", "yesterday"]) == 1
    assert "--since 'yesterday' is not an ISO 8601" in capsys.readouterr().err


def test_theoretical_hold_weights_each_bet_by_its_handle(store: Store) -> None:
    from engine.rules import load_default_rules
    from engine.store.stats import house_edges

    j = store.journal
    j.append("T1", "round.opened", {"round_id": "R1", "rules_sha256": RULES_SHA}, round_id="R1", user="dana")
    for wid, bet, numbers, amount in (
        ("w1", "straight", [5], "10"),
        ("w2", "red", None, "30"),
        ("w3", "six_line", [1, 2, 3, 4, 5, 6], "99"),
    ):
        shape = {"id": wid, "player": "p1", "bet": bet, "amount": amount}
        j.append(
            "T1", "round.wager_placed", shape if numbers is None else {**shape, "numbers": numbers},
            round_id="R1", user="dana",
        )  # fmt: skip
    j.append("T1", "round.wager_removed", {"wager_id": "w3"}, round_id="R1", user="dana")
    j.append(
        "T1",
        "round.bets_closed",
        {"draw": {"lucky": {"5": "99"}, "bonus_number": 8}},
        round_id="R1",
        user=None,
    )
    j.append("T1", "round.result", {"number": 3}, round_id="R1", user=None)
    j.append("T1", "round.settled", {"total_wagered": "40", "total_paid": "60"}, round_id="R1", user=None)
    edges = house_edges(load_default_rules())
    assert edges["red"] == Fraction(1, 37) and edges["straight"] > edges["six_line"]
    s = table_stats(store, "T1", house_edge=edges)
    expected_win = 10 * edges["straight"] + 30 * edges["red"]
    assert s["hold"]["handle_by_bet"] == {"red": "30.00", "straight": "10.00"}
    assert s["hold"]["theoretical"] == pytest.approx(float(expected_win / 40))
    assert s["hold"]["theoretical_win"] == str(
        round(Decimal(expected_win.numerator) / expected_win.denominator, 2)
    )
    # The same from the rounds rows (a window), and a void takes the handle back out.
    assert (
        table_stats(store, "T1", last=5, house_edge=edges)["hold"]["handle_by_bet"]
        == s["hold"]["handle_by_bet"]
    )
    j.append("T1", "round.voided", {"reason": "x"}, round_id="R1", user="pb")
    after = table_stats(store, "T1", house_edge=edges)["hold"]
    assert after["handle_by_bet"] == {} and after["theoretical"] is None
