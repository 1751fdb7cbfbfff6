"""The built-in statistical battery of `drr rng test` (and `drr certify`'s rng/battery.json).

It collects Lucky/Bonus draws and bonus games through the production generator and draw code
(engine.rng_collect's iterators) and tests them against the Rules Submission, keeping only
counts (constant memory for any N):

- weights: chi-square of the Lucky counts, of the Lucky odds and of each round's bonus
  multipliers against the Rules Submission's weights;
- uniformity: chi-square of the Lucky Numbers (per Lucky count, corrected for drawing without
  replacement), of the Bonus Number and of the positions of the X boxes (per round, corrected
  likewise);
- lag-1 independence: chi-square of non-overlapping pairs of consecutive Bonus Numbers and of
  consecutive Lucky counts against the product of their expected marginals;
- runs: Wald-Wolfowitz runs above/below the middle number (18, left out) of the Bonus Number
  and of the first Lucky Number.

Cells expected below 5 are pooled (smallest first). The battery is at 99% as a family: each of
the m tests passes when p >= 0.01 / m (Bonferroni), so a sound generator fails the whole battery
about once in a hundred runs, not once in ten.

Public API:

    run_battery(draws, rules=None, progress=None, *, bonus_games=None, rng=None,
                allow_test_rng=False, alpha=0.01) -> BatteryResult
        draws >= MIN_DRAWS; bonus_games defaults to max(draws // 10, 1000); progress(done,
        total) counts draws + games; rng defaults to SystemRng (test generators need
        allow_test_rng=True).
    battery_from_files(draws_csv, bonus_csv, rules=None, alpha=0.01, *, progress=None)
        -> BatteryResult: the same tests on files written by engine.rng_collect (so a pack's
        results are about the very files in it); progress(rows read, 0): the total is not
        known before the files are read (the caller knows what it collected).
    BatteryResult: .passed, .tests (TestResult: name, statistic, df, p_value, passed, detail),
        .to_json() (JSON-able dict), .lines() (one line per test, then the verdict).
"""

from __future__ import annotations

import csv
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from engine.errors import DrrError
from engine.rng import POCKETS, Rng

if TYPE_CHECKING:
    from engine.rules import RulesSubmission

ProgressFn = Callable[[int, int], None]

MIN_DRAWS = 10_000  # below this the lag-1 table (37 x 37 cells) has too few pairs
MIN_BONUS_GAMES = 1_000
MIN_EXPECTED = 5.0
MIDDLE = (POCKETS - 1) // 2  # 18: 0-17 below, 19-36 above, 18 left out of the runs tests


@dataclass(frozen=True)
class TestResult:
    """One test: chi-square (or runs z as its square with df 1), degrees of freedom, p-value."""

    name: str
    statistic: float
    df: int
    p_value: float
    passed: bool
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "passed": self.passed,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class BatteryResult:
    draws: int
    bonus_games: int
    alpha: float
    tests: tuple[TestResult, ...]
    seconds: float
    rng: str
    rules_sha256: str
    source: str = "collected"

    @property
    def threshold(self) -> float:
        """The per-test p-value a test must reach (alpha over the number of tests)."""
        return self.alpha / max(1, len(self.tests))

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tests)

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": "pass" if self.passed else "fail",
            "confidence": 1 - self.alpha,
            "per_test_threshold": self.threshold,
            "draws": self.draws,
            "bonus_games": self.bonus_games,
            "rng": self.rng,
            "rules_sha256": self.rules_sha256,
            "source": self.source,
            "seconds": round(self.seconds, 3),
            "tests": [t.to_json() for t in self.tests],
        }

    def lines(self) -> list[str]:
        out = [
            f"RNG battery: {self.draws:,} draws and {self.bonus_games:,} bonus games from {self.rng}, "
            f"{1 - self.alpha:.0%} as a family (each test p >= {self.threshold:.2g})"
        ]
        width = max(len(t.name) for t in self.tests) if self.tests else 0
        for t in self.tests:
            mark = "pass" if t.passed else "FAIL"
            stat = f"chi2 {t.statistic:12.2f}  df {t.df:5d}"
            out.append(f"{mark}  {t.name:<{width}}  {stat}  p {t.p_value:.4f}  {t.detail}".rstrip())
        verdict = "PASS" if self.passed else "FAIL"
        failed = [t.name for t in self.tests if not t.passed]
        out.append(
            f"verdict: {verdict}" + (f" ({', '.join(failed)})" if failed else f" ({self.seconds:.1f} s)")
        )
        return out


# --- statistics ---------------------------------------------------------------------------------


def _chi2_sf(x: float, df: int) -> float:
    from scipy.stats import chi2

    return float(chi2.sf(x, df))


def _pool(observed: Sequence[float], expected: Sequence[float]) -> tuple[list[float], list[float], int]:
    """Cells with expected < MIN_EXPECTED merged (smallest first) into one; (obs, exp, pooled)."""
    cells = sorted(zip(expected, observed, strict=True))
    pooled_e = pooled_o = 0.0
    merged = 0
    while cells and (cells[0][0] < MIN_EXPECTED or (merged and pooled_e < MIN_EXPECTED)):
        e, o = cells.pop(0)
        pooled_e += e
        pooled_o += o
        merged += 1
    exp = [e for e, _ in cells]
    obs = [o for _, o in cells]
    if merged:
        if pooled_e < MIN_EXPECTED and exp:  # still too small: fold into the smallest cell left
            exp[0] += pooled_e
            obs[0] += pooled_o
        else:
            exp.append(pooled_e)
            obs.append(pooled_o)
    return obs, exp, merged


def _chi2(observed: Sequence[float], expected: Sequence[float]) -> tuple[float, int, int]:
    """(statistic, df, cells pooled) of observed counts against expected counts."""
    obs, exp, merged = _pool(observed, expected)
    stat = sum((o - e) ** 2 / e for o, e in zip(obs, exp, strict=True) if e > 0)
    return stat, len(exp) - 1, merged


def _weights_test(name: str, counts: Mapping[Any, int], weights: Mapping[Any, int]) -> TestResult | None:
    total = sum(counts.get(k, 0) for k in weights)
    if len(weights) < 2 or total == 0:
        return None  # a single value (or nothing drawn) has nothing to test
    w = sum(weights.values())
    keys = list(weights)
    stat, df, merged = _chi2([counts.get(k, 0) for k in keys], [total * weights[k] / w for k in keys])
    extra = sum(v for k, v in counts.items() if k not in weights)
    if extra:  # a value the Rules Submission does not have: impossible for a sound draw
        return TestResult(name, math.inf, df, 0.0, False, f"{extra} draw(s) outside the table")
    detail = f"{total:,} drawn" + (f", {merged} cells pooled" if merged else "")
    return TestResult(name, stat, df, _chi2_sf(stat, df) if df > 0 else 1.0, True, detail)


def _subset_uniformity(
    name: str, groups: Mapping[int, tuple[int, list[int]]], cells: int
) -> TestResult | None:
    """Uniformity of k-of-`cells` samples: per k, X2 * (cells-1)/(cells-k) ~ chi2(cells-1) (drawing
    without replacement shrinks each cell's variance by that factor); the groups add up."""
    stat = 0.0
    df = 0
    samples = 0
    for k, (n, counts) in sorted(groups.items()):
        if n == 0 or k in (0, cells):
            continue  # all or nothing: every position always the same, nothing to test
        expected = n * k / cells
        if expected < MIN_EXPECTED:
            continue
        x2 = sum((c - expected) ** 2 / expected for c in counts)
        stat += x2 * (cells - 1) / (cells - k)
        df += cells - 1
        samples += n
    if df == 0:
        return None
    return TestResult(name, stat, df, _chi2_sf(stat, df), True, f"{samples:,} samples")


def _runs_test(name: str, runs: int, above: int, below: int) -> TestResult | None:
    n = above + below
    if above == 0 or below == 0 or n < 20:
        return None
    mean = 2 * above * below / n + 1
    var = 2 * above * below * (2 * above * below - n) / (n * n * (n - 1))
    z = (runs - mean) / math.sqrt(var)
    stat = z * z  # two-sided: z^2 ~ chi2(1)
    return TestResult(name, stat, 1, _chi2_sf(stat, 1), True, f"{runs:,} runs, expected {mean:,.1f}")


@dataclass
class _Runs:
    runs: int = 0
    above: int = 0
    below: int = 0
    last: bool | None = None

    def add(self, value: int) -> None:
        if value == MIDDLE:
            return
        side = value > MIDDLE
        if side:
            self.above += 1
        else:
            self.below += 1
        if side != self.last:
            self.runs += 1
        self.last = side


@dataclass
class _Pairs:
    """Non-overlapping pairs (x1, x2), (x3, x4), ...: independent, so the table is multinomial."""

    counts: dict[tuple[Any, Any], int] = field(default_factory=dict)
    pending: Any = None
    has_pending: bool = False

    def add(self, value: Any) -> None:
        if self.has_pending:
            key = (self.pending, value)
            self.counts[key] = self.counts.get(key, 0) + 1
            self.has_pending = False
        else:
            self.pending, self.has_pending = value, True

    def test(self, name: str, marginal: Mapping[Any, Fraction]) -> TestResult | None:
        n = sum(self.counts.values())
        keys = list(marginal)
        if n == 0 or len(keys) < 2:
            return None
        obs = [self.counts.get((a, b), 0) for a in keys for b in keys]
        exp = [n * float(marginal[a] * marginal[b]) for a in keys for b in keys]
        stat, df, merged = _chi2(obs, exp)
        if df < 1:
            return None
        detail = f"{n:,} pairs" + (f", {merged} cells pooled" if merged else "")
        return TestResult(name, stat, df, _chi2_sf(stat, df), True, detail)


class _Tally:
    """Counts kept while draws and games stream past."""

    def __init__(self, rules: RulesSubmission) -> None:
        self.rules = rules
        self.draws = 0
        self.games = 0
        self.count_of_k: dict[int, int] = {}
        self.odds: dict[Fraction, int] = {}
        self.lucky_by_k: dict[int, tuple[int, list[int]]] = {}
        self.bonus_numbers = [0] * POCKETS
        self.bonus_pairs = _Pairs()
        self.count_pairs = _Pairs()
        self.bonus_runs = _Runs()
        self.lucky_runs = _Runs()
        self.multipliers: list[dict[Fraction, int]] = [{} for _ in rules.bonus_rounds]
        self.x_by_round: list[dict[int, tuple[int, list[int]]]] = [{} for _ in rules.bonus_rounds]

    def add_draw(self, numbers: Sequence[int], odds: Sequence[Fraction], bonus: int) -> None:
        k = len(numbers)
        self.draws += 1
        self.count_of_k[k] = self.count_of_k.get(k, 0) + 1
        for x in odds:
            self.odds[x] = self.odds.get(x, 0) + 1
        n, counts = self.lucky_by_k.get(k) or (0, [0] * POCKETS)
        for number in numbers:
            counts[number] += 1
        self.lucky_by_k[k] = (n + 1, counts)
        self.bonus_numbers[bonus] += 1
        self.bonus_pairs.add(bonus)
        self.count_pairs.add(k)
        self.bonus_runs.add(bonus)
        if numbers:
            self.lucky_runs.add(numbers[0])

    def add_game(self, rounds: Sequence[Sequence[Fraction | str]]) -> None:
        self.games += 1
        for r, boxes in enumerate(rounds):
            table = self.multipliers[r]
            xs = [i for i, b in enumerate(boxes) if isinstance(b, str)]
            for b in boxes:
                if not isinstance(b, str):
                    table[b] = table.get(b, 0) + 1
            n, counts = self.x_by_round[r].get(len(xs)) or (0, [0] * len(boxes))
            for i in xs:
                counts[i] += 1
            self.x_by_round[r][len(xs)] = (n + 1, counts)

    def results(self, alpha: float) -> list[TestResult]:
        rules = self.rules
        tests: list[TestResult | None] = [
            _weights_test("Lucky counts: weights", self.count_of_k, rules.lucky_counts),
            _weights_test("Lucky odds: weights", self.odds, rules.lucky_odds),
        ]
        tests += [
            _weights_test(f"bonus round {r} multipliers: weights", self.multipliers[r - 1], table)
            for r, table in enumerate(rules.bonus_rounds, start=1)
        ]
        tests.append(_subset_uniformity("Lucky Numbers: uniform", self.lucky_by_k, POCKETS))
        stat, df, _ = _chi2(self.bonus_numbers, [self.draws / POCKETS] * POCKETS)
        tests.append(
            TestResult("Bonus Number: uniform", stat, df, _chi2_sf(stat, df), True, f"{self.draws:,} drawn")
            if self.draws and df > 0
            else None
        )
        x_stat = 0.0
        x_df = 0
        for r, groups in enumerate(self.x_by_round, start=1):
            t = _subset_uniformity(f"round {r}", groups, 5)
            if t is not None:
                x_stat += t.statistic
                x_df += t.df
        tests.append(
            TestResult(
                "X positions: uniform", x_stat, x_df, _chi2_sf(x_stat, x_df), True, f"{self.games:,} games"
            )
            if x_df
            else None
        )
        uniform = {n: Fraction(1, POCKETS) for n in range(POCKETS)}
        tests.append(self.bonus_pairs.test("Bonus Number: lag-1 independence", uniform))
        total = sum(rules.lucky_counts.values())
        tests.append(
            self.count_pairs.test(
                "Lucky counts: lag-1 independence",
                {k: Fraction(w, total) for k, w in rules.lucky_counts.items()},
            )
        )
        b = self.bonus_runs
        tests.append(_runs_test("Bonus Number: runs above/below 18", b.runs, b.above, b.below))
        lr = self.lucky_runs
        tests.append(_runs_test("first Lucky Number: runs above/below 18", lr.runs, lr.above, lr.below))
        kept = [t for t in tests if t is not None]
        threshold = alpha / max(1, len(kept))
        return [
            TestResult(t.name, t.statistic, t.df, t.p_value, t.passed and t.p_value >= threshold, t.detail)
            for t in kept
        ]


def _check_alpha(alpha: float) -> float:
    if not 0 < alpha < 1:
        raise DrrError(f"the battery's alpha must be between 0 and 1, not {alpha!r}", exit_code=2)
    return alpha


def run_battery(
    draws: int,
    rules: RulesSubmission | None = None,
    progress: ProgressFn | None = None,
    *,
    bonus_games: int | None = None,
    rng: Rng | None = None,
    allow_test_rng: bool = False,
    alpha: float = 0.01,
) -> BatteryResult:
    """Collect `draws` draws and `bonus_games` games through the production code and test them."""
    from engine.rng_collect import iter_bonus_games, iter_draws, resolve_inputs

    if isinstance(draws, bool) or not isinstance(draws, int) or draws < MIN_DRAWS:
        raise DrrError(f"the battery needs at least {MIN_DRAWS:,} draws, not {draws!r}", exit_code=2)
    games = max(draws // 10, MIN_BONUS_GAMES) if bonus_games is None else bonus_games
    if isinstance(games, bool) or not isinstance(games, int) or games < MIN_BONUS_GAMES:
        raise DrrError(
            f"the battery needs at least {MIN_BONUS_GAMES:,} bonus games, not {games!r}", exit_code=2
        )
    _check_alpha(alpha)
    rules, rng = resolve_inputs(rules, rng, allow_test_rng)
    start = time.perf_counter()
    tally = _Tally(rules)
    total = draws + games
    for i, d in enumerate(iter_draws(rules, rng, draws), start=1):
        tally.add_draw(d.lucky_order, [d.lucky[n] for n in d.lucky_order], d.bonus_number)
        if progress is not None and i % 1000 == 0:
            progress(i, total)
    for g, rounds in enumerate(iter_bonus_games(rules, rng, games), start=1):
        tally.add_game(rounds)
        if progress is not None and g % 200 == 0:
            progress(draws + g, total)
    if progress is not None:
        progress(total, total)
    tests = tally.results(alpha)
    return BatteryResult(
        draws, games, alpha, tuple(tests), time.perf_counter() - start, rng.name, rules.sha256
    )


def _rows(path: str | os.PathLike[str], header: Sequence[str]) -> Iterable[dict[str, str]]:
    try:
        f = open(path, encoding="ascii", newline="")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise DrrError(f"{path}: cannot read: {exc.strerror or exc}", exit_code=2) from None
    with f:
        reader = csv.DictReader(f)
        if reader.fieldnames != list(header):
            raise DrrError(f"{path}: the header must be {','.join(header)}", exit_code=2)
        yield from reader


def battery_from_files(
    draws_csv: str | os.PathLike[str],
    bonus_csv: str | os.PathLike[str],
    rules: RulesSubmission | None = None,
    alpha: float = 0.01,
    *,
    progress: ProgressFn | None = None,
) -> BatteryResult:
    """The battery on a draws CSV and a bonus-games CSV written by engine.rng_collect;
    `progress(rows read, 0)` now and then (the total is the caller's: it wrote the files)."""
    from engine.exact import parse_odds
    from engine.rng_collect import BONUS_HEADER, DRAWS_HEADER

    _check_alpha(alpha)
    if rules is None:
        from engine.rules import load_default_rules

        rules = load_default_rules()
    start = time.perf_counter()
    tally = _Tally(rules)
    for line, row in enumerate(_rows(draws_csv, DRAWS_HEADER.split(",")), start=2):
        try:
            numbers = [int(n) for n in row["lucky_numbers"].split()]
            odds = [parse_odds(o) for o in row["lucky_odds"].split()]
            bonus = int(row["bonus_number"])
            if len(numbers) != len(odds) or not all(0 <= n < POCKETS for n in [*numbers, bonus]):
                raise ValueError
        except (ValueError, ZeroDivisionError, AttributeError):
            raise DrrError(f"{draws_csv}: line {line} is not a draw", exit_code=2) from None
        tally.add_draw(numbers, odds, bonus)
        if progress is not None and line % 1000 == 0:
            progress(tally.draws, 0)
    game: list[list[Fraction | str]] = []
    current = None
    for line, row in enumerate(_rows(bonus_csv, BONUS_HEADER.split(",")), start=2):
        try:
            boxes: list[Fraction | str] = [b if b == "X" else parse_odds(b) for b in row["boxes"].split()]
        except (ValueError, ZeroDivisionError, AttributeError):
            raise DrrError(f"{bonus_csv}: line {line} is not a bonus round", exit_code=2) from None
        if row["game"] != current and game:
            tally.add_game(game)
            game = []
            if progress is not None and tally.games % 200 == 0:
                progress(tally.draws + tally.games, 0)
        current = row["game"]
        game.append(boxes)
    if game:
        tally.add_game(game)
    tests = tally.results(alpha)
    return BatteryResult(
        tally.draws,
        tally.games,
        alpha,
        tuple(tests),
        time.perf_counter() - start,
        "file",
        rules.sha256,
        source=f"{os.fspath(draws_csv)}, {os.fspath(bonus_csv)}",
    )
