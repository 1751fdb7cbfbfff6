"""`drr rng collect` and engine.rng_collect: the public file formats, production code, streaming."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import pytest

from engine.bonus_game import X
from engine.errors import DrrError
from engine.rng import SeededRng, draw_lucky_and_bonus
from engine.rng_collect import (
    BONUS_HEADER,
    DRAWS_HEADER,
    collect_bonus_games,
    collect_draws,
    collect_raw,
    odds_text,
    play_bonus_game,
)
from engine.rules import MULTIPLIER_BOXES, default_rules_path, load_default_rules, parse_rules


class CountingRng(SeededRng):
    """A seeded generator that counts calls (proves the collector goes through randbelow)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.calls = 0

    def randbelow(self, n: int) -> int:
        self.calls += 1
        return super().randbelow(n)


def test_raw_bytes_come_from_randbelow_and_stream(tmp_path: Path) -> None:
    out = tmp_path / "raw.bin"
    seen: list[tuple[int, int]] = []
    rng = CountingRng(1)
    c = collect_raw(10_000, out, None, lambda d, t: seen.append((d, t)), rng=rng, allow_test_rng=True)
    data = out.read_bytes()
    assert len(data) == 10_000 == c.count == c.bytes_written
    assert rng.calls == 3  # 4096 + 4096 + 1808 bytes
    assert seen[-1] == (10_000, 10_000)
    assert not (tmp_path / "raw.bin.partial").exists()
    # The same seed through randbelow(2**(8m)) gives the same bytes: nothing else is mixed in.
    again = SeededRng(1)
    expected = b"".join(again.randbelow(1 << (8 * m)).to_bytes(m, "big") for m in (4096, 4096, 1808))
    assert data == expected


def test_production_generator_by_default_and_test_generators_refused(tmp_path: Path) -> None:
    c = collect_raw(100, tmp_path / "r.bin")
    assert c.rng == "os-csprng"
    with pytest.raises(DrrError, match="not allowed in production"):
        collect_raw(100, tmp_path / "r2.bin", rng=SeededRng(1))
    with pytest.raises(DrrError, match="at least 1"):
        collect_draws(0, tmp_path / "d.csv")


def test_draws_csv_is_the_contract_and_the_production_draw(tmp_path: Path) -> None:
    rules = load_default_rules()
    out = tmp_path / "draws.csv"
    collect_draws(500, out, rules, rng=SeededRng(7), allow_test_rng=True)
    text = out.read_text(encoding="ascii")
    lines = text.split("\n")
    assert lines[0] == "draw,lucky_numbers,lucky_odds,bonus_number" == DRAWS_HEADER
    assert lines[-1] == "" and len(lines) == 502
    twin = SeededRng(7)
    for i, row in enumerate(csv.DictReader(text.splitlines()), start=1):
        d = draw_lucky_and_bonus(rules, twin)  # the same generator state gives the same draw
        assert row["draw"] == str(i)
        assert row["lucky_numbers"] == " ".join(str(n) for n in d.lucky_order)
        assert row["lucky_odds"] == " ".join(str(d.lucky[n].numerator) for n in d.lucky_order)
        assert row["bonus_number"] == str(d.bonus_number)
        assert len(row["lucky_numbers"].split()) in rules.lucky_counts
        assert all(Fraction(o) in rules.lucky_odds for o in row["lucky_odds"].split())


def test_draw_rows_exactly(tmp_path: Path) -> None:
    out = tmp_path / "d.csv"
    collect_draws(3, out, load_default_rules(), rng=SeededRng(7), allow_test_rng=True)
    twin = SeededRng(7)
    rows = []
    for i in range(1, 4):
        d = draw_lucky_and_bonus(load_default_rules(), twin)
        rows.append(
            f"{i},{' '.join(map(str, d.lucky_order))},"
            f"{' '.join(str(d.lucky[n]) for n in d.lucky_order)},{d.bonus_number}\n"
        )
    assert out.read_text() == DRAWS_HEADER + "\n" + "".join(rows)


def test_odds_written_as_in_the_rules_submission() -> None:
    assert odds_text(Fraction(49)) == "49"
    assert odds_text(Fraction(13, 2)) == "6.5"
    assert odds_text(Fraction(499, 4)) == "124.75"
    assert odds_text(Fraction(1, 3)) == "1/3"


def test_decimal_odds_in_the_draws_file(tmp_path: Path) -> None:
    text = default_rules_path().read_text(encoding="utf-8")
    text = text.replace("odds = { 49 = 450,", 'odds = { "49.5" = 450,')
    rules = parse_rules(text.encode(), "decimal-odds.toml")
    out = tmp_path / "d.csv"
    collect_draws(400, out, rules, rng=SeededRng(3), allow_test_rng=True)
    odds = {o for row in csv.DictReader(out.open()) for o in row["lucky_odds"].split()}
    assert "49.5" in odds and "49" not in odds


def test_bonus_games_csv_is_the_contract(tmp_path: Path) -> None:
    rules = load_default_rules()
    out = tmp_path / "bonus.csv"
    collect_bonus_games(50, out, rules, rng=SeededRng(5), allow_test_rng=True)
    lines = out.read_text(encoding="ascii").splitlines()
    assert lines[0] == "game,round,boxes" == BONUS_HEADER
    assert len(lines) == 1 + 50 * 6
    twin = SeededRng(5)
    for g in range(1, 51):
        rounds = play_bonus_game(rules, twin)
        for r in range(1, 7):
            game, rnd, boxes = lines[1 + (g - 1) * 6 + (r - 1)].split(",")
            assert (game, rnd) == (str(g), str(r))
            cells = boxes.split(" ")
            assert len(cells) == 5
            assert cells == [X if b == X else str(b) for b in rounds[r - 1]]
            multipliers = [Fraction(c) for c in cells if c != X]
            assert len(multipliers) == MULTIPLIER_BOXES[r - 1]
            assert all(m in rules.bonus_rounds[r - 1] for m in multipliers)


def test_failed_collection_leaves_no_file(tmp_path: Path) -> None:
    class Broken(SeededRng):
        def randbelow(self, n: int) -> int:
            raise RuntimeError("entropy source gone")

    out = tmp_path / "d.csv"
    with pytest.raises(RuntimeError):
        collect_draws(10, out, rng=Broken(1), allow_test_rng=True)
    assert not out.exists() and not (tmp_path / "d.csv.partial").exists()
