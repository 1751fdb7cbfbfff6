"""The surveillance station draws each table's sequential bias tests against their thresholds, and the
wall's tile shows a table close to (or past) a threshold (issue 27)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.floor import windows as win
from engine.floor.bias_trace import BiasTrace
from engine.sequential import KINDS
from engine.store import Store
from gui.windows.surveillance import SurveillanceWindow
from tests.floor.helpers import import_spins, store, store_url  # noqa: F401 - fixtures
from tests.floor.played import DemoFloor, demo_floor  # noqa: F401 - a fixture

HOT_SPINS = 500  # the biased table HOT's spins


def test_the_page_plots_the_strongest_tests_and_the_wall_names_a_table_near_its_threshold(
    qtbot: QtBot,
    demo_floor: DemoFloor,  # noqa: F811
    tmp_path: Path,
) -> None:
    # Sized for speed (issue 29.2): the demo floor other modules play too (played once per test process,
    # tests/floor/played.py), and enough imported spins for pocket 17, every fifth spin, to trip.
    store = demo_floor({"T1": 40})  # noqa: F811
    import_spins(store, tmp_path, "HOT", [(n * 11) % 37 if n % 5 else 17 for n in range(HOT_SPINS)])
    window = SurveillanceWindow(store, live=False)
    qtbot.addWidget(window)
    window.select_table("HOT")
    window.set_window(win.everything())
    chart = window.page.bias
    assert chart.figure is not None and chart.figure.spins == HOT_SPINS
    pocket_x, pocket_y = chart.figure.lines["pocket"]
    assert set(chart.figure.lines) == set(KINDS) and pocket_x[-1] == HOT_SPINS
    assert max(pocket_y) == 1.0 and pocket_y[0] < 1.0  # pocket 17 climbs to its threshold and trips
    assert chart.lines["pocket"].yData[-1] == 100.0 and chart.threshold.value() == 100
    assert "bias alarm standing: pocket 17" in chart.words.toPlainText()

    window.select_table("T1")
    calm = window.page.bias.figure
    assert calm is not None and calm.spins == 40 and calm.nearest_share < 0.5

    for i in range(window.tables.count()):
        window.tables.item(i).setCheckState(Qt.CheckState.Checked)
    window.tabs.setCurrentWidget(window.wall)
    assert "bias alarm standing: pocket 17" in window.wall_tiles["HOT"].words.text()
    assert "nearest" in window.wall_tiles["T1"].words.text()


def test_the_trace_reads_only_the_new_spins(store: Store, tmp_path: Path) -> None:  # noqa: F811
    import_spins(store, tmp_path, "T9", list(range(37)) * 3)
    trace = BiasTrace("T9")
    first = trace.update(store)
    assert first.spins == 111 and not first.close
    import_spins(store, tmp_path, "T9", [17] * 30, start_hour=5)
    again = trace.update(store)
    assert again.spins == 141 and again.lines["runs"][0][-1] == 141
    assert again.nearest_share > first.nearest_share


def test_the_chart_draws_the_tables_watch_restarted_by_an_acknowledgement(
    store: Store,  # noqa: F811
    tmp_path: Path,
) -> None:
    """One detector: the chart follows the table's watch, so an acknowledged alarm's test starts again
    on the chart too (its own detector kept it at its threshold for ever), and its statistics are the
    watch's to the unit."""
    from datetime import UTC, datetime, timedelta

    from engine.floor.alerts import AlertScanner, acknowledge_alert
    from engine.sequential import Thresholds
    from engine.store.history import import_csv
    from engine.table.bias_watch import BiasWatch
    from tests.table.helpers import WATCHER

    two_hits = Thresholds(pocket=0.5, sector=99, direction=99, runs=99)  # 0.41 nats a hit of a pocket

    def spins(name: str, numbers: list[int]) -> None:
        # Spun now: an acknowledgement restarts a test at the first spin settled after it.
        now = datetime.now(UTC)
        rows = [f"{(now + timedelta(microseconds=i)).isoformat()},{n}" for i, n in enumerate(numbers)]
        path = tmp_path / f"{name}.csv"
        path.write_text("timestamp,number\n" + "\n".join(rows) + "\n", encoding="utf-8")
        import_csv(store, path, "T4", user="pete", bias_thresholds=two_hits)

    spins("first", [17, 17])  # pocket 17 trips at spin 2 (the import's watch journals it)
    trace = BiasTrace("T4", two_hits)
    assert trace.update(store).words() == "bias alarm standing: pocket 17"
    alert = next(a for a in AlertScanner().scan(store, ["T4"]) if a.kind == "bias")
    acknowledge_alert(store, alert.alert_id, WATCHER, "wheel checked")
    spins("second", [17])  # settled after the acknowledgement: the test starts again, one hit
    figure = trace.update(store)
    assert figure.spins == 3 and 0.5 < figure.nearest_share < 1 and "pocket 17" in figure.nearest
    assert figure.lines["pocket"][1][-1] == figure.nearest_share
    watch = BiasWatch("T4", two_hits)
    watch.rebuild(store)
    assert watch.detector is not None and trace.watch is not None and trace.watch.detector is not None
    assert (trace.watch.detector.state == watch.detector.state).all()
    assert (trace.watch.detector.tripped == watch.detector.tripped).all()
