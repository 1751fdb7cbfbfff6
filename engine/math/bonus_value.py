"""Exact value of the bonus game (§ 617b.12(h)-(k)) for each way a player can play it.

The state at the start of a round is (round, running sum of picked multipliers, round-1
multiplier). A pick reveals a multiplier with probability boxes/5 (its value drawn from the
round's weighted table) or an "X", which ends the game paying the round-1 multiplier.
From round 3 the player may cash out for the running sum; surviving round 6 pays the sum.

Strategies:
- `optimal`: cash out exactly when the sum is worth at least going on (ties cash out,
  which keeps the same expected value with less variance);
- `cash_out_at_3`: an absent player: random picks in rounds 1-2 (§ 617b.12(i)(1)), then the
  cash-out default of § 617b.12(i)(2)(i) at the start of round 3;
- `play_to_end`: never cash out (also an absent player with the random default, § 617b.12(i)(2)(ii)).
"""

from __future__ import annotations

import enum
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property

from engine.rules import BONUS_ROUNDS, BOXES_PER_ROUND, CASH_OUT_FROM_ROUND, MULTIPLIER_BOXES, RulesSubmission


class Strategy(enum.StrEnum):
    OPTIMAL = "optimal"
    CASH_OUT_AT_3 = "cash_out_at_3"
    PLAY_TO_END = "play_to_end"


STRATEGIES: tuple[Strategy, ...] = tuple(Strategy)

# A table as (value, probability) pairs, probabilities summing to one.
Table = tuple[tuple[Fraction, Fraction], ...]


@dataclass(frozen=True)
class BonusValue:
    """The bonus outcome B (straight-up "to 1" odds) under one strategy, exactly."""

    strategy: Strategy
    distribution: Mapping[Fraction, Fraction]  # outcome -> probability, ascending outcomes

    # Computed once: each wager kind's return and variance read them (issue 28: recomputing them over
    # hundreds of outcomes with exact fractions was a third of the Rules Submission's check).
    @cached_property
    def mean(self) -> Fraction:
        return sum((b * p for b, p in self.distribution.items()), Fraction(0))

    @cached_property
    def second_moment(self) -> Fraction:
        return sum((b * b * p for b, p in self.distribution.items()), Fraction(0))

    @property
    def maximum(self) -> Fraction:
        return max(self.distribution)


@dataclass(frozen=True)
class RoundPolicy:
    """Where the optimal player stops in one round: by the amount at risk (sum - round-1 multiplier).

    The decision depends only on the amount at risk, because an "X" pays the round-1
    multiplier whatever else was picked; it is a threshold (more at risk -> cash out).
    """

    round: int
    continue_max_at_risk: Fraction | None  # largest reachable amount at risk that plays on
    cash_out_min_at_risk: Fraction | None  # smallest reachable amount at risk that cashes out


def round_tables(rules: RulesSubmission) -> tuple[Table, ...]:
    """Each round's multiplier table as exact probabilities."""
    out = []
    for table in rules.bonus_rounds:
        total = sum(table.values())
        out.append(tuple((Fraction(v), Fraction(w, total)) for v, w in sorted(table.items())))
    return tuple(out)


class BonusAnalysis:
    """Exact analysis of one Rules Submission's bonus game."""

    def __init__(self, tables: Sequence[Table]) -> None:
        if len(tables) != BONUS_ROUNDS:
            raise ValueError(f"the bonus game has {BONUS_ROUNDS} rounds, not {len(tables)}")
        self.tables = tuple(tables)
        self.survive = tuple(Fraction(m, BOXES_PER_ROUND) for m in MULTIPLIER_BOXES)
        # Exact in whole numbers (issue 28: Fraction arithmetic, each result reduced by a gcd and each
        # state hashed as fractions, was most of a Rules Submission's check, which the croupier
        # station runs before its first frame). Multipliers count in `_unit`ths (the least common
        # denominator of every multiplier: 1 for whole multipliers); round r's probabilities are
        # whole numbers over its `den` (survive x weight for a multiplier, `lost` for an "X").
        self._unit = math.lcm(*(v.denominator for table in self.tables for v, _p in table))
        self._rounds: list[tuple[int, int, tuple[tuple[int, int], ...]]] = []
        for survive, table in zip(self.survive, self.tables, strict=True):
            den = math.lcm((1 - survive).denominator, *((survive * p).denominator for _v, p in table))
            picks = tuple((int(v * self._unit), int(survive * p * den)) for v, p in table)
            self._rounds.append((den, int((1 - survive) * den), picks))
        # `_ahead[r]`: the product of the dens of rounds r..6, the denominator of a value at round r.
        self._ahead = [1] * (BONUS_ROUNDS + 2)
        for rnd in range(BONUS_ROUNDS, 0, -1):
            self._ahead[rnd] = self._ahead[rnd + 1] * self._rounds[rnd - 1][0]
        self._scaled = cache(self._scaled_uncached)

    @classmethod
    def from_rules(cls, rules: RulesSubmission) -> BonusAnalysis:
        return cls(round_tables(rules))

    def _whole(self, amount: Fraction) -> int:
        """`amount` in `_unit`ths (every reachable running sum and multiplier is a whole number of them)."""
        scaled = Fraction(amount) * self._unit
        if scaled.denominator != 1:
            raise ValueError(f"{amount} is not a sum of this game's multipliers")
        return scaled.numerator

    # --- optimal play: backward induction ------------------------------------------------

    def _scaled_uncached(self, rnd: int, total: int, first: int) -> int:
        """Optimal expected outcome at the start of round `rnd` (1-based; 7 = survived), in
        `_unit`ths times `_ahead[rnd]`; `total` and `first` in `_unit`ths."""
        if rnd > BONUS_ROUNDS:
            return total
        go_on = self._scaled_continue(rnd, total, first)
        if rnd >= CASH_OUT_FROM_ROUND:
            return max(total * self._ahead[rnd], go_on)
        return go_on

    def _value(self, rnd: int, total: Fraction, first: Fraction) -> Fraction:
        """Optimal expected outcome at the start of round `rnd` (1-based; 7 = survived)."""
        scaled = self._scaled(rnd, self._whole(total), self._whole(first))
        return Fraction(scaled, self._ahead[rnd] * self._unit)

    def _scaled_continue(self, rnd: int, total: int, first: int) -> int:
        """`continue_value` in `_unit`ths times `_ahead[rnd]`."""
        _den, lost, picks = self._rounds[rnd - 1]
        picked = sum(w * self._scaled(rnd + 1, total + v, v if rnd == 1 else first) for v, w in picks)
        return lost * first * self._ahead[rnd + 1] + picked

    def continue_value(self, rnd: int, total: Fraction, first: Fraction) -> Fraction:
        """Expected outcome of picking a box in round `rnd` and playing optimally after it."""
        scaled = self._scaled_continue(rnd, self._whole(total), self._whole(first))
        return Fraction(scaled, self._ahead[rnd] * self._unit)

    def cashes_out(self, strategy: Strategy, rnd: int, total: Fraction, first: Fraction) -> bool:
        """Whether `strategy` cashes out at the start of round `rnd` in this state."""
        return self._cashes_out(strategy, rnd, self._whole(total), self._whole(first))

    def _cashes_out(self, strategy: Strategy, rnd: int, total: int, first: int) -> bool:
        if rnd < CASH_OUT_FROM_ROUND:
            return False
        if strategy is Strategy.CASH_OUT_AT_3:
            return True
        if strategy is Strategy.PLAY_TO_END:
            return False
        return total * self._ahead[rnd] >= self._scaled_continue(rnd, total, first)

    # --- any strategy: forward distribution ----------------------------------------------

    def value(self, strategy: Strategy) -> BonusValue:
        """The exact distribution of the bonus outcome when the player follows `strategy`."""
        # In whole numbers: sums in `_unit`ths, every probability a numerator over `scale`, the
        # product of the rounds' dens so far.
        outcomes: dict[int, int] = defaultdict(int)
        # Round 1 has no "X", so the round-1 multiplier is known before any X can pay it.
        states: dict[tuple[int, int], int] = {(0, 0): 1}
        scale = 1
        for rnd in range(1, BONUS_ROUNDS + 1):
            den, lost, picks = self._rounds[rnd - 1]
            scale *= den
            for outcome in outcomes:
                outcomes[outcome] *= den
            nxt: dict[tuple[int, int], int] = defaultdict(int)
            for (total, first), prob in states.items():
                if self._cashes_out(strategy, rnd, total, first):
                    outcomes[total] += prob * den
                    continue
                if lost:
                    outcomes[first] += prob * lost
                for v, weight in picks:
                    nxt[(total + v, v if rnd == 1 else first)] += prob * weight
            states = nxt
        for (total, _first), prob in states.items():
            outcomes[total] += prob
        return BonusValue(
            strategy, {Fraction(b, self._unit): Fraction(n, scale) for b, n in sorted(outcomes.items())}
        )

    def optimal_policy(self) -> tuple[RoundPolicy, ...]:
        """The optimal player's cash-out thresholds over the states reachable in each round."""
        policies = []
        states: set[tuple[Fraction, Fraction]] = {(Fraction(0), Fraction(0))}
        for rnd in range(1, BONUS_ROUNDS + 1):
            go_on: list[Fraction] = []
            stop: list[Fraction] = []
            nxt: set[tuple[Fraction, Fraction]] = set()
            for total, first in states:
                if self.cashes_out(Strategy.OPTIMAL, rnd, total, first):
                    stop.append(total - first)
                    continue
                go_on.append(total - first)
                for v, _p in self.tables[rnd - 1]:
                    nxt.add((total + v, v if rnd == 1 else first))
            if rnd >= CASH_OUT_FROM_ROUND:
                policies.append(RoundPolicy(rnd, max(go_on, default=None), min(stop, default=None)))
            states = nxt
        return tuple(policies)


def bonus_values(rules: RulesSubmission) -> dict[Strategy, BonusValue]:
    """The bonus outcome's distribution under every strategy."""
    game = BonusAnalysis.from_rules(rules)
    return {s: game.value(s) for s in STRATEGIES}
