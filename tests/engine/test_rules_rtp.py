"""Issue 14 item 1: `drr rules check` refuses paytables that return 100% or more, warns outside the
[math] band, keeps outside odds to Chapter 617a and cites the right clause for each."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import RulesError
from engine.math.report import markdown
from engine.math.wager_math import game_math
from engine.rules import default_rules_path, load_rules, parse_rules
from gui.cli import main

BASE = default_rules_path().read_text(encoding="utf-8")
ALWAYS_TEN_AT_499 = BASE.replace(
    "counts = { 1 = 45, 3 = 40, 5 = 10, 10 = 5 }", "counts = { 10 = 1 }"
).replace("odds = { 49 = 450, 99 = 390, 199 = 125, 299 = 30, 499 = 5 }", "odds = { 499 = 1 }")
EVEN_MONEY_2_TO_1 = BASE.replace("even_money = 1 ", "even_money = 2 ")
CHAPTER_617A_BASE = (
    BASE.replace("straight = 29", "straight = 35")
    .replace("split = 14", "split = 17")
    .replace("street = 9 ", "street = 11 ")
    .replace("corner = 6.5", "corner = 8")
    .replace("six_line = 4", "six_line = 5")
)


def _check(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    f = tmp_path / "rules.toml"
    f.write_text(text, encoding="utf-8")
    code = main(["rules", "check", str(f)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_examples_differ_from_the_default_file() -> None:
    for text in (ALWAYS_TEN_AT_499, EVEN_MONEY_2_TO_1, CHAPTER_617A_BASE):
        assert text != BASE


def test_ten_lucky_numbers_always_at_499_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _check(tmp_path, ALWAYS_TEN_AT_499, capsys)
    assert code == 1
    assert "payouts.straight: Straight up returns 427.4577% to the player" in err
    assert "house advantage" in err and "Traceback" not in err


def test_even_money_paying_2_to_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # As written it is not Chapter 617a's even money: refused, citing (b) and Chapter 617a.
    code, _, err = _check(tmp_path, EVEN_MONEY_2_TO_1, capsys)
    assert code == 1
    assert "payouts.even_money: 2 to 1 is not Chapter 617a's 1 to 1" in err
    assert "(§ 617b.12(b), Chapter 617a)" in err and "617b.12(l)" not in err
    # Submitted as a variation, the 146% return refuses it.
    varied = EVEN_MONEY_2_TO_1.replace("[wagers]", "[wagers]\nvary_outside_odds = true")
    code, _, err = _check(tmp_path, varied, capsys)
    assert code == 1
    assert "payouts.even_money: Even money returns 145.9459%" in err


def test_chapter_617a_base_odds_with_the_lucky_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _check(tmp_path, CHAPTER_617A_BASE, capsys)
    assert code == 1
    assert "payouts.straight: Straight up returns 111.9208%" in err
    assert "payouts.six_line: Six line returns 113.2539%" in err
    # The base odds are not bonus payouts: § 617b.12(l) is not what refuses them.
    assert "617b.12(l)" not in err


def test_base_odds_outside_the_bonus_range_are_not_cited_under_l(tmp_path: Path) -> None:
    # Straight 28 (below (l)'s 29 for bonus payouts) only lowers the return: valid.
    f = tmp_path / "low.toml"
    f.write_text(BASE.replace("straight = 29", "straight = 28"), encoding="utf-8")
    assert load_rules(f).base_odds["straight"] == 28


def test_outside_odds_may_be_varied_when_the_file_says_so(tmp_path: Path) -> None:
    text = BASE.replace("dozen = 2", "dozen = 1.9").replace("[wagers]", "[wagers]\nvary_outside_odds = true")
    f = tmp_path / "varied.toml"
    f.write_text(text, encoding="utf-8")
    assert load_rules(f).vary_outside_odds is True
    with pytest.raises(RulesError, match="must be true or false"):
        parse_rules(BASE.replace("[wagers]", "[wagers]\nvary_outside_odds = 1").encode())


def test_band_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _check(tmp_path, BASE + "\n[math]\nrtp_min = 97.5\nrtp_max = 98\n", capsys)
    assert code == 0 and "valid Rules Submission" in out
    assert "payouts.straight: warning: Straight up returns" in err
    assert "outside the expected 97.50% to 98.00%" in err
    code, _, err = _check(tmp_path, BASE, capsys)
    assert code == 0 and err == ""  # the default file sits inside the default 90%-99.5%


@pytest.mark.parametrize(
    ("math", "message"),
    [
        ("rtp_max = 100", "math.rtp_max: 100% is not below 100%"),
        ("rtp_min = 99\nrtp_max = 98", "math.rtp_min: must be below math.rtp_max"),
        ("rtp_min = -1", "math.rtp_min: must be positive"),
        ("rtp_mx = 98", "math.rtp_mx: unknown key"),
    ],
)
def test_band_keys_are_checked(math: str, message: str) -> None:
    with pytest.raises(RulesError) as exc:
        parse_rules((BASE + f"\n[math]\n{math}\n").encode())
    assert any(message in v for v in exc.value.violations or [])


def test_band_parsed() -> None:
    from fractions import Fraction

    r = parse_rules((BASE + '\n[math]\nrtp_min = 92\nrtp_max = "99.25"\n').encode())
    assert (r.rtp_min, r.rtp_max) == (Fraction(92, 100), Fraction(9925, 10000))


def test_math_report_does_not_claim_a_band_its_numbers_break() -> None:
    r = parse_rules(CHAPTER_617A_BASE.encode())  # structurally valid, refused by the math
    text = markdown(game_math(r))
    assert "required: 96.5% to 99.0%" not in text
    assert "100% OR MORE: `drr rules check` refuses this paytable" in text
    assert "(expected band 90.00% to 99.50%)." in markdown(game_math(parse_rules(BASE.encode())))


def test_drr_math_refuses_like_rules_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "r.toml"
    f.write_text(CHAPTER_617A_BASE, encoding="utf-8")
    assert main(["math", "--rules", str(f)]) == 1
    assert "Straight up returns 111.9208%" in capsys.readouterr().err


def test_the_pit_boss_cannot_load_a_paytable_that_returns_100_percent(tmp_path: Path) -> None:
    """`drr rules check` refused it, but the pit boss's Rules Submission tab (and `drr pitboss rules`)
    read candidates through `read_rules_candidate`, which checked only the structure."""
    from engine.floor import actions

    f = tmp_path / "rules.toml"
    f.write_text(CHAPTER_617A_BASE, encoding="utf-8")
    with pytest.raises(RulesError, match="house advantage") as info:
        actions.read_rules_candidate(f)
    assert "111.9208%" in info.value.message
    assert actions.read_rules_candidate(default_rules_path()).rules.sha256  # the default still loads
