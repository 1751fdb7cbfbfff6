"""`drr screenshots` pictures of the floor stations: four PNGs, each a real, non-blank frame."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from engine.store import Store
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures
from tests.floor.played import DemoFloor, demo_floor  # noqa: F401 - a fixture


def test_floor_screenshots(tmp_path: Path, qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    from gui.floor import screens

    # A smaller demo floor than the documentation's: the same views, a fraction of the rounds (about as
    # few as they allow: T1's 40th round is the recalled bonus game, T2's 50th from last is corrected
    # and T3's 20th from last voided; issue 29.2: a fast suite).
    monkeypatch.setattr(screens, "DEMO_TABLES", {"T1": 40, "T2": 60, "T3": 30})
    paths = screens.floor_shots(qapp, tmp_path)
    assert [p.name for p in paths] == [
        "surveillance-table.png",
        "surveillance-wall.png",
        "pitboss-recall-bonus.png",
        "pitboss-report.png",
    ]
    for path in paths:
        image = QImage(str(path))
        assert image.width() >= 1600 and image.height() >= 1000
        colours = {
            image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)
        }
        assert len(colours) > 20


def test_a_wrong_role_at_the_surveillance_sign_in_is_told_and_may_sign_in_again(qapp: QApplication) -> None:
    """Issue 12: signing in with a croupier's account quit the whole program (the message only in
    the terminal)."""
    from engine.store import open_store
    from gui.floor.signoff import login_dialog
    from gui.floor.station import STATION_NEEDS
    from gui.windows.login import STATION_PERMISSION
    from tests.floor.helpers import PINS, add_users

    assert all(STATION_PERMISSION[s] == p for s, p in STATION_NEEDS.items())
    with TemporaryDirectory() as folder, open_store(f"sqlite:///{folder}/floor.sqlite") as db:
        add_users(db)
        dialog = login_dialog(db, "surveillance")
        dialog.name.setText("cody")  # type: ignore[attr-defined]
        dialog.pin.setText(PINS["cody"])  # type: ignore[attr-defined]
        dialog.try_login()  # type: ignore[attr-defined]
        assert dialog.result() != dialog.DialogCode.Accepted and dialog.user is None  # type: ignore[attr-defined]
        told = dialog.error.text()  # type: ignore[attr-defined]
        assert "a croupier may not use the surveillance station" in told and "surveillance or" in told
        dialog.name.setText("sam")  # type: ignore[attr-defined]
        dialog.pin.setText(PINS["sam"])  # type: ignore[attr-defined]
        dialog.try_login()  # type: ignore[attr-defined]
        assert dialog.result() == dialog.DialogCode.Accepted and dialog.user.name == "sam"  # type: ignore[attr-defined]


def test_held_rounds_are_one_alert_each_with_a_detail_pane_and_bulk_acknowledge(
    qapp: QApplication,
    store: Store,  # noqa: F811
) -> None:
    """Issue 12: two held rounds raised 47 alerts in 45 minutes, cut off, no detail pane, no bulk
    acknowledge."""
    from engine.auth import User
    from engine.floor.alerts import AlertScanner
    from gui.windows.surveillance import SurveillanceWindow
    from tests.floor.test_alerts_one_per_fact import NOW, _held_round

    _held_round(store, "r1", 24, 0)
    _held_round(store, "r2", 23, 20)
    window = SurveillanceWindow(store, live=False, scanner=AlertScanner(silent_after=timedelta(days=1)))
    window.scanner.scan(store, ["T5"], now=NOW)
    panel = window.alerts
    panel.refresh()
    assert [a.alert_id for a in panel.alerts] == ["T5:r2:held", "T5:r1:held"]
    assert panel.table.item(1, 4).text() == "48"  # every event of the held round in one row
    panel.table.selectRow(1)
    detail = panel.detail.toPlainText()
    assert "round r1" in detail and "48 event(s)" in detail and "Not acknowledged yet" in detail
    # each event in full (and the latest on top), in words (issue 25: not the hold's kind)
    held = "on hold: the wheel reported a result while an irregularity was open (result"
    assert detail.count(held) == 24 + 1
    window.user = User("sam", "surveillance")
    window._show_user()
    panel.select_all_open()
    assert len(panel.selected_alerts()) == 2 and "2 alerts selected" in panel.detail.toPlainText()
    # One signed acknowledgement for both (the note and PIN dialog: tests/gui/test_surveillance_ack.py).
    asked: list[int] = []
    panel.sign_off = lambda chosen: (asked.append(len(chosen)), (User("sam", "surveillance"), "seen both"))[1]
    panel.acknowledge_selected()
    assert asked == [2]
    assert "2 alerts acknowledged by sam" in panel.message.text()
    assert all(a.acknowledged_by == "sam" for a in panel.alerts)
    panel.table.selectRow(0)
    window.resize(1700, 1000)
    window.show()
    qapp.processEvents()
    window.grab().save("/tmp/floorui/surveillance-alerts.png")
    window.close()


def test_the_surveillance_page_says_each_test_in_words(qapp: QApplication, demo_floor: DemoFloor) -> None:  # noqa: F811
    """Issue 12: a dealer chi-square on 2 spins had no "too few spins" caveat; "ccw (p=0.10)" was
    unexplained."""
    from gui.windows.surveillance import SurveillanceWindow

    store = demo_floor({"T1": 3})  # noqa: F811
    window = SurveillanceWindow(store, live=False)
    window.select_table("T1")
    page = window.page
    dealer = [page.dealers.item(0, col).text() for col in range(5)]
    assert dealer[1] == "2" and dealer[3] == "too few spins" and "no p-value yet" in dealer[4]
    figures = page.figures.text()
    assert "(p=" not in figures and "too few spins to test" in figures
    assert "counter-clockwise spins" in figures and "clockwise spins" in figures
    window.resize(1700, 1000)
    window.show()
    qapp.processEvents()
    window.grab().save("/tmp/floorui/surveillance-words.png")
    window.close()
