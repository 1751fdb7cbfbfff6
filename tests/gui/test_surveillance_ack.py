"""Issue 25 point 5: surveillance acknowledges nothing in two clicks. "Select all open" then
"Acknowledge selected" asks once for the officer's note and PIN, naming how many alerts and how
many critical; cancelled, nothing is acknowledged; with a wrong PIN, nothing either."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.store import Store, open_store
from engine.store.users import add_user
from gui.floor.signoff import SignOffDialog
from gui.windows.surveillance import SurveillanceWindow
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures
from tests.floor.played import PlayedFloors, copy_surveillance_floor

PIN = "4711"
BOSS_PIN = "471147"  # a pit boss's PIN is at least 6 digits


@pytest.fixture
def floor(store_url: str, played_floors: PlayedFloors) -> Iterator[Store]:  # noqa: F811
    copy_surveillance_floor(played_floors, store_url)  # as tests/gui/test_surveillance.py
    with open_store(store_url, durable=False) as played:
        add_user(played, "sam", "surveillance", PIN, by=User("admin", "admin"))
        yield played


def signed_in(qtbot: QtBot, floor: Store) -> SurveillanceWindow:
    window = SurveillanceWindow(floor, live=False)
    qtbot.addWidget(window)
    window.scan_alerts([window.current_view])
    window.user = User("sam", "surveillance")
    window._show_user()
    window.alerts.select_all_open()
    assert len(window.alerts.selected_alerts()) >= 2
    return window


def answer(act: Callable[[SignOffDialog], None]) -> list[str]:
    seen: list[str] = []

    def later() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, SignOffDialog), "no sign-off was asked for"
        seen.append(dialog.windowTitle())
        act(dialog)

    QTimer.singleShot(50, later)
    return seen


def test_a_bulk_acknowledgement_asks_once_for_note_and_pin(qtbot: QtBot, floor: Store) -> None:
    window = signed_in(qtbot, floor)
    chosen = window.alerts.selected_alerts()
    critical = sum(1 for a in chosen if a.severity == "critical")

    def sign(dialog: SignOffDialog) -> None:
        dialog.reason.setPlainText("reviewed on camera 4 with the pit boss")
        dialog.pin.setText(PIN)
        dialog.try_sign()

    seen = answer(sign)
    window.alerts.acknowledge_selected()
    assert seen == [f"Acknowledge {len(chosen)} alerts ({critical} critical)"]
    acked = [a for a in window.alerts.alerts if a.alert_id in {c.alert_id for c in chosen}]
    assert acked and all(a.acknowledged_by == "sam" for a in acked)


def test_cancelled_or_a_wrong_pin_acknowledges_nothing(qtbot: QtBot, floor: Store) -> None:
    window = signed_in(qtbot, floor)
    answer(lambda d: d.reject())
    window.alerts.acknowledge_selected()
    assert not any(a.acknowledged for a in window.alerts.alerts)

    def wrong(dialog: SignOffDialog) -> None:
        dialog.reason.setPlainText("looked at it")
        dialog.pin.setText("0000")
        dialog.try_sign()
        assert dialog.user is None and dialog.error.text()
        dialog.reject()

    window.alerts.select_all_open()
    answer(wrong)
    window.alerts.acknowledge_selected()
    assert not any(a.acknowledged for a in window.alerts.alerts)


def test_the_pit_boss_bulk_acknowledgement_says_as_much(qtbot: QtBot, floor: Store) -> None:
    """The pit-boss station's alerts tab asks the same: how many alerts and how many critical (it
    had its own words, "Acknowledge alerts", naming neither)."""
    from gui.windows.pitboss import PitBossWindow

    signed_in(qtbot, floor)  # the alerts raised and journaled
    add_user(floor, "pat", "pitboss", BOSS_PIN, by=User("admin", "admin"))
    window = PitBossWindow(floor, user=User("pat", "pitboss"), live=False)
    qtbot.addWidget(window)
    window.alerts.refresh()
    window.alerts.select_all_open()
    chosen = window.alerts.selected_alerts()
    critical = sum(1 for a in chosen if a.severity == "critical")
    assert len(chosen) >= 2

    def sign(dialog: SignOffDialog) -> None:
        dialog.reason.setPlainText("seen with surveillance")
        dialog.pin.setText(BOSS_PIN)
        dialog.try_sign()

    seen = answer(sign)
    window.alerts.acknowledge_selected()
    assert seen == [f"Acknowledge {len(chosen)} alerts ({critical} critical)"]
    assert all(
        a.acknowledged_by == "pat" for a in window.alerts.alerts if a.alert_id in {c.alert_id for c in chosen}
    )


def test_the_log_in_button_logs_out_then_in_again(
    qtbot: QtBot, floor: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A floor station's Log in / Log out (gui.floor.signoff.FloorWindow.login): out at once, in
    through the log-in dialog; a cancelled dialog leaves nobody logged in."""
    from gui.windows.login import LoginDialog

    window = SurveillanceWindow(floor, user=User("sam", "surveillance"), live=False)
    qtbot.addWidget(window)
    window._show_user()
    assert window.login_button.text() == "Log out" and window.alerts.ack.isEnabled()
    window.login()
    assert (
        window.user is None and window.login_button.text() == "Log in" and not window.alerts.ack.isEnabled()
    )
    monkeypatch.setattr(LoginDialog, "exec", lambda dialog: 0)  # cancelled
    window.login()
    assert window.user is None

    def sign_in(dialog: LoginDialog) -> int:
        dialog.name.setText("sam")
        dialog.pin.setText(PIN)
        dialog.try_login()
        return int(dialog.result())

    monkeypatch.setattr(LoginDialog, "exec", sign_in)
    window.login()
    assert window.user is not None and window.user.name == "sam" and window.who.text() == "sam (surveillance)"
    assert window.login_button.text() == "Log out" and window.alerts.ack.isEnabled()
