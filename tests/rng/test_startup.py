"""NIST SP 800-90B § 4.3's start-up test and a failing source (issue 23 finding 4), on the generator."""

from __future__ import annotations

import pytest

from engine.rng import (
    STARTUP_SAMPLES,
    GeneratorFailure,
    HealthFailure,
    HealthTestedRng,
    SeededRng,
    StartupResult,
)
from tests.rng.test_health import Stuck


class Failing:
    name = "failing"
    production_safe = False

    def randbelow(self, n: int) -> int:
        raise OSError(5, "Input/output error")


def test_the_startup_test_passes_a_good_generator_and_leaves_a_fresh_state() -> None:
    rng = HealthTestedRng(SeededRng(3))
    result = rng.startup_test()
    assert result == StartupResult(STARTUP_SAMPLES, 37, True)
    assert rng.failure is None and rng.randbelow(37) in range(37)
    assert StartupResult.from_json(result.to_json()) == result


def test_the_startup_test_fails_a_dead_source_within_a_few_values_and_latches() -> None:
    rng = HealthTestedRng(Stuck())
    result = rng.startup_test()
    assert not result.passed and result.test == "repetition count test" and result.samples < 20
    with pytest.raises(HealthFailure):
        rng.randbelow(37)  # no draw after a failed start-up test


def test_an_oserror_from_the_source_is_a_latched_health_failure() -> None:
    rng = HealthTestedRng(Failing())
    with pytest.raises(GeneratorFailure) as failed:
        rng.randbelow(37)
    assert isinstance(failed.value, HealthFailure)
    assert "OSError" in failed.value.message and failed.value.test == "generator error"
    with pytest.raises(GeneratorFailure):
        rng.randbelow(37)
    assert not rng.startup_test().passed


def test_a_bad_range_is_the_callers_error_not_a_fault() -> None:
    rng = HealthTestedRng(SeededRng(1))
    with pytest.raises(ValueError):
        rng.randbelow(0)
    assert rng.failure is None
