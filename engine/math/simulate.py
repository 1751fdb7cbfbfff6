"""Monte Carlo check of the exact game math: whole spins, vectorised with numpy.

Each spin is the whole game: k Lucky Numbers (k weighted), distinct and uniform over 0-36,
each with its own X; the Bonus Number uniform over the other 37 - k; the ball's result; one
wager of every kind on the layout; and for a result on the Bonus Number the bonus game
played box by box by the chosen strategy. Per result number the simulator accumulates the
counts and sums of the special odds (X or B) from which every kind's return, its square
and its hits follow exactly, and per kind it counts the spins whose Lucky Numbers / Bonus
Number fall on the wager's numbers. A scalar reference path runs the engine's own draw,
bonus game and settlement one spin at a time to cross-check this one.

numpy's Generator is a simulation tool, never the game's RNG (that is engine.rng, on the
OS CSPRNG). A run is split into fixed-size tasks, each with its own stream from
SeedSequence(seed).spawn, so the same seed gives the same answer on any number of cores.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.exact import format_odds
from engine.math.bonus_value import BonusAnalysis, Strategy
from engine.math.wager_math import game_math, representative_bets
from engine.rules import BONUS_ROUNDS, BOXES_PER_ROUND, CASH_OUT_FROM_ROUND, MULTIPLIER_BOXES, RulesSubmission

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from engine.rng import Rng

POCKETS = 37
TASK_SPINS = 1 << 20  # spins per task: a unit of work, of progress and of seeding
CHUNK_SPINS = 1 << 16  # spins per vectorised step (keeps the arrays in cache)
PARALLEL_FROM = 4 * TASK_SPINS  # fewer spins than this run in-process (no pool start-up)
Z99 = 2.5758293035489004  # two-sided 99% normal quantile, scipy.stats.norm.ppf(0.995)


LOOKUP_MAX = 1 << 16  # weight totals up to this draw through a lookup table, larger by bisection


@dataclass(frozen=True)
class _Weighted:
    """A weighted table for numpy: a uniform integer below the weight total picks a value."""

    cumulative: NDArray[np.int64]
    values: NDArray[np.float64]
    lookup: NDArray[np.float64] | None  # value of every integer below the total, if small

    @classmethod
    def of(cls, table: Mapping[Any, int]) -> _Weighted:
        items = sorted(table.items())
        weights = [w for _, w in items]
        values = np.array([float(v) for v, _ in items], dtype=np.float64)
        lookup = np.repeat(values, weights) if sum(weights) <= LOOKUP_MAX else None
        return cls(np.cumsum(weights, dtype=np.int64), values, lookup)

    def draw(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> NDArray[np.float64]:
        u = rng.integers(0, int(self.cumulative[-1]), size=size)
        if self.lookup is not None:
            return self.lookup[u]
        return self.values[np.searchsorted(self.cumulative, u, side="right")]


@dataclass(frozen=True)
class SimPlan:
    """What one task needs (picklable): the rules as numpy tables and the bonus strategy."""

    counts: _Weighted
    odds: _Weighted
    rounds: tuple[_Weighted, ...]
    strategy: Strategy
    # Optimal play cashes out when the amount at risk (sum - round-1 multiplier) reaches
    # the round's threshold (see engine.math.bonus_value.RoundPolicy); inf = never.
    cash_out_at_risk: tuple[float, ...]
    # Each wager kind's numbers as a 37-bit mask (bit n = number n), in report order.
    kind_masks: tuple[int, ...]

    @classmethod
    def of(cls, rules: RulesSubmission, strategy: Strategy) -> SimPlan:
        return cls(
            kind_masks=tuple(sum(1 << n for n in bet.numbers) for bet in representative_bets(rules).values()),
            counts=_Weighted.of(rules.lucky_counts),
            odds=_Weighted.of(rules.lucky_odds),
            rounds=tuple(_Weighted.of(t) for t in rules.bonus_rounds),
            strategy=strategy,
            cash_out_at_risk=_thresholds(rules, strategy),
        )


def _thresholds(rules: RulesSubmission, strategy: Strategy) -> tuple[float, ...]:
    """Per round 1..6, the amount at risk from which `strategy` cashes out (inf: never)."""
    out = [math.inf] * BONUS_ROUNDS
    if strategy is Strategy.CASH_OUT_AT_3:
        out[CASH_OUT_FROM_ROUND - 1] = -math.inf
    elif strategy is Strategy.OPTIMAL:
        for p in BonusAnalysis.from_rules(rules).optimal_policy():
            if p.cash_out_min_at_risk is None:
                continue
            lo = p.continue_max_at_risk
            # Halfway between the reachable amounts that go on and those that stop, so float
            # sums of the multipliers cannot land on the wrong side; -inf when none goes on.
            out[p.round - 1] = -math.inf if lo is None else float((lo + p.cash_out_min_at_risk) / 2)
    return tuple(out)


def play_bonus_games(plan: SimPlan, rng: np.random.Generator, games: int) -> NDArray[np.float64]:
    """The outcomes B of `games` independent bonus games played by the plan's strategy."""
    first = plan.rounds[0].draw(rng, games)  # round 1 holds five multipliers: no "X"
    total = first.copy()
    outcome = np.zeros(games)
    alive = np.ones(games, dtype=bool)
    for rnd in range(2, BONUS_ROUNDS + 1):
        idx = np.flatnonzero(alive)
        if idx.size == 0:
            break
        stop = total[idx] - first[idx] >= plan.cash_out_at_risk[rnd - 1]
        cashed = idx[stop]
        outcome[cashed] = total[cashed]
        alive[cashed] = False
        idx = idx[~stop]
        # The boxes are shuffled, so the picked box holds a multiplier with probability m/5.
        hit = rng.integers(0, BOXES_PER_ROUND, size=idx.size) < MULTIPLIER_BOXES[rnd - 1]
        lost = idx[~hit]
        outcome[lost] = first[lost]
        alive[lost] = False
        won = idx[hit]
        total[won] += plan.rounds[rnd - 1].draw(rng, won.size)
    outcome[alive] = total[alive]
    return outcome


def distinct_numbers(rng: np.random.Generator, rows: int, k: int) -> NDArray[np.int64]:
    """`rows` draws of k distinct numbers uniform over 0-36, each row sorted ascending.

    Rows with a repeat are drawn again whole: uniform tuples conditioned on being distinct
    are uniform over the k-subsets."""
    out = rng.integers(0, POCKETS, size=(rows, k))
    if k == 1:
        return out
    out.sort(axis=1)
    redo = np.flatnonzero((out[:, 1:] == out[:, :-1]).any(axis=1))
    while redo.size:
        fresh = np.sort(rng.integers(0, POCKETS, size=(redo.size, k)), axis=1)
        out[redo] = fresh
        redo = redo[(fresh[:, 1:] == fresh[:, :-1]).any(axis=1)]
    return out


_BIT = np.left_shift(np.uint64(1), np.arange(POCKETS, dtype=np.uint64))  # _BIT[n]: number n's bit


@dataclass
class Draws:
    """One chunk of spins' Lucky/Bonus draws, as the wagers see them."""

    lucky_mask: NDArray[np.uint64]  # bit n set when n is a Lucky Number
    bonus: NDArray[np.int64]  # the Bonus Number
    result_x: NDArray[np.float64]  # X of the result when it is Lucky, else 0


def draw_spins(plan: SimPlan, rng: np.random.Generator, result: NDArray[np.int64]) -> Draws:
    """The Lucky Numbers (with their X) and the Bonus Number of every spin, § 617b.12(e)."""
    size = result.size
    k = plan.counts.draw(rng, size).astype(np.int64)
    out = Draws(np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.int64), np.zeros(size))
    for count in np.unique(k):
        rows = np.flatnonzero(k == count)
        numbers = distinct_numbers(rng, rows.size, int(count))
        odds = plan.odds.draw(rng, numbers.size).reshape(numbers.shape)
        out.lucky_mask[rows] = np.bitwise_or.reduce(
            np.left_shift(np.uint64(1), numbers.astype(np.uint64)), axis=1
        )
        # The Bonus Number is the j-th of the numbers that are not Lucky, j uniform: walk
        # the sorted Lucky Numbers and step over each one at or below the candidate.
        bonus = rng.integers(0, POCKETS - count, size=rows.size)
        for col in range(count):
            bonus += numbers[:, col] <= bonus
        out.bonus[rows] = bonus
        hit = numbers == result[rows, None]
        out.result_x[rows] = (odds * hit).sum(axis=1)
    return out


# Per result number: counts and sums the wagers' returns are built from.
_ACC = ("spins", "lucky", "lucky_sum", "lucky_sq", "bonus", "bonus_sum", "bonus_sq")


@dataclass
class TaskTotals:
    """What a task hands back: per-result accumulators (rows of _ACC) and, per wager kind,
    how many spins had a Lucky Number / the Bonus Number among the wager's numbers."""

    per_result: NDArray[np.float64]  # (len(_ACC), 37)
    covers: NDArray[np.int64]  # (2, kinds): Lucky, Bonus

    def __iadd__(self, other: TaskTotals) -> TaskTotals:
        self.per_result += other.per_result
        self.covers += other.covers
        return self


def simulate_task(plan: SimPlan, spins: int, seed: np.random.SeedSequence) -> TaskTotals:
    """Play `spins` whole spins with the random stream of `seed`."""
    rng = np.random.Generator(np.random.PCG64(seed))
    totals = TaskTotals(np.zeros((len(_ACC), POCKETS)), np.zeros((2, len(plan.kind_masks)), dtype=np.int64))
    acc = totals.per_result
    masks = [np.uint64(m) for m in plan.kind_masks]
    done = 0
    while done < spins:
        c = min(CHUNK_SPINS, spins - done)
        done += c
        result = rng.integers(0, POCKETS, size=c)
        draws = draw_spins(plan, rng, result)
        bonus_bit = _BIT[draws.bonus]
        for i, mask in enumerate(masks):
            totals.covers[0, i] += np.count_nonzero(draws.lucky_mask & mask)
            totals.covers[1, i] += np.count_nonzero(bonus_bit & mask)
        acc[0] += np.bincount(result, minlength=POCKETS)
        is_lucky = draws.result_x > 0
        lr, x = result[is_lucky], draws.result_x[is_lucky]
        acc[1] += np.bincount(lr, minlength=POCKETS)
        acc[2] += np.bincount(lr, weights=x, minlength=POCKETS)
        acc[3] += np.bincount(lr, weights=x * x, minlength=POCKETS)
        br = result[result == draws.bonus]
        b = play_bonus_games(plan, rng, br.size)
        acc[4] += np.bincount(br, minlength=POCKETS)
        acc[5] += np.bincount(br, weights=b, minlength=POCKETS)
        acc[6] += np.bincount(br, weights=b * b, minlength=POCKETS)
    return totals


@dataclass(frozen=True)
class KindEstimate:
    """What the spins say about one wager kind, next to the exact RTP of the strategy played."""

    kind: str
    rtp: float
    stderr: float
    ci99: tuple[float, float]
    hit_frequency: float
    p_lucky: float  # share of spins with a Lucky Number among the wager's numbers
    p_bonus: float  # share of spins with the Bonus Number among them
    exact_rtp: Fraction | None = None

    @property
    def exact_inside_ci99(self) -> bool | None:
        if self.exact_rtp is None:
            return None
        return self.ci99[0] <= float(self.exact_rtp) <= self.ci99[1]


@dataclass(frozen=True)
class SimulationResult:
    spins: int
    strategy: Strategy
    seed: int | None
    seconds: float
    kinds: Mapping[str, KindEstimate]
    bonus_games: int
    bonus_mean: float  # nan when no bonus game was played

    @property
    def spins_per_second(self) -> float:
        return self.spins / self.seconds if self.seconds > 0 else math.inf

    def to_json(self) -> dict[str, Any]:
        def dec(x: float) -> str:
            return f"{x:.8f}"

        return {
            "spins": self.spins,
            "strategy": self.strategy.value,
            "seed": self.seed,
            "spins_per_second": round(self.spins_per_second, 1),
            "seconds": round(self.seconds, 3),
            "bonus_games": self.bonus_games,
            "bonus_mean": dec(self.bonus_mean) if self.bonus_games else None,
            "bets": {
                kind: {
                    "rtp": dec(e.rtp),
                    "stderr": dec(e.stderr),
                    "ci99": [dec(e.ci99[0]), dec(e.ci99[1])],
                    "hit_frequency": dec(e.hit_frequency),
                    "p_lucky": dec(e.p_lucky),
                    "p_bonus": dec(e.p_bonus),
                    "exact_rtp": None if e.exact_rtp is None else format_odds(e.exact_rtp),
                    "exact_inside_ci99": e.exact_inside_ci99,
                }
                for kind, e in self.kinds.items()
            },
        }


@dataclass(frozen=True)
class KindSums:
    """Sums over spins of one unit on one wager kind: its return, the return squared, its
    wins, and the spins whose Lucky Numbers / Bonus Number fell on its numbers."""

    returns: float
    squares: float
    hits: float
    covers_lucky: float
    covers_bonus: float


def kind_sums(rules: RulesSubmission, totals: TaskTotals) -> dict[str, KindSums]:
    """Every wager kind's sums, from what the tasks of `simulate_task` accumulated."""
    spins, lucky, lsum, lsq, bonus, bsum, bsq = totals.per_result
    special = lucky + bonus
    osum, osq = lsum + bsum, lsq + bsq
    out = {}
    for i, (kind, bet) in enumerate(representative_bets(rules).items()):
        mask = np.zeros(POCKETS, dtype=bool)
        mask[sorted(bet.numbers)] = True
        w = 1.0 + float(rules.base_payout(bet))  # a win at base odds returns the stake too
        hits = float(spins[mask].sum())
        if bet.inside:
            # A win on a Lucky / the Bonus Number returns 1 + O/n with O its X or B.
            n = float(bet.size)
            sp, so, sq = float(special[mask].sum()), float(osum[mask].sum()), float(osq[mask].sum())
            plain = hits - sp
            s1 = plain * w + sp + so / n
            s2 = plain * w * w + sp + 2 * so / n + sq / (n * n)
        else:
            s1, s2 = hits * w, hits * w * w
        out[kind] = KindSums(s1, s2, hits, float(totals.covers[0, i]), float(totals.covers[1, i]))
    return out


def estimates(
    sums: Mapping[str, KindSums], spins: int, exact: Mapping[str, Fraction] | None = None
) -> dict[str, KindEstimate]:
    """RTP estimate, standard error, 99% interval, hit frequency and coverage of every kind."""
    out = {}
    for kind, s in sums.items():
        mean = s.returns / spins
        var = max(s.squares / spins - mean * mean, 0.0)
        se = math.sqrt(var / spins)
        out[kind] = KindEstimate(
            kind=kind,
            rtp=mean,
            stderr=se,
            ci99=(mean - Z99 * se, mean + Z99 * se),
            hit_frequency=s.hits / spins,
            p_lucky=s.covers_lucky / spins,
            p_bonus=s.covers_bonus / spins,
            exact_rtp=None if exact is None else exact[kind],
        )
    return out


def _tasks(spins: int, seed: int | None) -> Iterator[tuple[int, np.random.SeedSequence]]:
    count = max(1, -(-spins // TASK_SPINS))
    seeds = np.random.SeedSequence(seed).spawn(count)
    for i, ss in enumerate(seeds):
        yield min(TASK_SPINS, spins - i * TASK_SPINS), ss


def simulate(
    rules: RulesSubmission,
    spins: int,
    *,
    seed: int | None = None,
    strategy: Strategy = Strategy.OPTIMAL,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Play `spins` whole spins; `progress(n)` is called as each batch of n spins finishes.

    Runs in this process below PARALLEL_FROM spins or with workers=1, else on `workers`
    processes (default: every core). The answer depends on the seed only."""
    if spins < 1:
        raise ValueError(f"spins must be at least 1, not {spins}")
    plan = SimPlan.of(rules, strategy)
    exact = {kind: w.rtp[strategy] for kind, w in game_math(rules).wagers.items()}
    cores = workers if workers is not None else (os.cpu_count() or 1)
    started = time.perf_counter()
    totals = TaskTotals(np.zeros((len(_ACC), POCKETS)), np.zeros((2, len(plan.kind_masks)), dtype=np.int64))
    tasks = list(_tasks(spins, seed))
    if cores <= 1 or spins < PARALLEL_FROM:
        for n, ss in tasks:
            totals += simulate_task(plan, n, ss)
            if progress:
                progress(n)
    else:
        pool = ProcessPoolExecutor(max_workers=min(cores, len(tasks)))
        try:
            futures = [(n, pool.submit(simulate_task, plan, n, ss)) for n, ss in tasks]
            for n, fut in futures:
                totals += fut.result()
                if progress:
                    progress(n)
        except BaseException:
            # Ctrl+C (or a failed task): drop the queued tasks instead of playing them all first.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    seconds = time.perf_counter() - started
    games = int(totals.per_result[4].sum())
    return SimulationResult(
        spins=spins,
        strategy=strategy,
        seed=seed,
        seconds=seconds,
        kinds=estimates(kind_sums(rules, totals), spins, exact),
        bonus_games=games,
        bonus_mean=float(totals.per_result[5].sum()) / games if games else math.nan,
    )


# --- the scalar reference path: the engine's own draw, bonus game and settlement -----------


def play_engine_bonus_game(
    rules: RulesSubmission, rng: Rng, policy: BonusAnalysis, strategy: Strategy
) -> Fraction:
    """One bonus game through `engine.bonus_game.BonusGame`, the player following `strategy`
    (random boxes; the clock stands still, so no timer runs out)."""
    from engine.bonus_game import BonusGame

    game = BonusGame.start(rules, rng, player="p", clock=lambda: 0.0)
    while game.outcome is None:
        first = game.round1_multiplier if game.round1_multiplier is not None else Fraction(0)
        if game.can_cash_out and policy.cashes_out(strategy, game.round, game.running_sum, first):
            game.cash_out()
        else:
            game.pick(rng.randbelow(BOXES_PER_ROUND) + 1)
    return game.outcome


def simulate_scalar(
    rules: RulesSubmission, spins: int, *, seed: int, strategy: Strategy = Strategy.OPTIMAL
) -> SimulationResult:
    """The same game one spin at a time through the engine itself: `draw_lucky_and_bonus`
    on a `SeededRng`, the ball as `randbelow(37)`, a `bonus_game.BonusGame` played box by box
    by the strategy, and `settle_round` of one wager per kind. Slow; for cross-checking."""
    from engine.bets import Wager
    from engine.rng import SeededRng, draw_lucky_and_bonus
    from engine.settlement import settle_round

    if spins < 1:
        raise ValueError(f"spins must be at least 1, not {spins}")
    rng = SeededRng(seed)
    policy = BonusAnalysis.from_rules(rules)
    # Payouts round down to the rounding step; a large stake makes that loss negligible.
    stake = Decimal(10_000)
    wagers = [Wager(kind, "p", bet, stake) for kind, bet in representative_bets(rules).items()]
    sums = {w.id: [0.0] * 5 for w in wagers}
    games, bonus_total = 0, 0.0
    started = time.perf_counter()
    for _ in range(spins):
        draw = draw_lucky_and_bonus(rules, rng)
        result = rng.randbelow(POCKETS)
        bonus: dict[str, Fraction] = {}
        if result == draw.bonus_number:
            bonus["p"] = play_engine_bonus_game(rules, rng, policy, strategy)
            games += 1
            bonus_total += float(bonus["p"])
        for settled in settle_round(wagers, result, draw, bonus, rules).settlements:
            acc = sums[settled.wager.id]
            numbers = settled.wager.bet.numbers
            acc[3] += not numbers.isdisjoint(draw.lucky)
            acc[4] += draw.bonus_number in numbers
            if settled.won:
                r = float(settled.returned / stake)
                acc[0] += r
                acc[1] += r * r
                acc[2] += 1
    seconds = time.perf_counter() - started
    exact = {kind: w.rtp[strategy] for kind, w in game_math(rules).wagers.items()}
    return SimulationResult(
        spins=spins,
        strategy=strategy,
        seed=seed,
        seconds=seconds,
        kinds=estimates({k: KindSums(*v) for k, v in sums.items()}, spins, exact),
        bonus_games=games,
        bonus_mean=bonus_total / games if games else math.nan,
    )
