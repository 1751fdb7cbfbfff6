"""Sequential bias tests of a wheel (issue 27): a CUSUM per pocket, per wheel sector, per rotor
direction and on repeats, each tuned to a stated alternative, with a false-alarm rate known exactly.

Pure: no store, no Qt. The table's watch (engine.table.bias_watch) feeds it every settled spin and
journals what trips (`table.bias_alarm`); `drr stats` (engine.store.stats) runs it over the spins
asked about. Fed one spin or a million, the same code runs (`Detector.feed`, vectorised with numpy),
so a replay and the live table agree to the spin.

The tests (each Page's CUSUM of the log-likelihood ratio of its alternative against a fair wheel):

- ``pocket``: each of the 37 pockets, against that pocket coming up 1.5x as often as fair;
- ``sector``: each window of 3, 5 and 9 neighbouring pockets on the wheel (the windows of the
  fixed-sample statistics, engine.store.stats.SECTOR_WIDTHS), against the window at 1.25x fair;
- ``direction``: each 5-pocket window in the spins of one rotor direction only (clockwise,
  counter-clockwise; spins of unknown direction do not count), against 1.25x in that direction;
- ``runs``: a number straight after itself (a repeat), against repeats at twice the fair 1 in 37.

Exact numerics: each test's increments are integers (`Test.up` on a hit, `Test.down` on a miss, the
log-likelihood ratios in units of `Test.unit` nats, their ratio kept within 0.5%), so the statistic
is an exact integer, the same on every machine however it was fed, and its false-alarm behaviour is
a finite Markov chain: `arl0` solves it exactly (the mean spins of a fair wheel before the test trips,
from a fresh start). A tripped test restarts when its alarm is acknowledged, so its false alarms are
a renewal process with rate 1/ARL0; alarms add up whatever the tests' correlation (linearity of
expectation), so `false_alarms_per_table_year` is exact for a fair wheel at `SPINS_PER_DAY`.

The thresholds (in nats, one per kind, `Thresholds`) are the settings file's
`thresholds.sequential_*` keys; the defaults were calibrated by `python -m bench.bias_figures
--calibrate` (bench/bias_figures.py): the smallest thresholds whose family of tests stays within a
budget of 0.5 false alarms per 100 table-years at 400 spins a day, split pocket 0.15, sector 0.15,
direction 0.15, runs 0.05 (the exact Markov-chain figure, checked against simulated fair wheels at
lower thresholds where alarms are frequent enough to count).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from engine.wheel_layout import WHEEL_ORDER

if TYPE_CHECKING:
    import numpy as np

POCKETS: Final = 37
SPINS_PER_DAY: Final = 400  # the planning figure: one table's spins in a day
DAYS_PER_YEAR: Final = 365
KINDS: Final = ("pocket", "sector", "direction", "runs")
SECTOR_WIDTHS: Final = (3, 5, 9)
DIRECTION_WIDTH: Final = 5
DIRECTIONS: Final = ("cw", "ccw")  # codes 1 and 2; 0: unknown
DIRECTION_WORDS: Final = {"cw": "clockwise", "ccw": "counter-clockwise"}
# The alternative each kind is tuned to: how many times fair its pockets (or repeats) come up.
RATIOS: Final = {"pocket": 1.5, "sector": 1.25, "direction": 1.25, "runs": 2.0}
RESOLUTION: Final = 0.005  # the integer increments keep the ratio of the log-likelihoods within this


@dataclass(frozen=True)
class Thresholds:
    """Each kind's threshold, in nats of evidence (the CUSUM's log-likelihood ratio)."""

    pocket: float = 16.0
    sector: float = 17.9
    direction: float = 16.5
    runs: float = 14.4

    def of(self, kind: str) -> float:
        value: float = getattr(self, kind)
        return value


DEFAULT_THRESHOLDS: Final = Thresholds()


@dataclass(frozen=True)
class Test:
    """One sequential test: which pockets, which rotor direction (None: every spin), its alternative."""

    kind: str
    pockets: tuple[int, ...]
    direction: str | None
    p0: float  # a fair wheel's chance of a hit
    ratio: float  # the alternative: hits at ratio x p0
    up: int  # the statistic's step on a hit (units)
    down: int  # and on a miss
    unit: float  # nats per unit

    @property
    def key(self) -> str:
        """The test's name in the journal: kind, direction, first pocket and width."""
        where = f"{self.direction}:" if self.direction else ""
        return f"{self.kind}:{where}{'-'.join(map(str, self.pockets))}"

    def what(self) -> str:
        if self.kind == "pocket":
            return f"pocket {self.pockets[0]}"
        if self.kind == "runs":
            return "repeats (a number straight after itself)"
        sector = f"{len(self.pockets)}-pocket sector {'-'.join(map(str, self.pockets))}"
        if self.direction:
            return f"{sector} in {DIRECTION_WORDS[self.direction]} spins"
        return sector

    def alternative(self) -> str:
        if self.kind == "runs":
            return f"repeats at {self.ratio:g}x the fair 1 in {POCKETS}"
        return f"{'a pocket' if self.kind == 'pocket' else 'a sector'} at {self.ratio:g}x fair"


def _steps(p0: float, ratio: float) -> tuple[int, int, float]:
    """Integer steps (up, down) and the unit (nats) of the CUSUM of `ratio` x p0 against p0."""
    p1 = ratio * p0
    a = math.log(p1 / p0)
    b = -math.log((1 - p1) / (1 - p0))
    for down in range(1, 257):
        up = round(a / b * down)
        if up and abs(up / down - a / b) <= RESOLUTION * a / b:
            return up, down, b / down
    raise AssertionError("no integer steps")  # pragma: no cover - every alternative here has some


def _window(start: int, width: int) -> tuple[int, ...]:
    return tuple(WHEEL_ORDER[(start + k) % POCKETS] for k in range(width))


@functools.cache
def tests() -> tuple[Test, ...]:
    """Every test, in a fixed order (the detector's columns; the runs test is the last)."""
    out: list[Test] = []

    def add(kind: str, pockets: tuple[int, ...], direction: str | None, p0: float) -> None:
        up, down, unit = _steps(p0, RATIOS[kind])
        out.append(Test(kind, pockets, direction, p0, RATIOS[kind], up, down, unit))

    for number in range(POCKETS):
        add("pocket", (number,), None, 1 / POCKETS)
    for width in SECTOR_WIDTHS:
        for start in range(POCKETS):
            add("sector", _window(start, width), None, width / POCKETS)
    for direction in DIRECTIONS:
        for start in range(POCKETS):
            add("direction", _window(start, DIRECTION_WIDTH), direction, DIRECTION_WIDTH / POCKETS)
    add("runs", (), None, 1 / POCKETS)
    return tuple(out)


def direction_code(direction: str | None) -> int:
    """0 unknown, 1 clockwise, 2 counter-clockwise (the detector's direction column)."""
    return {"cw": 1, "ccw": 2}.get(direction or "", 0)


@functools.cache
def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(hit[result, test], applies[direction code, test], up[test], down[test]); the runs column's
    hit is decided per spin (a repeat of the previous result)."""
    import numpy as np

    all_tests = tests()
    hit = np.zeros((POCKETS, len(all_tests)), dtype=bool)
    applies = np.zeros((3, len(all_tests)), dtype=bool)
    for t, test in enumerate(all_tests):
        for number in test.pockets:
            hit[number, t] = True
        if test.direction is None:
            applies[:, t] = True
        else:
            applies[direction_code(test.direction), t] = True
    up = np.array([t.up for t in all_tests], dtype=np.int32)
    down = np.array([t.down for t in all_tests], dtype=np.int32)
    return hit, applies, up, down


@functools.cache
def _kind_columns(kind: str) -> slice:
    columns = [i for i, t in enumerate(tests()) if t.kind == kind]
    return slice(columns[0], columns[-1] + 1)


def strongest(detector: Detector) -> tuple[Test, float]:
    """The test nearest its threshold now, and how near (its statistic as a share of its threshold)."""
    import numpy as np

    ratios = detector.ratios()
    column = int(np.argmax(ratios))
    return tests()[column], float(ratios[column])


@functools.cache
def limits(thresholds: Thresholds) -> np.ndarray:
    """Each test's threshold in its units (the smallest integer at or above the nats asked for)."""
    import numpy as np

    return np.array([math.ceil(thresholds.of(t.kind) / t.unit - 1e-9) for t in tests()], dtype=np.int64)


@dataclass(frozen=True)
class Alarm:
    """A test that tripped: at spin `at_spin` of what the detector was fed (1-based)."""

    test: Test
    index: int  # the test's column
    at_spin: int
    statistic: float  # nats
    threshold: float  # nats
    spins: int  # the spins of the test's evidence: since its statistic last stood at zero
    hits: int  # and its hits among them

    @property
    def expected(self) -> float:
        return self.spins * self.test.p0

    @property
    def words(self) -> str:
        t = self.test
        seen = "repeats" if t.kind == "runs" else "hits"
        return (
            f"{t.what()}: {self.hits:,} {seen} in the last {self.spins:,} spins where a fair wheel gives"
            f" {self.expected:.1f}; the evidence for {t.alternative()} ({self.statistic:.1f}) passed its"
            f" threshold ({self.threshold:.1f}) at spin {self.at_spin:,}"
        )

    def to_json(self) -> dict[str, object]:
        """The public contract's shape (`drr stats --json`'s sequential alarms)."""
        return {
            "test": self.test.kind,
            "pockets": list(self.test.pockets),
            "at_spin": self.at_spin,
            "statistic": round(self.statistic, 4),
            "threshold": round(self.threshold, 4),
            "words": self.words,
        }


CHUNK: Final = 4096


@dataclass
class Detector:
    """Every test's statistic, fed spins in order (`feed`); a test that trips stays tripped until it
    is restarted (`restart`: its alarm acknowledged), or restarts by itself when `feed(...,
    restart=True)` (what `drr stats` reports: each alarm as if acknowledged at once)."""

    thresholds: Thresholds = DEFAULT_THRESHOLDS
    spins: int = 0  # spins fed
    previous: int | None = None  # the last result (for repeats)
    state: Any = None  # an array, made in __post_init__
    since_zero: Any = None  # each test's spins since its statistic stood at zero (an array)
    hits_since_zero: Any = None  # an array, made in __post_init__
    tripped: Any = None  # an array, made in __post_init__
    # With `trace` (a list), each spin fed appends each kind's strongest statistic as a share of its
    # threshold (KINDS' order; 1.0 at a trip): the surveillance chart's lines.
    trace: list[np.ndarray] | None = None

    def __post_init__(self) -> None:
        import numpy as np

        n = len(tests())
        if self.state is None:
            self.state = np.zeros(n, dtype=np.int64)
            self.since_zero = np.zeros(n, dtype=np.int64)
            self.hits_since_zero = np.zeros(n, dtype=np.int64)
            self.tripped = np.zeros(n, dtype=bool)

    def restart(self, columns: Sequence[int] | None = None) -> None:
        """Start the tests of `columns` (None: all of them) afresh."""
        import numpy as np

        which = slice(None) if columns is None else np.asarray(list(columns), dtype=np.int64)
        self.state[which] = 0
        self.since_zero[which] = 0
        self.hits_since_zero[which] = 0
        self.tripped[which] = False

    def ratios(self) -> np.ndarray:
        """Each test's statistic as a share of its threshold (1.0: it tripped)."""
        import numpy as np

        return np.where(self.tripped, 1.0, self.state / limits(self.thresholds))

    def statistic(self, column: int) -> float:
        return float(self.state[column]) * tests()[column].unit

    def feed(
        self,
        results: Sequence[int] | np.ndarray,
        directions: Sequence[int] | np.ndarray | None = None,
        *,
        restart: bool = False,
    ) -> list[Alarm]:
        """Feed spins (results 0..36, direction codes 0/1/2) in order; the alarms they trip, in spin
        order."""
        import numpy as np

        res = np.asarray(results, dtype=np.int64)
        if res.size == 0:
            return []
        if res.min() < 0 or res.max() >= POCKETS:
            raise ValueError("a result must be 0..36")
        dirs = (
            np.zeros(res.size, dtype=np.int64)
            if directions is None
            else np.asarray(directions, dtype=np.int64)
        )
        alarms: list[Alarm] = []
        for start in range(0, res.size, CHUNK):
            alarms += self._chunk(res[start : start + CHUNK], dirs[start : start + CHUNK], restart)
        alarms.sort(key=lambda a: (a.at_spin, a.index))
        return alarms

    def _chunk(self, res: np.ndarray, dirs: np.ndarray, restart: bool) -> list[Alarm]:
        import numpy as np

        hit_table, applies_table, up, down = _tables()
        limit = limits(self.thresholds)
        n = res.size
        hit = hit_table[res]  # (n, T)
        before = np.concatenate(([-1 if self.previous is None else self.previous], res[:-1]))
        hit[:, -1] = res == before
        app = applies_table[dirs]
        if self.previous is None:
            app = app.copy()
            app[0, -1] = False  # the first spin repeats nothing
        app &= ~self.tripped  # a tripped test waits for its restart
        # int32: a chunk's walk stays within CHUNK x the largest step, far inside its range.
        inc = np.where(app, np.where(hit, up, -down), 0).astype(np.int32, copy=False)
        alarms: list[Alarm] = []
        # The row from which each test stands tripped (0: since before the chunk; n: not tripped).
        tripped_from = np.where(self.tripped, 0, n)
        while True:
            walk = np.cumsum(inc, axis=0)
            floor = np.minimum.accumulate(np.minimum(walk, -self.state[None, :].astype(np.int32)), axis=0)
            stat = walk - floor  # S_i = max(0, S_{i-1} + x_i), unrolled
            over = stat >= limit
            columns = np.flatnonzero(over.any(axis=0))
            if columns.size == 0:
                break
            for t in columns:
                row = int(np.argmax(over[:, t]))
                alarms.append(self._alarm(int(t), row, stat[:, t], hit[:, t] & app[:, t], app[:, t]))
                # The test stops here: restarted at once, or tripped until acknowledged.
                self.state[t] = 0
                self.since_zero[t] = 0
                self.hits_since_zero[t] = 0
                inc[: row + 1, t] = 0
                if not restart:
                    inc[row + 1 :, t] = 0
                    app[row + 1 :, t] = False
                    self.tripped[t] = True
                    tripped_from[t] = row
                else:
                    app[: row + 1, t] = False
        if self.trace is not None:
            share = stat / limit
            share[np.arange(n)[:, None] >= tripped_from[None, :]] = 1.0
            self.trace.append(np.stack([share[:, _kind_columns(k)].max(axis=1) for k in KINDS], axis=1))
        # The state after the chunk, and the evidence since each statistic last stood at zero.
        self.state = stat[-1].astype(np.int64)
        rows = np.arange(n)[:, None]
        zero = np.where(stat == 0, rows, -1).max(axis=0)
        counted = app & (rows > zero[None, :])
        keep = zero < 0
        self.since_zero = np.where(keep, self.since_zero, 0) + counted.sum(axis=0)
        self.hits_since_zero = np.where(keep, self.hits_since_zero, 0) + (counted & hit).sum(axis=0)
        self.spins += n
        self.previous = int(res[-1])
        return alarms

    def _alarm(self, t: int, row: int, stat: np.ndarray, hits: np.ndarray, app: np.ndarray) -> Alarm:
        import numpy as np

        test = tests()[t]
        zeros = np.flatnonzero(stat[:row] == 0)
        if zeros.size:
            since = int(zeros[-1]) + 1
            spins, count = int(app[since : row + 1].sum()), int(hits[since : row + 1].sum())
        else:  # the evidence began before this chunk
            spins = int(self.since_zero[t] + app[: row + 1].sum())
            count = int(self.hits_since_zero[t] + hits[: row + 1].sum())
        return Alarm(
            test,
            t,
            self.spins + row + 1,
            float(stat[row]) * test.unit,
            float(limits(self.thresholds)[t]) * test.unit,
            spins,
            count,
        )


# --- the false-alarm rate, exactly ------------------------------------------------------------


@functools.cache
def arl0(up: int, down: int, limit: int, p: float) -> float:
    """Mean spins of a fair wheel before a CUSUM with integer steps (+up w.p. p, -down otherwise,
    floored at 0) first reaches `limit`, from 0: the Markov chain's linear system, solved banded."""
    import numpy as np
    from scipy.linalg import solve_banded

    if limit <= 0:
        return 1.0
    q = 1 - p
    # M = I - P over the transient states 0..limit-1; ab[up + i - j, j] = M[i, j].
    ab = np.zeros((up + down + 1, limit))
    ab[up, :] = 1.0
    for i in range(limit):
        if i + up < limit:
            ab[up + i - (i + up), i + up] -= p  # row i, column i + up: the upper band's top row
        j = max(0, i - down)
        ab[up + i - j, j] -= q
    solution = solve_banded((down, up), ab, np.ones(limit))
    return float(solution[0])


def kind_rate(kind: str, threshold: float) -> float:
    """False alarms per table-year of every test of `kind` at `threshold` nats (fair wheel,
    SPINS_PER_DAY; a direction test sees the spins of its direction, the pair of them every spin)."""
    per_year = SPINS_PER_DAY * DAYS_PER_YEAR
    total = 0.0
    for t in tests():
        if t.kind != kind:
            continue
        limit = math.ceil(threshold / t.unit - 1e-9)
        share = 0.5 if t.direction else 1.0  # the two directions' tests of a window share the spins
        total += share * per_year / arl0(t.up, t.down, limit, t.p0)
    return total


def false_alarms_per_table_year(thresholds: Thresholds = DEFAULT_THRESHOLDS) -> float:
    """Every sequential test's false alarms per table-year on a fair wheel (exact, see the docstring)."""
    return sum(kind_rate(kind, thresholds.of(kind)) for kind in KINDS)


def alarms_json(
    results: Sequence[int], directions: Sequence[int] | None, thresholds: Thresholds = DEFAULT_THRESHOLDS
) -> dict[str, Any]:
    """`drr stats --json`'s "sequential": the alarms over these spins (each test started at the first
    of them, restarted after each alarm as if acknowledged at once), in spin order."""
    alarms = Detector(thresholds).feed(results, directions, restart=True)
    return {
        "alarms": [a.to_json() for a in alarms],
        "false_alarms_per_table_year": false_alarms_per_table_year(thresholds),
    }
