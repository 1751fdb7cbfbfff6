"""Continuous health tests (NIST SP 800-90B § 4.4) on the generator, and the table's RNG fault."""

from __future__ import annotations

import random

import pytest

from engine.errors import DrrError
from engine.rng import (
    HealthFailure,
    HealthTestedRng,
    SeededRng,
    SystemRng,
    apt_cutoff,
    draw_lucky_and_bonus,
    rct_cutoff,
)
from engine.rules import load_default_rules


class Stuck:
    """A source that went dead: always the same answer."""

    name = "stuck"
    production_safe = False

    def randbelow(self, n: int) -> int:
        return 0


class Lopsided:
    """Returns 3 half the time (for n > 3): uniform-looking runs, but far too many 3s."""

    name = "lopsided"
    production_safe = False

    def __init__(self) -> None:
        self._r = random.Random(4)

    def randbelow(self, n: int) -> int:
        if n > 3 and self._r.random() < 0.5:
            return 3
        return self._r.randrange(n)


def test_cutoffs_follow_the_formulas() -> None:
    assert rct_cutoff(2) == 41 and rct_cutoff(37) == 9  # 1 + ceil(40 / log2 n)
    assert 600 < apt_cutoff(2) < 650  # binary window 1024, mean 512
    assert 40 < apt_cutoff(37) < 60  # window 512, mean 13.8: 2^-40 is far in the tail
    assert apt_cutoff(1 << 32768) == 2


def test_production_generator_passes_a_million_values() -> None:
    rng = HealthTestedRng(SystemRng())
    for n in (2, 37, 1000):
        for _ in range(100_000):
            rng.randbelow(n)
    rules = load_default_rules()
    for _ in range(20_000):
        draw_lucky_and_bonus(rules, rng)
    assert rng.failure is None and rng.samples > 300_000
    assert rng.name == "os-csprng" and rng.production_safe


def test_stuck_source_fails_the_repetition_count_test_and_latches() -> None:
    rng = HealthTestedRng(Stuck())
    for _ in range(8):
        rng.randbelow(37)
    # The 9th equal value makes 8 repeats of log2(37) = 5.2 bits: 41 bits, over the 40-bit cutoff.
    with pytest.raises(HealthFailure, match=r"repetition count test on randbelow\(37\): 41 bits of repeats"):
        rng.randbelow(37)
    with pytest.raises(HealthFailure):
        rng.randbelow(5)  # latched: no more values of any kind
    rng.reset()
    assert rng.randbelow(5) == 0


def test_a_dead_source_is_caught_within_two_draws() -> None:
    rng = HealthTestedRng(Stuck())
    rules = load_default_rules()
    draw_lucky_and_bonus(rules, rng)  # 0 from randbelow(100), (37), (1000), (36): 27 bits of repeats
    with pytest.raises(HealthFailure, match="repetition count test"):
        draw_lucky_and_bonus(rules, rng)


def test_biased_source_fails_the_adaptive_proportion_test() -> None:
    rng = HealthTestedRng(Lopsided())
    with pytest.raises(HealthFailure, match="adaptive proportion test on randbelow\\(37\\)"):
        for _ in range(5_000):
            rng.randbelow(37)


def test_seeded_generator_still_refused_in_production() -> None:
    from engine.rng import require_production

    with pytest.raises(DrrError):
        require_production(HealthTestedRng(SeededRng(1)))
