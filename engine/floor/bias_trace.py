"""The sequential bias tests of a table over time, for the surveillance station's chart and the wall's
tile (issue 27): each kind's strongest statistic as a share of its threshold, spin by spin, and the
test nearest its threshold now.

Headless, read-only, and no detector of its own: `BiasTrace.update(store)` follows the table's watch
(engine.table.bias_watch.BiasWatch.follow: the same replay from the table's last wheel service, the
same restarts at acknowledgements, the alarms it journaled read back), so the line drawn is the
statistic the table's watch trips on, spin for spin; only the watch journals. Its first update replays
the table's spins since its last wheel service (a surveillance station's reader thread, not the Qt
thread); later ones read the new spins only. The lines keep `POINTS` points, thinned as they grow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.sequential import DEFAULT_THRESHOLDS, KINDS, Thresholds, strongest
from engine.table.bias_watch import BiasWatch

if TYPE_CHECKING:
    from engine.sequential import Detector
    from engine.store.db import Store

POINTS = 400  # points a line keeps (the latest spins at full detail would be a redraw per spin)
NEAR = 0.5  # a table whose strongest test is past half its threshold is "close" on the wall


@dataclass(frozen=True)
class TraceFigure:
    """What the chart draws: per kind, (spin, share of the threshold) points; the nearest test."""

    table: str
    spins: int  # spins since the table's tests started (its last wheel service): the alarms' at_spin
    lines: dict[str, tuple[list[int], list[float]]]
    nearest: str  # the test nearest its threshold, in words
    nearest_share: float  # its statistic / its threshold (1.0: tripped)

    @property
    def close(self) -> bool:
        return self.nearest_share >= NEAR

    def words(self) -> str:
        if not self.spins:
            return "sequential bias tests: no spins yet"
        if self.nearest_share >= 1:
            return f"bias alarm standing: {self.nearest}"
        return f"bias tests: nearest {self.nearest} at {self.nearest_share:.0%} of its threshold"


@dataclass
class BiasTrace:
    table: str
    thresholds: Thresholds = DEFAULT_THRESHOLDS  # the settings file's (engine.config.bias_thresholds)
    watch: BiasWatch | None = None
    xs: list[int] = field(default_factory=list)
    ys: list[list[float]] = field(default_factory=list)
    figure: TraceFigure | None = None

    def update(self, store: Store) -> TraceFigure:
        import numpy as np

        if self.watch is None:
            self.watch = BiasWatch(self.table, self.thresholds, trace=True)
        before = self.watch.detector
        self.watch.follow(store)
        det: Detector | None = self.watch.detector
        assert det is not None and det.trace is not None
        if det is not before:  # replayed (the first update, or a wheel service): the lines start again
            self.xs, self.ys = [], []
        if det.trace:
            shares = np.concatenate(det.trace)
            det.trace.clear()
            first = det.spins - len(shares)
            step = max(1, det.spins // POINTS)
            for k in range(len(shares)):
                spin = first + k + 1
                if spin % step == 0 or k == len(shares) - 1:
                    self.xs.append(spin)
                    self.ys.append([float(v) for v in shares[k]])
            if len(self.xs) > 2 * POINTS:  # thin the older points as the trace grows
                keep = [*range(0, len(self.xs) - 1, 2), len(self.xs) - 1]
                self.xs = [self.xs[i] for i in keep]
                self.ys = [self.ys[i] for i in keep]
        test, share = strongest(det)
        self.figure = TraceFigure(
            self.table,
            det.spins,
            {kind: (list(self.xs), [y[i] for y in self.ys]) for i, kind in enumerate(KINDS)},
            test.what(),
            share,
        )
        return self.figure
