"""Benchmarks of the floor stations at casino scale (`drr bench --only stations`).

`surveillance_refresh_ms_at_1M_rounds`: every chart of one table recomputed from the store and the
page repainted, the table holding 1,000,000 rounds, window "all spins" (the aggregates for the
counts, the newest 10,000 rounds for the order-dependent tests); the median of five after one warm-up
(the Monte-Carlo sector null is cached per sample size, as on a running station).
`surveillance_refresh_last1000_ms_at_1M_rounds`: the same for the station's default window.
`history_open_ms_at_1M_rounds`: the pit-boss station built and its history browser's first page
painted, on the same store (keyset first page of the newest rounds).

BENCHMARK FIXTURE: the million rounds are written straight into the projections by
`bench.store_figures.fill_big_table` (not through the journal, which would take hours), with a chain
head so the table is listed. The store is cached between runs in the temp directory.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROUNDS = 1_000_000
TABLE = "BIG1"
CACHE = Path(tempfile.gettempdir()) / "drr-bench-stations" / "floor-1M-v1.sqlite"


def big_store() -> Any:
    """The cached 1M-round store (built on first use, about a minute)."""
    import sqlalchemy as sa

    from bench.store_figures import fill_big_table
    from engine.store import open_store, schema

    fresh = not CACHE.exists()
    if fresh:
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        building = CACHE.with_suffix(".building")
        for leftover in CACHE.parent.glob(building.name + "*"):
            leftover.unlink()
        with open_store(str(building)) as store:
            fill_big_table(store, TABLE, ROUNDS)
            with store.begin() as conn:  # the chain head the floor lists tables by (benchmark fixture)
                conn.execute(
                    sa.insert(schema.chain_heads).values(table_id=TABLE, seq=ROUNDS * 5, hash="0" * 64)
                )
        building.rename(CACHE)
    return open_store(str(CACHE))


def _app() -> Any:
    from gui.app import offscreen_if_headless

    offscreen_if_headless()
    from PySide6.QtWidgets import QApplication

    from gui import theme

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply(app)
    return app


def bench_stations() -> dict[str, float]:
    from engine.floor import windows as win
    from gui.windows.pitboss import PitBossWindow
    from gui.windows.surveillance import SurveillanceWindow

    app = _app()
    store = big_store()
    try:
        window = SurveillanceWindow(store, live=False)
        window.resize(1600, 1300)
        window.show()
        app.processEvents()

        def refresh_ms(spec: win.SpinWindow) -> float:
            window.window_spec = spec
            window.refresh()  # warm-up: the sector null for this sample size
            times = []
            for _ in range(5):
                started = time.perf_counter()
                window.refresh()
                window.page.repaint()
                times.append((time.perf_counter() - started) * 1000)
            assert window.current_view.stats["spins"] == (spec.last or ROUNDS)
            return statistics.median(times)

        everything = refresh_ms(win.everything())
        last1000 = refresh_ms(win.last_spins(1000))
        window.close()

        opens = []
        for _ in range(3):
            started = time.perf_counter()
            boss = PitBossWindow(store)
            boss.resize(1600, 1000)
            boss.show()
            boss.view.repaint()
            app.processEvents()
            opens.append((time.perf_counter() - started) * 1000)
            assert boss.model.rowCount() > 0
            boss.close()
    finally:
        store.close()
    return {
        "surveillance_refresh_ms_at_1M_rounds": everything,
        "surveillance_refresh_last1000_ms_at_1M_rounds": last1000,
        "history_open_ms_at_1M_rounds": statistics.median(opens),
    }


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"stations": bench_stations}
