"""Every statistical test in plain words (issue 12: a dealer chi-square on 2 spins had no "too few
spins" caveat; "ccw (p=0.10)" was unexplained): too few spins say so instead of a p-value, and every
p-value comes with a sentence saying what it means."""

from __future__ import annotations

from engine.floor.sequence import Spin, dealer_signature, repeats
from engine.store.stats import CHI_NEEDS, Tally, compute_stats, p_words


def test_a_dealer_on_two_spins_gets_too_few_spins_not_a_p_value() -> None:
    rows = dealer_signature([Spin(17, "eli"), Spin(4, "eli"), Spin(30, "eli")])
    assert [(d["dealer"], d["spins"], d["p_value"], d["statistic"], d["flagged"]) for d in rows] == [
        ("eli", 2, None, None, False)
    ]
    assert "too few spins to test (2 of the 185 needed) — no p-value yet" in rows[0]["words"]


def test_enough_spins_give_a_p_value_with_its_sentence() -> None:
    spins = [Spin((i * 7) % 37, "eli") for i in range(400)]
    (row,) = dealer_signature(spins)
    assert row["p_value"] is not None and f"p = {row['p_value']:.2g}" in row["words"]
    assert "a fair wheel is at least this uneven" in row["words"]


def test_each_direction_and_sector_says_what_its_p_value_means() -> None:
    counts = [10] * 37
    tally = Tally(counts=list(counts), by_direction={"cw": [9] * 37, "ccw": [1] * 37})
    stats = compute_stats(tally)
    assert stats["chi_square"]["words"].startswith("every number equally likely (chi-square): p = ")
    ccw = stats["by_direction"]["ccw"]["chi_square"]["words"]
    assert ccw.startswith(
        "counter-clockwise spins, every number equally likely: too few spins to test (37 of"
    )
    assert "p = " in stats["by_direction"]["cw"]["chi_square"]["words"]
    assert "hottest 5-pocket sector" in stats["sectors"]["5"]["words"]


def test_p_words() -> None:
    assert p_words("x", 0.1, CHI_NEEDS, CHI_NEEDS) == (
        "x: p = 0.1 — a fair wheel is at least this uneven in about 10% of samples; nothing unusual"
    )
    assert p_words("x", 0.0001, 500, CHI_NEEDS).endswith(
        "about once in 10,000 samples; unusual (below 0.01): worth a look"
    )
    assert "too few pairs of spins" in repeats([1, 2, 3])["words"]
