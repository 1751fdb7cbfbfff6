"""The sequential bias tests (engine.sequential, issue 27): exact integer CUSUMs, one code path for one
spin or many, the false-alarm rate its Markov chain gives, and the public JSON shape."""

from __future__ import annotations

import numpy as np
import pytest

from engine import sequential as sq
from engine.config import Settings, bias_thresholds

LOW = sq.Thresholds(pocket=3.0, sector=3.0, direction=3.0, runs=2.5)


def _naive(test: sq.Test, limit: int, results: list[int], dirs: list[int], restart: bool) -> list[int]:
    """The CUSUM of one test written the plain way: S = max(0, S + step), spin by spin."""
    s, out, tripped, previous = 0, [], False, None
    for i, (r, d) in enumerate(zip(results, dirs, strict=True), 1):
        applies = test.direction is None or sq.direction_code(test.direction) == d
        if test.kind == "runs":
            applies, hit = previous is not None, r == previous
        else:
            hit = r in test.pockets
        previous = r
        if not applies or tripped:
            continue
        s = max(0, s + (test.up if hit else -test.down))
        if s >= limit:
            out.append(i)
            s = 0
            tripped = not restart
    return out


@pytest.mark.parametrize("restart", [True, False])
def test_the_vectorised_detector_is_the_plain_cusum_of_every_test(restart: bool) -> None:
    rng = np.random.default_rng(1)
    results = rng.integers(0, 37, size=9000).tolist()
    results[4000:4010] = [17] * 10  # a repeat run and a hot pocket
    dirs = rng.integers(0, 3, size=9000).tolist()
    alarms = sq.Detector(LOW).feed(results, dirs, restart=restart)
    limits = sq.limits(LOW)
    by_test: dict[int, list[int]] = {}
    for a in alarms:
        by_test.setdefault(a.index, []).append(a.at_spin)
    assert alarms and [a.at_spin for a in alarms] == sorted(a.at_spin for a in alarms)
    for t, test in enumerate(sq.tests()):
        assert by_test.get(t, []) == _naive(test, int(limits[t]), results, dirs, restart), test.key


def test_one_spin_at_a_time_gives_what_a_batch_gives() -> None:
    rng = np.random.default_rng(2)
    results, dirs = rng.integers(0, 37, size=2500), rng.integers(0, 3, size=2500)
    batch, single = sq.Detector(LOW), sq.Detector(LOW)
    together = batch.feed(results, dirs)
    alone = [a for i in range(2500) for a in single.feed(results[i : i + 1], dirs[i : i + 1])]
    assert together and [(a.at_spin, a.index, a.spins, a.hits) for a in together] == [
        (a.at_spin, a.index, a.spins, a.hits) for a in alone
    ]
    assert (batch.state == single.state).all() and (batch.tripped == single.tripped).all()
    assert (batch.since_zero == single.since_zero).all()
    assert (batch.hits_since_zero == single.hits_since_zero).all()


def test_the_evidence_counts_the_spins_since_the_statistic_last_stood_at_zero() -> None:
    pocket = sq.tests()[17]
    alarm = sq.Detector(LOW).feed([17] * 20)[0]  # 17 again and again: the pocket trips first
    assert alarm.test == pocket or alarm.test.kind == "runs"
    first = next(a for a in sq.Detector(LOW).feed([17] * 20) if a.test == pocket)
    need = -(-int(sq.limits(LOW)[17]) // pocket.up)
    assert (first.at_spin, first.spins, first.hits) == (need, need, need)
    assert "pocket 17: " in first.words and f"at spin {need}" in first.words


@pytest.mark.slow  # started first (tests/conftest.py)
def test_the_chain_gives_the_mean_run_length_simulation_finds() -> None:
    test = sq.tests()[0]
    limit = 120
    exact = sq.arl0(test.up, test.down, limit, test.p0)
    rng = np.random.default_rng(3)
    det = sq.Detector(sq.Thresholds(pocket=limit * test.unit - 1e-9, sector=99, direction=99, runs=99))
    spins = 200_000
    seen = [a for a in det.feed(rng.integers(0, 37, size=spins), restart=True) if a.index == 0]
    assert len(seen) > 50
    assert spins / len(seen) == pytest.approx(exact, rel=0.25)


def test_the_defaults_keep_within_the_budget_and_are_the_settings_defaults() -> None:
    rate = sq.false_alarms_per_table_year()
    assert 0 < rate <= 0.005  # at most 0.5 false alarms per 100 table-years
    assert bias_thresholds(Settings()) == sq.DEFAULT_THRESHOLDS == bias_thresholds(None)
    # A lower threshold alarms more often: the rate falls with the threshold.
    assert sq.false_alarms_per_table_year(sq.Thresholds(10, 10, 10, 10)) > rate


def test_the_steps_are_the_log_likelihood_ratios_within_half_a_percent() -> None:
    import math

    for test in sq.tests():
        p1 = test.ratio * test.p0
        a, b = math.log(p1 / test.p0), -math.log((1 - p1) / (1 - test.p0))
        assert abs(test.up / test.down - a / b) <= 0.005 * a / b
        assert test.down * test.unit == pytest.approx(b)
    assert sq.limits(sq.DEFAULT_THRESHOLDS).min() > 0


def test_the_public_json_has_exactly_its_keys() -> None:
    out = sq.alarms_json([17] * 40 + list(range(37)), None, LOW)
    assert set(out) == {"alarms", "false_alarms_per_table_year"}
    assert isinstance(out["false_alarms_per_table_year"], float)
    alarms = out["alarms"]
    assert isinstance(alarms, list) and alarms
    for a in alarms:
        assert set(a) == {"test", "pockets", "at_spin", "statistic", "threshold", "words"}
        assert a["test"] in ("pocket", "sector", "direction", "runs")
        assert a["statistic"] >= a["threshold"] > 0
    assert [a["at_spin"] for a in alarms] == sorted(a["at_spin"] for a in alarms)
    assert {"pocket", "runs"} <= {a["test"] for a in alarms}


def test_a_bad_result_is_refused() -> None:
    with pytest.raises(ValueError, match=r"0\.\.36"):
        sq.Detector().feed([37])
