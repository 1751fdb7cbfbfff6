"""The surveillance station against a real store: every chart's data is `drr stats` for the same
store and window, live updates arrive within a second, alerts are acknowledged only after a log-in."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.floor import windows as win
from engine.floor.demo import START, play_rounds
from engine.store import Store, open_store
from engine.wheel_layout import BLACK, RED, WHEEL_ORDER
from gui.cli import main
from gui.windows.surveillance import SPLIT_SIZES, SurveillanceWindow
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures
from tests.floor.played import DemoFloor, PlayedFloors, copy_surveillance_floor, demo_floor  # noqa: F401 - a fixture


def drr_stats(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> dict:  # type: ignore[type-arg]
    """`drr stats --json` on the store, in this process (the command, without an interpreter start)."""
    capsys.readouterr()
    assert main(["stats", "--db", url, "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.fixture
def floor(store_url: str, played_floors: PlayedFloors) -> Iterator[Store]:  # noqa: F811
    # Six bonus games (rounds 12, 24, …, 72) and two manual results (26, 76) on T1, 3,000 imported
    # results on T3 (every fifth a 17); sized for speed: a demo round is played through the table
    # service, so the floor (its import included) is played once per test process and copied into each
    # test's store (tests/floor/played.py; issue 29: a fast suite).
    copy_surveillance_floor(played_floors, store_url)
    with open_store(store_url, durable=False) as played:
        yield played


def test_every_chart_shows_drr_stats(
    qtbot: QtBot,
    floor: Store,
    store_url: str,  # noqa: F811 - the fixture
    capsys: pytest.CaptureFixture[str],
) -> None:
    window = SurveillanceWindow(floor, live=False)
    qtbot.addWidget(window)
    window.select_table("T1")
    for spec, args in ((win.last_spins(50), ["--last", "50"]), (win.everything(), [])):
        window.set_window(spec)
        expected = drr_stats(capsys, store_url, "--table", "T1", *args)
        page = window.page
        counts = expected["counts"]
        n = expected["spins"]
        assert page.frequency.heights == counts
        assert page.frequency.expected.value() == pytest.approx(n / 37)
        lo, hi = page.frequency.band.getRegion()
        assert lo <= n / 37 <= hi
        assert page.zscores.z == pytest.approx(expected["z_scores"]["z"])
        assert [z for _, z in page.ring.ring] == pytest.approx(
            [expected["z_scores"]["z"][k] for k in WHEEL_ORDER]
        )
        assert page.ring.sector == expected["sectors"]["5"]["numbers"]
        rbz = expected["red_black_zero"]
        oe = expected["odd_even"]
        lh = expected["low_high"]
        split = [rbz["red"], rbz["black"], rbz["zero"], oe["odd"], oe["even"], lh["low"], lh["high"],
                 *expected["dozens"], *expected["columns"]]  # fmt: skip
        assert page.splits.values == pytest.approx([100 * v / n for v in split])
        assert page.splits.expected_values == pytest.approx([100 * k / 37 for k in SPLIT_SIZES])
        assert page.rates.values == pytest.approx(
            [100 * expected["lucky"]["rate"], 100 * expected["bonus"]["rate"]]
        )
        assert page.rates.expected_values == pytest.approx(
            [100 * expected["lucky"]["expected_rate"], 100 * expected["bonus"]["expected_rate"]]
        )
        assert page.directions.values == [d["spins"] for _, d in sorted(expected["by_direction"].items())]
        if n >= 185:  # a chi-square on fewer spins says so instead (tests/floor/test_plain_words.py)
            assert f"{expected['chi_square']['statistic']:.2f}" in page.figures.text()
        assert expected["chi_square"]["words"] in page.figures.text()
        assert f"{n:,}" in page.verdict.text()
        hold = expected["hold"]
        assert page.hold.theory.value() == pytest.approx(100 * hold["theoretical"])
        assert page.hold.ys[-1] == pytest.approx(100 * hold["actual"])
    for index, direction in ((1, "cw"), (2, "ccw")):
        window.rotor.setCurrentIndex(index)
        assert page.frequency.heights == expected["by_direction"][direction]["counts"]
    window.rotor.setCurrentIndex(0)
    assert page.frequency.heights == expected["counts"]
    assert page.rotor.points > 0 and not page.rotor.empty.isVisible()
    assert sum(page.bonus.values) >= 5


def test_wheel_order_toggle_and_a_table_without_rotor_data(
    qtbot: QtBot,
    floor: Store,
    store_url: str,  # noqa: F811 - the fixture
    capsys: pytest.CaptureFixture[str],
) -> None:
    window = SurveillanceWindow(floor, live=False)
    qtbot.addWidget(window)
    window.select_table("T3")
    window.set_window(win.everything())
    expected = drr_stats(capsys, store_url, "--table", "T3")
    window.order.setChecked(True)
    assert window.page.frequency.numbers == list(WHEEL_ORDER)
    assert window.page.frequency.heights == [expected["counts"][k] for k in WHEEL_ORDER]
    assert 17 in expected["z_scores"]["flagged"]  # every fifth spin is a 17: the planted bias shows
    assert "possible bias" in window.page.verdict.text()
    assert window.page.rotor.empty.isVisible()  # imported results carry no rotor readings
    window.order.setChecked(False)
    assert window.page.frequency.numbers == list(range(37))
    assert sorted(RED | BLACK | {0}) == window.page.frequency.numbers


def test_charts_follow_the_journal_within_a_second(qtbot: QtBot, floor: Store) -> None:
    window = SurveillanceWindow(floor)
    qtbot.addWidget(window)
    window.select_table("T2")
    window.set_window(win.everything())
    bars = window.page.frequency.bars
    before = window.page.frequency.heights[:]
    play_rounds(floor, "T2", 3, seed="live", start=START + timedelta(days=1))  # a table plays on
    qtbot.waitUntil(lambda: sum(window.page.frequency.heights) == sum(before) + 3, timeout=1000)
    assert window.page.frequency.bars is bars  # updated in place, never re-created
    window.close()


def test_alerts_need_a_login_to_acknowledge(qtbot: QtBot, floor: Store) -> None:
    window = SurveillanceWindow(floor, live=False)
    qtbot.addWidget(window)
    window.scan_alerts([window.current_view])
    assert window.alerts.alerts, "manual results in the demo floor raise alerts"
    assert not window.alerts.ack.isEnabled()
    window.user = User("sam", "surveillance")
    window._show_user()
    assert window.alerts.ack.isEnabled()
    window.alerts.table.selectRow(0)
    # The acknowledgement is signed with a note and the PIN (tests/gui/test_surveillance_ack.py).
    window._sign_off_alert = lambda _alerts: (User("sam", "surveillance"), "seen")  # type: ignore[method-assign]
    window.alerts.sign_off = window._sign_off_alert
    window.alerts.acknowledge_selected()
    assert window.alerts.alerts[0].acknowledged_by == "sam"
    window.alerts.open_only.setChecked(True)
    assert window.alerts.alerts and not any(a.acknowledged for a in window.alerts.alerts)
    assert window.alerts.table.rowCount() == len(window.alerts.alerts)


def test_a_headless_table_writing_while_the_station_watches(qtbot: QtBot, tmp_path: Path) -> None:
    """The real table service (`drr table run --headless` on the virtual wheel) in another process;
    whenever the store holds more spins than the station shows, it catches up within a second."""
    from engine.store import open_store
    from engine.store.stats import table_stats

    url = f"sqlite:///{tmp_path / 'live.sqlite'}"
    with open_store(url) as db:
        window = SurveillanceWindow(db)
        qtbot.addWidget(window)
        table = subprocess.Popen(
            [sys.executable, "-m", "gui.cli", "table", "run", "--headless", "--db", url, "--table", "T5",
             "--wheel", "sim", "--speed", "80", "--rounds", "5", "--seed", "4"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )  # fmt: skip

        def shown() -> int:
            view = getattr(window, "current_view", None)
            return view.stats["spins"] if view is not None and view.table == "T5" else -1

        def caught_up(truth: int) -> bool:
            return shown() >= truth

        try:
            qtbot.waitUntil(lambda: shown() >= 1, timeout=30_000)
            checks = 0
            while table.poll() is None:
                truth = table_stats(db, "T5", last=1000)["spins"]
                qtbot.waitUntil(functools.partial(caught_up, truth), timeout=1000)
                checks += 1
                qtbot.wait(150)
        finally:
            if table.poll() is None:
                table.kill()
            _, err = table.communicate(timeout=30)
        assert table.returncode == 0, err.decode()
        final = table_stats(db, "T5", last=1000)["spins"]
        assert final >= 5
        qtbot.waitUntil(lambda: shown() == final, timeout=1000)
        assert checks >= 3
        window.close()


def test_the_store_watch_wakes_on_notify_or_poll(qtbot: QtBot, store: Store) -> None:  # noqa: F811
    """PostgreSQL: a NOTIFY on the forwarder's channel wakes the station at once (the poll is set to a
    minute here, so only the notification can be seen). SQLite: the data_version poll sees it."""

    from engine.store.db import notify_head
    from gui.floor.watch import StoreWatch

    watch = StoreWatch(store, interval_ms=250 if store.is_sqlite else 60_000)
    watch.start()
    try:
        if watch.listener is not None:
            assert watch.listener.ready.wait(5)
        entry = store.journal.append("T8", "table.note", {"text": "hello"}, round_id=None, user="sam")
        with qtbot.waitSignal(watch.changed, timeout=1000) as seen:
            if not store.is_sqlite:
                with store.begin() as conn:
                    notify_head(conn, "T8", entry.seq)
        assert "T8" in seen.args[0]
    finally:
        watch.stop()


def test_a_mistyped_sqlite_path_is_refused_and_creates_nothing(qtbot: QtBot, tmp_path: Path) -> None:
    from engine.errors import DrrError
    from gui.floor.station import run_floor_station

    missing = tmp_path / "floor-typo.sqlite"
    with pytest.raises(DrrError, match="no store at"):
        run_floor_station("surveillance", str(missing))
    assert not missing.exists()


def test_notifications_are_gathered_into_one_set_of_tables(qtbot: QtBot, store: Store) -> None:  # noqa: F811
    """However many tables commit at once, the station gets one `changed` naming each table once."""
    from gui.floor.watch import StoreWatch

    watch = StoreWatch(store, interval_ms=60_000, backstop_ms=60_000)
    seen: list[set[str]] = []
    watch.changed.connect(seen.append)
    for table, seq in (("T1", 5), ("T2", 9), ("T1", 6), ("T3", 1)):  # before the Qt thread is free
        watch.note(table, seq)
    qtbot.waitUntil(lambda: bool(seen), timeout=1000)
    qtbot.wait(100)
    assert seen == [{"T1", "T2", "T3"}]
    assert watch.pending == {}
    watch.stop()


def test_only_the_table_that_moved_is_read_again(
    qtbot: QtBot, floor: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit on one table (on PostgreSQL its NOTIFY; the backstop poll is a minute away) refreshes that
    table's wall tile and alert scan only, not every table of the floor."""
    window = SurveillanceWindow(floor, live=False)
    qtbot.addWidget(window)
    window.watch.backstop_ms = 60_000
    for i in range(window.tables.count()):
        window.tables.item(i).setCheckState(Qt.CheckState.Checked)
    window.tabs.setCurrentWidget(window.wall)
    assert set(window.wall_tiles) == {"T1", "T2", "T3"}
    read: list[str] = []
    scanned: list[list[str]] = []
    from gui.windows import surveillance

    scan, tiles = window.scanner.scan, surveillance.tile_views
    monkeypatch.setattr(surveillance, "tile_views", lambda s, t, w: (read.extend(t), tiles(s, t, w))[1])
    window.scanner.scan = lambda s, tables, now=None: (scanned.append(list(tables)), scan(s, tables, now))[1]  # type: ignore[method-assign]
    window.watch.start()
    if window.watch.listener is not None:
        assert window.watch.listener.ready.wait(5)
        qtbot.wait(200)  # the poll after connecting
    read.clear()
    scanned.clear()
    before = window.wall_tiles["T2"].spins.text()
    play_rounds(floor, "T2", 1, seed="live", start=START + timedelta(days=1))
    qtbot.waitUntil(lambda: window.wall_tiles["T2"].spins.text() != before, timeout=2000)
    qtbot.wait(100)
    assert set(read) == {"T2"}
    assert scanned and all(tables == ["T2"] for tables in scanned)
    window.close()


def test_the_window_box_offers_the_engines_spin_windows(qtbot: QtBot, demo_floor: DemoFloor) -> None:  # noqa: F811
    """Each "Last N spins" choice is one of engine.floor.windows.LAST_CHOICES, read as that window."""
    from gui.windows.surveillance import WINDOW_CHOICES

    # A table of a few rounds to read (the small demo floor other modules play too): the choices do not
    # depend on what the table holds (issue 29.2).
    window = SurveillanceWindow(demo_floor({"T1": 3}), live=False)
    qtbot.addWidget(window)
    for index, n in enumerate(win.LAST_CHOICES):
        assert WINDOW_CHOICES[index] == f"Last {n:,} spins"
        window._window_picked(index)
        assert window.window_spec.last == n
    window._window_picked(WINDOW_CHOICES.index("Shift"))
    assert window.window_spec.last is None and window.window_spec.label.startswith("shift")
