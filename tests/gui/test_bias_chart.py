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


def test_the_page_plots_the_strongest_tests_and_the_wall_names_a_table_near_its_threshold(
    qtbot: QtBot,
    demo_floor: DemoFloor,  # noqa: F811
    tmp_path: Path,
) -> None:
    store = demo_floor({"T1": 40}, bonus_every=0)  # noqa: F811
    import_spins(store, tmp_path, "HOT", [(n * 11) % 37 if n % 5 else 17 for n in range(2000)])
    window = SurveillanceWindow(store, live=False)
    qtbot.addWidget(window)
    window.select_table("HOT")
    window.set_window(win.everything())
    chart = window.page.bias
    assert chart.figure is not None and chart.figure.spins == 2000
    pocket_x, pocket_y = chart.figure.lines["pocket"]
    assert set(chart.figure.lines) == set(KINDS) and pocket_x[-1] == 2000
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
