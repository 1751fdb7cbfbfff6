"""The RNG battery: it passes on the production generator and fails on biased or dependent ones."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.rng import SeededRng
from engine.rng_battery import battery_from_files, run_battery
from engine.rng_collect import collect_bonus_games, collect_draws
from gui.cli import main


class Biased:
    """Returns 0 two times in a hundred instead of a uniform value: a subtle bias."""

    name = "biased"
    production_safe = False

    def __init__(self) -> None:
        self._r = random.Random(1)

    def randbelow(self, n: int) -> int:
        return 0 if self._r.random() < 0.02 else self._r.randrange(n)


class Sticky:
    """Repeats its previous answer for the same n one time in ten: uniform marginals, but dependent."""

    name = "sticky"
    production_safe = False

    def __init__(self) -> None:
        self._r = random.Random(2)
        self._last: dict[int, int] = {}

    def randbelow(self, n: int) -> int:
        if n in self._last and self._r.random() < 0.1:
            return self._last[n]
        self._last[n] = v = self._r.randrange(n)
        return v


def _names(result: object) -> set[str]:
    return {t.name for t in result.tests if not t.passed}  # type: ignore[attr-defined]


def test_production_generator_runs_every_test() -> None:
    """The battery runs on the production generator (the OS CSPRNG) with every test and a verdict.
    Whether a sound generator passes is a 99% event, so the verdict is asserted on a fixed stream
    below, never on a fresh draw of the CSPRNG (that test would fail one CI run in a hundred)."""
    seen: list[tuple[int, int]] = []
    result = run_battery(20_000, progress=lambda d, t: seen.append((d, t)))
    assert result.rng == "os-csprng"
    assert seen[-1] == (22_000, 22_000)
    names = [t.name for t in result.tests]
    for expected in (
        "Lucky counts: weights",
        "Lucky odds: weights",
        "bonus round 6 multipliers: weights",
        "Lucky Numbers: uniform",
        "Bonus Number: uniform",
        "X positions: uniform",
        "Bonus Number: lag-1 independence",
        "Lucky counts: lag-1 independence",
        "Bonus Number: runs above/below 18",
    ):
        assert expected in names
    assert result.threshold == pytest.approx(0.01 / len(names))
    lines = result.lines()
    assert len(lines) == len(names) + 2 and lines[-1].startswith("verdict: ")


def test_a_sound_generator_passes() -> None:
    result = run_battery(20_000, rng=SeededRng(20261201), allow_test_rng=True)
    assert result.passed, "\n".join(result.lines())
    assert result.lines()[-1].startswith("verdict: PASS")


def test_biased_generator_fails() -> None:
    result = run_battery(20_000, rng=Biased(), allow_test_rng=True)
    assert not result.passed
    assert {"Bonus Number: uniform", "Lucky Numbers: uniform"} <= _names(result)
    assert result.lines()[-1].startswith("verdict: FAIL")


def test_dependent_generator_fails_independence_and_runs() -> None:
    result = run_battery(20_000, rng=Sticky(), allow_test_rng=True)
    assert not result.passed
    failed = _names(result)
    assert "Bonus Number: lag-1 independence" in failed
    assert "Bonus Number: runs above/below 18" in failed


def test_seeded_generator_refused_unless_allowed() -> None:
    with pytest.raises(DrrError, match="not allowed in production"):
        run_battery(20_000, rng=SeededRng(1))
    with pytest.raises(DrrError, match="at least 10,000 draws"):
        run_battery(100)


def test_battery_on_collected_files(tmp_path: Path) -> None:
    d, b = tmp_path / "draws.csv", tmp_path / "bonus.csv"
    collect_draws(12_000, d, rng=SeededRng(11), allow_test_rng=True)
    collect_bonus_games(1_200, b, rng=SeededRng(12), allow_test_rng=True)
    result = battery_from_files(d, b)
    assert (result.draws, result.bonus_games) == (12_000, 1_200)
    assert result.passed, "\n".join(result.lines())
    # A draw the Rules Submission cannot give (odds 123) fails the weights test outright.
    lines = d.read_text().splitlines()
    first = lines[1].split(",")
    lines[1] = ",".join([first[0], first[1].split()[0], "123", first[3]])
    d.write_text("\n".join(lines) + "\n")
    bad = battery_from_files(d, b)
    assert "Lucky odds: weights" in _names(bad)


def test_cli_json_and_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rng", "test", "--draws", "10000", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == (0 if doc["verdict"] == "pass" else 1)
    assert doc["draws"] == 10_000 and doc["bonus_games"] == 1_000 and doc["confidence"] == 0.99
    assert {"name", "statistic", "df", "p_value", "passed", "detail"} == set(doc["tests"][0])


def test_cli_collect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.csv"
    assert main(["rng", "collect", "--draws", "1,000", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 1001
    assert "1,000 draws from os-csprng" in capsys.readouterr().out
    raw = tmp_path / "r.bin"
    assert main(["rng", "collect", "--raw", "5000", "--out", str(raw)]) == 0
    assert raw.stat().st_size == 5000
    bonus = tmp_path / "b.csv"
    assert main(["rng", "collect", "--bonus-games", "7", "--out", str(bonus)]) == 0
    assert len(bonus.read_text().splitlines()) == 1 + 7 * 6


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rng", "collect", "--draws", "10"], "--out FILE is required"),
        (["rng", "collect", "--out", "x.csv"], "say what to collect"),
        (["rng", "collect", "--draws", "ten", "--out", "x.csv"], "--draws must be a whole number"),
        (["rng", "collect", "--raw", "0", "--out", "x.bin"], "--raw must be at least 1"),
        (["rng", "test", "--draws", "50"], "at least"),
        (["rng"], "say `collect` or `test`"),
    ],
)
def test_cli_bad_input_is_one_line(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_rules_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("schema = 1\n")
    assert (
        main(["rng", "collect", "--draws", "5", "--out", str(tmp_path / "d.csv"), "--rules", str(bad)])
        == 1  # as drr math refuses it
    )
    assert "NOT valid" in capsys.readouterr().err
