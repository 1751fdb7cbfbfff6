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
- `HealthTestedRng(rng)`: the continuous health tests of NIST SP 800-90B § 4.4 (repetition
  count, adaptive proportion) on every output; a failure raises `HealthFailure` and latches
  (the table service wraps its generator in it, journals `rng.fault` and the table tilts,
  engine.table.gate). An exception from the generator itself (an `OSError` from the OS) is a
  `GeneratorFailure`, a HealthFailure too, so it takes the same way: journaled, tilted, no traceback.
- `HealthTestedRng.startup_test()`: the start-up test of § 4.3 (STARTUP_SAMPLES values drawn through
  the production generator and the same health tests) run before the first draw of every start and
  before a pit boss clears a tilt; its `StartupResult` is journaled.
  A `Draw` is frozen and has `to_record()`/`from_record()` for the journal: what was drawn,
  the Rules Submission's sha256 and the generator's name.
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar, runtime_checkable

from engine.codec import Record
from engine.errors import DrrError
from engine.exact import format_odds, parse_odds, parse_whole

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

    def startup_copy(self) -> SeededRng:
        """The generator a start-up test draws from: a copy seeded apart, so a seeded demo or test
        replays the same draws whatever the test took (the production generator is tested itself)."""
        return SeededRng(f"{self.seed}:startup")


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
            "lucky": {str(n): format_odds(self.lucky[n]) for n in self.lucky_order},
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


# --- continuous health tests (NIST SP 800-90B § 4.4) --------------------------------------------

# False-alarm probability per test and sample. 800-90B suggests 2^-20 to 2^-40; a table asks its
# generator for millions of values a year, so the strict end keeps a false stop practically
# impossible while a stuck or heavily biased source still fails within a few dozen values.
HEALTH_ALPHA_LOG2 = 40
APT_WINDOW = 512  # § 4.4.2: 512 for non-binary samples, 1024 for binary
APT_WINDOW_BINARY = 1024


class HealthFailure(DrrError):
    """The generator's output failed a continuous health test: no more draws until it is checked."""

    def __init__(self, test: str, n: int, count: int, cutoff: int, unit: str = "") -> None:
        self.test, self.n, self.count, self.cutoff = test, n, count, cutoff
        shown = str(n) if n.bit_length() <= 64 else f"2^{n.bit_length() - 1}"
        super().__init__(
            f"RNG health test failed: {test} on randbelow({shown}): {count}{unit} against a cutoff of "
            f"{cutoff}{unit} (NIST SP 800-90B § 4.4); the table may not draw until the generator is checked"
        )


class GeneratorFailure(HealthFailure):
    """The generator itself failed (an OSError from the OS CSPRNG, or any other exception): the
    same stop as a failed health test, with the error's own words."""

    def __init__(self, n: int, error: BaseException) -> None:
        self.error = f"{type(error).__name__}: {error}"
        DrrError.__init__(
            self,
            f"RNG failure: the generator raised {self.error} on randbelow({n}); "
            "the table may not draw until the generator is checked",
        )
        self.test, self.n, self.count, self.cutoff = "generator error", n, 0, 0


# § 4.3: the start-up test runs the continuous tests over at least 1024 consecutive samples; the
# table draws them from the range the wheel has (37 pockets), as its Lucky Numbers are drawn.
STARTUP_SAMPLES = 1024
STARTUP_RANGE = POCKETS


@dataclass(frozen=True)
class StartupResult(Record):
    """What a start-up test found: the samples drawn and, on a failure, the test and its words."""

    samples: int
    n: int
    passed: bool
    test: str = ""
    message: str = ""

    def text(self) -> str:
        if self.passed:
            return (
                f"start-up test passed: {self.samples} values of randbelow({self.n}) (NIST SP 800-90B § 4.3)"
            )
        return f"start-up test failed after {self.samples} values: {self.message}"


def _min_entropy(n: int) -> float:
    # The claim for a uniform output over n values: full entropy, log2(n) bits per sample.
    return math.log2(n)


def rct_cutoff(n: int) -> int:
    """§ 4.4.1 repetition count cutoff C = 1 + ceil(-log2(alpha) / H) for a stream of one n (what
    HealthTestedRng's bit count amounts to when every value has the same n)."""
    return 1 + math.ceil(HEALTH_ALPHA_LOG2 / _min_entropy(n))


def apt_cutoff(n: int) -> int:
    """§ 4.4.2 adaptive proportion cutoff: 1 + CRITBINOM(W, 2^-H, 1 - alpha) (at least 2)."""
    window = APT_WINDOW_BINARY if n == 2 else APT_WINDOW
    p = 1.0 / n if n.bit_length() < 1000 else 0.0
    if p == 0.0:
        return 2
    alpha = 2.0**-HEALTH_ALPHA_LOG2
    tail = 0.0  # P(X >= k) for X ~ Binomial(W - 1, p), from the top down (no cancellation)
    trials = window - 1
    for k in range(trials, -1, -1):
        log_pmf = (
            math.lgamma(trials + 1)
            - math.lgamma(k + 1)
            - math.lgamma(trials - k + 1)
            + k * math.log(p)
            + (trials - k) * math.log1p(-p)
        )
        tail += math.exp(log_pmf)
        if tail > alpha:
            # k is the least count with P(X >= k) > alpha: the first sample plus k matches fails.
            return max(2, k + 2)
    return 2  # pragma: no cover - tail reaches 1


@dataclass
class _Stream:
    """The health-test state of one alphabet (one n of randbelow)."""

    apt_cutoff: int
    window: int
    log2: float = 0.0
    apt_first: int = -1
    apt_count: int = 0
    apt_seen: int = 0


class HealthTestedRng:
    """`inner` with the continuous health tests of NIST SP 800-90B § 4.4 on its output.

    Every randbelow(n) value (n >= 2) feeds two tests. The repetition count test (§ 4.4.1) runs
    over all outputs, whatever their n: a value equal to the one before has probability 1/n, so
    a run is refused once it has cost log2(n) bits per repeat up to -log2(alpha) = 40 bits
    (for one n that is exactly 800-90B's cutoff C = 1 + ceil(40 / log2 n)); a dead source
    returning 0 fails within two draws although each draw asks for several ranges. The
    adaptive proportion test (§ 4.4.2) runs per n: the first value of a window of W values
    coming back C times in it. A failure raises HealthFailure,
    discards that value, and latches: every later call raises too, until `reset()` after the
    generator has been checked. Name and production-safety are the inner generator's, so the
    journal records the same generator.
    """

    def __init__(self, inner: Rng) -> None:
        self.inner = inner
        self.name = inner.name
        self.production_safe = getattr(inner, "production_safe", False)
        self.failure: HealthFailure | None = None
        self.samples = 0
        self._streams: dict[int, _Stream] = {}
        self._last = -1
        self._run = 0
        self._run_bits = 0.0

    def reset(self) -> None:
        self.failure = None
        self._streams.clear()
        self._last, self._run, self._run_bits = -1, 0, 0.0

    def startup_test(self, samples: int = STARTUP_SAMPLES, n: int = STARTUP_RANGE) -> StartupResult:
        """§ 4.3's start-up test: `samples` values of randbelow(n) through the generator and the
        continuous tests, from a fresh test state; the values are discarded. A failure latches
        like any other (the table may not draw), a pass leaves a fresh test state for play."""
        self.reset()
        copy = getattr(self.inner, "startup_copy", None)  # a seeded generator only (SeededRng)
        tester = HealthTestedRng(copy()) if callable(copy) else self
        drawn = 0
        try:
            while drawn < samples:
                drawn += 1
                tester.randbelow(n)
        except HealthFailure as failure:
            self.failure = failure  # latched here whichever generator was drawn
            return StartupResult(drawn, n, False, failure.test, failure.message)
        self.reset()
        return StartupResult(samples, n, True)

    def randbelow(self, n: int) -> int:
        if self.failure is not None:
            raise self.failure
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1, not {n}")  # the caller's n, not the source's fault
        try:
            value = self.inner.randbelow(n)
        except Exception as exc:  # an OSError from the OS, or any failure of the source
            self._fail(GeneratorFailure(n, exc))
        if n >= 2:
            self._check(n, value)
        return value

    def _check(self, n: int, value: int) -> None:
        s = self._streams.get(n)
        if s is None:
            s = _Stream(apt_cutoff(n), APT_WINDOW_BINARY if n == 2 else APT_WINDOW, log2=_min_entropy(n))
            self._streams[n] = s
        self.samples += 1
        # § 4.4.1 repetition count test, over every output
        if value == self._last:
            self._run += 1
            self._run_bits += s.log2
            if self._run_bits >= HEALTH_ALPHA_LOG2:
                bits = math.floor(self._run_bits)
                self._fail(
                    HealthFailure("repetition count test", n, bits, HEALTH_ALPHA_LOG2, " bits of repeats")
                )
        else:
            self._last, self._run, self._run_bits = value, 1, 0.0
        # § 4.4.2 adaptive proportion test, per n
        if s.apt_seen == 0:
            s.apt_first, s.apt_count, s.apt_seen = value, 1, 1
            return
        if value == s.apt_first:
            s.apt_count += 1
            if s.apt_count >= s.apt_cutoff:
                self._fail(HealthFailure("adaptive proportion test", n, s.apt_count, s.apt_cutoff))
        s.apt_seen += 1
        if s.apt_seen >= s.window:
            s.apt_seen = 0

    def _fail(self, failure: HealthFailure) -> NoReturn:
        self.failure = failure
        raise failure
