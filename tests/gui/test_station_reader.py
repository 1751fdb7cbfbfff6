"""The surveillance station's live path (issue 15): what moved is read on the reader thread, one read
in flight, the next covering everything that moved meanwhile; the alerts list redraws only the alerts
that changed."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.floor.demo import START, play_rounds
from engine.store import Store
from gui.floor.reader import LiveReader, Moved
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures
from tests.floor.played import DemoFloor, demo_floor  # noqa: F401 - a fixture
from tests.payloads import RULES_SHA

NOW = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)


def test_a_backlog_is_one_read_not_a_queue(qtbot: QtBot) -> None:
    """While a read is in flight, five more wakes become one next read naming every table once;
    the reads run off the Qt thread and their results are drawn on it."""
    release = threading.Event()
    planned: list[set[str]] = []
    read_on: list[threading.Thread] = []
    shown: list[tuple[object, threading.Thread]] = []

    def plan(moved: Moved) -> set[str]:
        planned.append(set(moved.tables))
        return set(moved.tables)

    def read(job: set[str]) -> set[str]:
        read_on.append(threading.current_thread())
        release.wait(5)
        return job

    def show(result: object) -> None:
        shown.append((result, threading.current_thread()))

    reader = LiveReader("test", plan, read, show)
    try:
        reader.request({"T1"})
        qtbot.waitUntil(lambda: bool(read_on), timeout=2000)
        for tables in ({"T2"}, {"T3", "T1"}, {"T2"}, {"T4"}, {"T5"}):
            reader.request(tables)
        assert planned == [{"T1"}] and reader.in_flight  # nothing queued behind the read in flight
        release.set()
        qtbot.waitUntil(lambda: len(shown) == 2, timeout=2000)
        qtbot.wait(100)
        assert planned == [{"T1"}, {"T1", "T2", "T3", "T4", "T5"}]
        assert [r for r, _ in shown] == planned and reader.reads == 2
        assert all(t is not threading.main_thread() for t in read_on)
        assert all(t is threading.main_thread() for _, t in shown)
    finally:
        reader.stop()


def test_the_wall_follows_commits_through_the_reader(qtbot: QtBot, demo_floor: DemoFloor) -> None:  # noqa: F811
    """The tiles of the tables that moved are read on the reader thread and drawn on the Qt thread."""
    from gui.windows import surveillance
    from gui.windows.surveillance import SurveillanceWindow

    # Two tables of a few rounds: what is read where does not depend on how much they hold (a demo round
    # is played through the table service; issue 29.2: a fast suite).
    store = demo_floor({"T1": 3, "T2": 3}, bonus_every=0)  # noqa: F811
    window = SurveillanceWindow(store, live=False)
    qtbot.addWidget(window)
    for i in range(window.tables.count()):
        window.tables.item(i).setCheckState(Qt.CheckState.Checked)
    window.tabs.setCurrentWidget(window.wall)
    read_on: list[threading.Thread] = []
    tiles = surveillance.tile_views

    def tile_views(s: Store, t: list[str], w: object) -> object:
        read_on.append(threading.current_thread())
        return tiles(s, t, w)  # type: ignore[arg-type]

    surveillance.tile_views = tile_views  # type: ignore[assignment]
    try:
        before = window.wall_tiles["T1"].spins.text()
        play_rounds(store, "T1", 2, seed="live", start=START + timedelta(days=1))
        window.on_store_changed({"T1"})
        qtbot.waitUntil(lambda: window.wall_tiles["T1"].spins.text() != before, timeout=5000)
        assert read_on and all(t is not threading.main_thread() for t in read_on)
    finally:
        surveillance.tile_views = tiles
        window.close()


def test_a_new_alert_adds_its_line_and_leaves_the_others(qtbot: QtBot, store: Store) -> None:  # noqa: F811
    from engine.floor.alerts import AlertScanner
    from gui.floor.alerts_panel import AlertsPanel

    j = store.journal
    for i, rid in enumerate(("r1", "r2", "r3")):
        when = f"2026-11-29T10:0{i}:00.000000Z"
        j.append(
            "T1",
            "round.opened",
            {"round_id": rid, "rules_sha256": RULES_SHA},
            round_id=rid,
            user="dana",
            time=when,
        )
        j.append("T1", "round.no_spin", {"reason": "ball jumped"}, round_id=rid, user="dana", time=when)
    scanner = AlertScanner(silent_after=timedelta(days=1))
    scanner.scan(store, ["T1"], now=NOW)
    panel = AlertsPanel(store, lambda: None)
    qtbot.addWidget(panel)
    panel.refresh()
    assert panel.table.rowCount() == 3
    lines = [panel.table.item(row, 3) for row in range(3)]
    when = "2026-11-29T10:05Z"
    j.append(
        "T1",
        "round.opened",
        {"round_id": "r4", "rules_sha256": RULES_SHA},
        round_id="r4",
        user="dana",
        time=when,
    )
    j.append("T1", "round.no_spin", {"reason": "no ball"}, round_id="r4", user="dana", time=when)
    scanner.scan(store, ["T1"], now=NOW)
    panel.refresh()
    assert panel.table.rowCount() == 4 and "no ball" in panel.table.item(0, 3).text()
    moved_down = [panel.table.item(row, 3) for row in (1, 2, 3)]
    assert all(a is b for a, b in zip(moved_down, lines, strict=True))  # the same lines, not rewritten
    assert [a.alert_id for a in panel.alerts] == ["T1:r4:held", "T1:r3:held", "T1:r2:held", "T1:r1:held"]
