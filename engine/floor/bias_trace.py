"""The sequential bias tests of a table over time, for the surveillance station's chart and the wall's
tile (issue 27): each kind's strongest statistic as a share of its threshold, spin by spin, and the
test nearest its threshold now.

Headless, read-only: `BiasTrace.update(store)` reads only the rounds settled since its last call and
feeds them to its own `engine.sequential.Detector` (the table's watch, engine.table.bias_watch,
journals the alarms; this one only draws). It starts at the table's last wheel service, or at most
`TRACE_SPINS` spins back, so a table with millions of rounds opens its chart at once; a test that
tripped shows at its threshold until the table restarts it, the drawn line is the detector's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.journal_types import spellings
from engine.sequential import DEFAULT_THRESHOLDS, KINDS, Detector, Thresholds, direction_code, strongest
from engine.store import schema

if TYPE_CHECKING:
    from engine.store.db import Store

TRACE_SPINS = 20_000
POINTS = 400  # points a line keeps (the latest spins at full detail would be a redraw per spin)
NEAR = 0.5  # a table whose strongest test is past half its threshold is "close" on the wall
SERVICED = spellings(EntryType.TABLE_WHEEL_SERVICED)


@dataclass(frozen=True)
class TraceFigure:
    """What the chart draws: per kind, (spin, share of the threshold) points; the nearest test."""

    table: str
    spins: int  # spins since the trace started
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
    thresholds: Thresholds = DEFAULT_THRESHOLDS
    detector: Detector | None = None
    last_seq: int = 0
    serviced_seq: int = 0
    xs: list[int] = field(default_factory=list)
    ys: list[list[float]] = field(default_factory=list)
    figure: TraceFigure | None = None

    def update(self, store: Store) -> TraceFigure:
        import numpy as np

        r, j = schema.rounds, schema.journal
        with store.read() as conn:
            serviced = conn.execute(
                sa.select(sa.func.max(j.c.seq)).where(
                    j.c.table_id == self.table, j.c.seq > self.serviced_seq, j.c.type.in_(SERVICED)
                )
            ).scalar()
            if self.detector is None or (serviced and int(serviced) > self.serviced_seq):
                self.serviced_seq = max(self.serviced_seq, int(serviced or 0))
                self.detector = Detector(self.thresholds, trace=[])
                self.xs, self.ys = [], []
                rows: list[Any] = list(
                    reversed(
                        conn.execute(
                            _settled(r, self.table, self.serviced_seq)
                            .order_by(r.c.seq.desc())
                            .limit(TRACE_SPINS)
                        ).all()
                    )
                )
            else:
                rows = list(conn.execute(_settled(r, self.table, self.last_seq).order_by(r.c.seq)).all())
        det = self.detector
        assert det is not None and det.trace is not None
        if rows:
            self.last_seq = int(rows[-1][0])
            first = det.spins
            det.feed([int(row[1]) for row in rows], [direction_code(row[2]) for row in rows])
            shares = np.concatenate(det.trace)
            det.trace.clear()
            step = max(1, (det.spins // POINTS))
            for k in range(len(rows)):
                spin = first + k + 1
                if spin % step == 0 or k == len(rows) - 1:
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


def _settled(r: Any, table: str, after: int) -> Any:
    return sa.select(r.c.seq, r.c.result, r.c.direction).where(
        r.c.table_id == table, r.c.seq > after, r.c.status == "settled", r.c.result.is_not(None)
    )
