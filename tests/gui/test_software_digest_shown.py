"""The pit boss and surveillance see the software digest a table started with (its table.started entry)."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.software_id import running_digest
from gui.windows.pitboss import PitBossWindow
from gui.windows.surveillance import SurveillanceWindow
from tests.floor.helpers import import_spins, store, store_url  # noqa: F401 - fixtures
from tests.floor.played import DemoFloor, demo_floor  # noqa: F401 - a fixture


def test_pit_boss_rules_tab_shows_the_digest(qtbot: QtBot, demo_floor: DemoFloor) -> None:  # noqa: F811
    store = demo_floor({"T1": 5})  # noqa: F811
    window = PitBossWindow(store, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    window.tabs.setCurrentWidget(window.rules_tab)
    window.rules_table.setCurrentText("T1")
    window.show_rules()
    assert f"software digest {running_digest()}" in window.rules_text.toPlainText()


def test_surveillance_shows_the_digest_and_says_when_there_is_none(
    qtbot: QtBot,
    demo_floor: DemoFloor,  # noqa: F811
    tmp_path: Path,
) -> None:
    store = demo_floor({"T1": 5})  # noqa: F811
    import_spins(store, tmp_path, "T3", [n % 37 for n in range(50)])  # imported: never started
    window = SurveillanceWindow(store, live=False)
    qtbot.addWidget(window)
    window.select_table("T1")
    window.refresh()
    assert f"software digest {running_digest()}" in window.software.text()
    window.select_table("T3")
    window.refresh()
    assert "no table.started" in window.software.text()
