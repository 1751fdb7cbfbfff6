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
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

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

    @property
    def mean(self) -> Fraction:
        return sum((b * p for b, p in self.distribution.items()), Fraction(0))

    @property
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
        self._value = cache(self._value_uncached)

    @classmethod
    def from_rules(cls, rules: RulesSubmission) -> BonusAnalysis:
        return cls(round_tables(rules))

    # --- optimal play: backward induction ------------------------------------------------

    def _value_uncached(self, rnd: int, total: Fraction, first: Fraction) -> Fraction:
        """Optimal expected outcome at the start of round `rnd` (1-based; 7 = survived)."""
        if rnd > BONUS_ROUNDS:
            return total
        go_on = self.continue_value(rnd, total, first)
        if rnd >= CASH_OUT_FROM_ROUND:
            return max(total, go_on)
        return go_on

    def continue_value(self, rnd: int, total: Fraction, first: Fraction) -> Fraction:
        """Expected outcome of picking a box in round `rnd` and playing optimally after it."""
        survive = self.survive[rnd - 1]
        picked = sum(
            (p * self._value(rnd + 1, total + v, v if rnd == 1 else first) for v, p in self.tables[rnd - 1]),
            Fraction(0),
        )
        return (1 - survive) * first + survive * picked

    def cashes_out(self, strategy: Strategy, rnd: int, total: Fraction, first: Fraction) -> bool:
        """Whether `strategy` cashes out at the start of round `rnd` in this state."""
        if rnd < CASH_OUT_FROM_ROUND:
            return False
        if strategy is Strategy.CASH_OUT_AT_3:
            return True
        if strategy is Strategy.PLAY_TO_END:
            return False
        return total >= self.continue_value(rnd, total, first)

    # --- any strategy: forward distribution ----------------------------------------------

    def value(self, strategy: Strategy) -> BonusValue:
        """The exact distribution of the bonus outcome when the player follows `strategy`."""
        outcomes: dict[Fraction, Fraction] = defaultdict(Fraction)
        # Round 1 has no "X", so the round-1 multiplier is known before any X can pay it.
        states: dict[tuple[Fraction, Fraction], Fraction] = {(Fraction(0), Fraction(0)): Fraction(1)}
        for rnd in range(1, BONUS_ROUNDS + 1):
            survive = self.survive[rnd - 1]
            nxt: dict[tuple[Fraction, Fraction], Fraction] = defaultdict(Fraction)
            for (total, first), prob in states.items():
                if self.cashes_out(strategy, rnd, total, first):
                    outcomes[total] += prob
                    continue
                if survive < 1:
                    outcomes[first] += prob * (1 - survive)
                for v, p in self.tables[rnd - 1]:
                    nxt[(total + v, v if rnd == 1 else first)] += prob * survive * p
            states = nxt
        for (total, _first), prob in states.items():
            outcomes[total] += prob
        return BonusValue(strategy, dict(sorted(outcomes.items())))

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
