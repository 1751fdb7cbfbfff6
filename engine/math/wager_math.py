"""Exact statistics of every wager kind under a Rules Submission (one unit staked).

The return R of one unit is what comes back including the stake, so RTP = E[R] and the
house edge is 1 - RTP. For an inside wager covering n numbers only the winning number
matters: it is a Lucky Number with probability E[k]/37 (paying X/n to 1), the Bonus
Number with probability 1/37 whatever k is (paying B/n to 1, B the player's bonus
outcome), and otherwise pays the base odds. Outside wagers are plain single-zero roulette.

Payouts are taken unrounded: rounding down to `wagers.rounding` depends on the amount
staked and takes less than one rounding step per winning wager.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

from engine.bets import Bet, math_rows
from engine.math.bonus_value import STRATEGIES, BonusAnalysis, BonusValue, RoundPolicy, Strategy
from engine.rules import RulesSubmission

POCKETS = 37

# The report's rows and their titles come from engine.bets' table of bet kinds: one row per inside
# kind, one per outside paytable line (the six even-money kinds share a row). One representative
# bet stands for each row (every bet of a kind has the same math by symmetry: each number is
# equally likely to be the result, a Lucky Number or the Bonus Number).
KIND_ORDER: tuple[str, ...] = tuple(math_rows())
KIND_TITLES: Mapping[str, str] = {row: info.title for row, info in math_rows().items()}


def representative_bets(rules: RulesSubmission) -> dict[str, Bet]:
    """One bet of every kind the Rules Submission offers, keyed by the kind's report name."""
    return {row: info.example_bet() for row, info in math_rows(rules.trios, rules.first_four).items()}


@dataclass(frozen=True)
class LuckyStats:
    """Moments of the Lucky draw: E[k] and the straight-up Lucky odds X."""

    mean_count: Fraction
    mean_odds: Fraction
    second_moment_odds: Fraction
    max_odds: Fraction
    count_probabilities: Mapping[int, Fraction]

    @classmethod
    def from_rules(cls, rules: RulesSubmission) -> LuckyStats:
        ctotal = sum(rules.lucky_counts.values())
        counts = {k: Fraction(w, ctotal) for k, w in rules.lucky_counts.items()}
        ototal = sum(rules.lucky_odds.values())
        odds = {x: Fraction(w, ototal) for x, w in rules.lucky_odds.items()}
        return cls(
            mean_count=sum((k * p for k, p in counts.items()), Fraction(0)),
            mean_odds=sum((x * p for x, p in odds.items()), Fraction(0)),
            second_moment_odds=sum((x * x * p for x, p in odds.items()), Fraction(0)),
            max_odds=max(odds),
            count_probabilities=counts,
        )

    def p_covers_lucky(self, n: int) -> Fraction:
        """Probability that n given numbers include at least one of the k Lucky Numbers."""
        return 1 - sum(
            (
                p * Fraction(math.comb(POCKETS - n, k), math.comb(POCKETS, k))
                for k, p in self.count_probabilities.items()
            ),
            Fraction(0),
        )


@dataclass(frozen=True)
class WagerStats:
    """Exact figures of one unit staked on one bet of a kind."""

    kind: str
    bet: Bet
    numbers: int
    base_odds: Fraction
    rtp: Mapping[Strategy, Fraction]
    hit_frequency: Fraction
    p_lucky: Fraction  # the wager's numbers include a Lucky Number
    p_bonus: Fraction  # the wager's numbers include the Bonus Number
    variance: Mapping[Strategy, Fraction]
    max_payout: Fraction  # largest "to 1" odds the wager can be paid

    def house_edge(self, strategy: Strategy) -> Fraction:
        return 1 - self.rtp[strategy]


def wager_stats(
    rules: RulesSubmission, bet: Bet, kind: str, lucky: LuckyStats, bonus: Mapping[Strategy, BonusValue]
) -> WagerStats:
    n = bet.size
    base = rules.base_payout(bet)
    hit = Fraction(n, POCKETS)
    p_lucky = lucky.p_covers_lucky(n)
    # The Bonus Number is uniform over the 37 - k non-Lucky numbers, so it falls among
    # the n - j of ours that are not Lucky: E[(n - j)/(37 - k)] = n/37 for every k.
    p_bonus = Fraction(n, POCKETS)
    if not bet.inside:
        mean = hit * (1 + base)
        second = hit * (1 + base) ** 2
        rtp = dict.fromkeys(STRATEGIES, mean)
        variance = dict.fromkeys(STRATEGIES, second - mean * mean)
        return WagerStats(kind, bet, n, base, rtp, hit, p_lucky, p_bonus, variance, base)

    # Given the wager wins, its winning number is Lucky / Bonus / neither with these odds.
    k = lucky.mean_count
    w_lucky, w_bonus, w_base = k / POCKETS, Fraction(1, POCKETS), (POCKETS - 1 - k) / POCKETS
    lucky_mean = 1 + lucky.mean_odds / n
    lucky_second = 1 + 2 * lucky.mean_odds / n + lucky.second_moment_odds / (n * n)
    rtp, variance = {}, {}
    for s, b in bonus.items():
        bonus_mean = 1 + b.mean / n
        bonus_second = 1 + 2 * b.mean / n + b.second_moment / (n * n)
        mean = hit * (w_lucky * lucky_mean + w_bonus * bonus_mean + w_base * (1 + base))
        second = hit * (w_lucky * lucky_second + w_bonus * bonus_second + w_base * (1 + base) ** 2)
        rtp[s] = mean
        variance[s] = second - mean * mean
    top = max(lucky.max_odds, rules.max_bonus, base * n) / n
    return WagerStats(kind, bet, n, base, rtp, hit, p_lucky, p_bonus, variance, top)


@dataclass(frozen=True)
class GameMath:
    """The whole exact analysis of one Rules Submission."""

    rules: RulesSubmission
    lucky: LuckyStats
    bonus: Mapping[Strategy, BonusValue]
    optimal_policy: tuple[RoundPolicy, ...]
    wagers: Mapping[str, WagerStats]


def game_math(rules: RulesSubmission) -> GameMath:
    lucky = LuckyStats.from_rules(rules)
    game = BonusAnalysis.from_rules(rules)
    bonus = {s: game.value(s) for s in STRATEGIES}
    wagers = {
        kind: wager_stats(rules, bet, kind, lucky, bonus) for kind, bet in representative_bets(rules).items()
    }
    return GameMath(rules, lucky, bonus, game.optimal_policy(), wagers)


def sqrt_decimal(x: Fraction, places: int = 12) -> str:
    """The square root of an exact non-negative fraction, correctly rounded to `places` decimals."""
    with localcontext() as ctx:
        ctx.prec = places + 30
        root = (Decimal(x.numerator) / Decimal(x.denominator)).sqrt()
        return str(root.quantize(Decimal(1).scaleb(-places)))


def percent(x: Fraction, places: int = 4) -> str:
    """A fraction as a percentage rounded half-even to `places` decimals, e.g. "97.2973"."""
    with localcontext() as ctx:
        ctx.prec = 50
        value = Decimal(x.numerator) * 100 / Decimal(x.denominator)
        return str(value.quantize(Decimal(1).scaleb(-places)))
