"""Random number generation for the game (§ 617b.12(c), (e), (h)) and the Lucky/Bonus draw.

Public API (used by the table service, the bonus game and the game math):

- `Rng`: the protocol every generator follows: `randbelow(n)` (uniform integer in 0..n-1),
  `name` (recorded in the journal) and `production_safe`.
- `SystemRng`: the production generator, the operating system's CSPRNG through
  `secrets.randbelow` (rejection sampling, so no modulo bias).
- `SeededRng(seed)`: reproducible, for tests and simulation only; `require_production(rng)`
  refuses it (and anything else not production-safe) with a DrrError.
- `weighted_choice`, `sample_distinct`, `shuffle`: the only ways the engine turns
  `randbelow` into game decisions; integer weights, no floats anywhere.
- `draw_lucky_and_bonus(rules, rng) -> Draw`: the draw made when wagers close (§ 617b.12(e)).
  A `Draw` is frozen and has `to_record()`/`from_record()` for the journal: what was drawn,
  the Rules Submission's sha256 and the generator's name.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from engine.errors import DrrError
from engine.exact import parse_odds, parse_whole

if TYPE_CHECKING:
    from engine.rules import RulesSubmission

T = TypeVar("T")

POCKETS = 37


@runtime_checkable
class Rng(Protocol):
    """A source of uniform integers. Every random decision of the game goes through `randbelow`."""

    name: str
    production_safe: bool

    def randbelow(self, n: int) -> int:
        """A uniform integer in 0..n-1 (n >= 1)."""
        ...


class SystemRng:
    """The operating system's CSPRNG (`secrets`): the only generator allowed in production."""

    name = "os-csprng"
    production_safe = True

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1, not {n}")
        return secrets.randbelow(n)


class SeededRng:
    """A reproducible generator for tests and simulations. Never for real play."""

    production_safe = False

    def __init__(self, seed: int | str) -> None:
        self.seed = seed
        self.name = f"seeded:{seed}"
        # random.Random's randrange uses getrandbits with rejection, so it is unbiased too.
        self._random = random.Random(seed)

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1, not {n}")
        return self._random.randrange(n)


def require_production(rng: Rng) -> Rng:
    """`rng` itself if it may drive real play, else DrrError (a seeded generator in production)."""
    if not getattr(rng, "production_safe", False):
        raise DrrError(
            f"the random number generator {getattr(rng, 'name', rng)!r} is not allowed in production "
            "(§ 617b.12(c) requires the approved generator; seeded generators are for tests and simulation)"
        )
    return rng


def weighted_choice(rng: Rng, table: Mapping[T, int]) -> T:
    """One key of `table` with probability weight/total. Weights are positive integers.

    The table's iteration order is part of the draw (the same generator output picks the same
    key), so callers pass tables in a fixed order; the Rules Submission's tables are sorted.
    """
    total = 0
    for key, weight in table.items():
        if isinstance(weight, bool) or not isinstance(weight, int) or weight <= 0:
            raise ValueError(f"weight of {key!r} must be a positive integer, not {weight!r}")
        total += weight
    if total == 0:
        raise ValueError("cannot choose from an empty table")
    r = rng.randbelow(total)
    for key, weight in table.items():
        if r < weight:
            return key
        r -= weight
    raise AssertionError("unreachable: r < total")  # pragma: no cover


def sample_distinct(rng: Rng, population: Sequence[T], k: int) -> list[T]:
    """`k` distinct elements of `population`, every k-subset and order equally likely."""
    pool = list(population)
    if not 0 <= k <= len(pool):
        raise ValueError(f"cannot pick {k} distinct items out of {len(pool)}")
    # Partial Fisher-Yates: the first k slots end up a uniform ordered sample.
    for i in range(k):
        j = i + rng.randbelow(len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def shuffle(rng: Rng, items: MutableSequence[T]) -> None:
    """Shuffle `items` in place (Fisher-Yates): every permutation equally likely."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.randbelow(i + 1)
        items[i], items[j] = items[j], items[i]


def _odds_str(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True, eq=True)
class Draw:
    """The Lucky Numbers (each with its straight-up "X to 1") and the Bonus Number of one round.

    `rules_sha256` and `rng_name` say which Rules Submission and which generator made the
    draw; both are empty for a draw given from outside (e.g. `drr settle`).
    """

    lucky: Mapping[int, Fraction]
    bonus_number: int
    rules_sha256: str = ""
    rng_name: str = ""
    lucky_order: tuple[int, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        checked: dict[int, Fraction] = {}
        for number, odds in self.lucky.items():
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < POCKETS:
                raise ValueError(f"Lucky Number {number!r} is not a number 0-36")
            if not isinstance(odds, Fraction | int) or odds <= 0:
                raise ValueError(f"Lucky Number {number}: odds {odds!r} must be a positive exact number")
            checked[number] = Fraction(odds)
        bonus = self.bonus_number
        if isinstance(bonus, bool) or not isinstance(bonus, int) or not 0 <= bonus < POCKETS:
            raise ValueError(f"Bonus Number {bonus!r} is not a number 0-36")
        if bonus in checked:
            raise ValueError(
                f"Bonus Number {bonus} is also a Lucky Number (§ 617b.12(e) draws it from the others)"
            )
        order = self.lucky_order or tuple(checked)
        object.__setattr__(self, "lucky", MappingProxyType(dict(sorted(checked.items()))))
        object.__setattr__(self, "lucky_order", order)

    def __hash__(self) -> int:
        return hash((tuple(self.lucky.items()), self.bonus_number, self.rules_sha256, self.rng_name))

    def lucky_odds(self, number: int) -> Fraction | None:
        """Straight-up odds of `number` if it is a Lucky Number, else None."""
        return self.lucky.get(number)

    def to_record(self) -> dict[str, Any]:
        """JSON-able journal record: what was drawn, in draw order, and the inputs' identity."""
        return {
            "type": "draw",
            "lucky": {str(n): _odds_str(self.lucky[n]) for n in self.lucky_order},
            "bonus_number": self.bonus_number,
            "lucky_count": len(self.lucky),
            "rules_sha256": self.rules_sha256,
            "rng": self.rng_name,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Draw:
        """Inverse of `to_record` (ValueError naming the bad field)."""
        raw = record.get("lucky")
        if not isinstance(raw, Mapping):
            raise ValueError("draw record: 'lucky' must be an object of number -> odds")
        lucky: dict[int, Fraction] = {}
        for key, value in raw.items():
            try:
                number = parse_whole(key)
                odds = parse_odds(value)
            except (ValueError, ZeroDivisionError):
                raise ValueError(
                    f"draw record: Lucky entry {key!r}: {value!r} is not number -> odds"
                ) from None
            lucky[number] = odds
        bonus = record.get("bonus_number")
        if isinstance(bonus, bool) or not isinstance(bonus, int):
            raise ValueError(f"draw record: bonus_number {bonus!r} is not a whole number")
        return cls(
            lucky=lucky,
            bonus_number=bonus,
            rules_sha256=str(record.get("rules_sha256", "")),
            rng_name=str(record.get("rng", "")),
            lucky_order=tuple(lucky),
        )


def draw_lucky_and_bonus(rules: RulesSubmission, rng: Rng) -> Draw:
    """The draw of § 617b.12(e): k Lucky Numbers (k weighted by `lucky.counts`), distinct and
    uniform over 0-36, each with its own X weighted by `lucky.odds`, then the Bonus Number
    uniform over the other 37 - k numbers."""
    k = weighted_choice(rng, rules.lucky_counts)
    numbers = sample_distinct(rng, range(POCKETS), k)
    lucky = {n: weighted_choice(rng, rules.lucky_odds) for n in numbers}
    others = [n for n in range(POCKETS) if n not in lucky]
    bonus = others[rng.randbelow(len(others))]
    return Draw(lucky, bonus, rules_sha256=rules.sha256, rng_name=rng.name, lucky_order=tuple(numbers))
