"""Issue 25 point 1 at the croupier station (offscreen, the real service on its real clock): the
automatic confirmation does not run behind the Dispute or Manual result dialog, and the Enter that
follows a manual result does not settle the round: only the big button's own press does."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog
from pytestqt.qtbot import QtBot

from engine import wheel_events as ev
from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.round import Phase
from gui.table_model import TableModel
from gui.windows.croupier import PRESS_AFTER_DIALOG, CroupierWindow
from gui.windows.dialogs import ManualResultDialog, ReasonDialog
from tests.gui.live import LiveTables, entries

PLAYERS = ("Anna", "Bob")
CONFIRM_S = 0.3  # the auto-confirmation; each dialog stays open well past it
OPEN_MS = 1200

Station = tuple[TableModel, CroupierWindow]


@pytest.fixture
def station(qtbot: QtBot, tables: LiveTables) -> Station:
    table = tables.start(seed=57, players=PLAYERS, auto_confirm_seconds=CONFIRM_S)
    window = CroupierWindow(table, PLAYERS)
    window.resize(1500, 950)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return table, window


def wheel_says_33(table: TableModel, tables: LiveTables) -> None:
    table.open_bets()
    tables.run()
    table.place_wager("Anna", inside_bet([33]), Decimal(5))
    table.no_more_bets()
    tables.run()
    tables.wheel(table, ev.WheelResult(number=33, game=None))
    assert table.snapshot().spin.step == "result"


def with_dialog(tables: LiveTables, open_it: Callable[[], None], act: Callable[[QDialog], None]) -> None:
    """Open a dialog as the croupier does (from a key or a click while the loop runs, as under
    qasync), and after OPEN_MS — the loop and the service's timer running all the while — let `act`
    close it."""
    closed: list[bool] = []

    def later() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, QDialog), "the dialog is not open"
        act(dialog)

    def croupier() -> None:
        QTimer.singleShot(OPEN_MS, later)
        open_it()
        closed.append(True)

    QTimer.singleShot(0, croupier)
    tables.until(lambda: bool(closed), seconds=10)
    tables.run()


def test_the_dispute_dialog_stops_the_confirmation_and_the_dispute_is_taken(
    station: Station, tables: LiveTables
) -> None:
    """Before: 33 was confirmed behind the dialog, and the dispute refused ("the round is RESULT")."""
    table, window = station
    wheel_says_33(table, tables)
    refused: list[str] = []
    table.refused.connect(refused.append)

    def dispute(dialog: QDialog) -> None:
        assert isinstance(dialog, ReasonDialog)
        dialog.reason.setEditText("the ball sits in 36")
        dialog.try_accept()

    with_dialog(tables, window.ask_dispute, dispute)
    assert entries(table, E.ROUND_RESULT) == [], "confirmed behind the dialog"
    assert refused == []
    hold = table.snapshot().hold
    assert hold is not None and "36" in hold


def test_a_cancelled_dispute_gives_the_countdown_again(station: Station, tables: LiveTables) -> None:
    table, window = station
    wheel_says_33(table, tables)
    with_dialog(tables, window.ask_dispute, lambda d: d.reject())
    assert entries(table, E.ROUND_RESULT) == []
    assert len(entries(table, E.TABLE_AUTO_CONFIRM_DUE)) == 2  # the fresh countdown, journaled
    tables.until(lambda: table.phase is Phase.RESULT, seconds=5)
    [recorded] = entries(table, E.ROUND_RESULT)
    assert recorded.payload["number"] == 33 and recorded.payload["auto_confirmed_after"] == CONFIRM_S


def test_enter_after_a_manual_result_does_not_settle(
    station: Station, tables: LiveTables, qtbot: QtBot
) -> None:
    """Before: the number was confirmed behind the Manual result dialog and the next Enter settled."""
    table, window = station
    wheel_says_33(table, tables)

    def enter_36(dialog: QDialog) -> None:
        assert isinstance(dialog, ManualResultDialog)
        dialog.reason.setCurrentIndex(1)  # the sensor's number is not the pocket the ball is in
        for _ in range(2):
            dialog.number.setText("36")
            dialog.step()

    with_dialog(tables, window.ask_manual_result, enter_36)
    [recorded] = entries(table, E.ROUND_RESULT)
    assert recorded.payload["number"] == 36 and recorded.payload["source"] == "manual"
    assert table.phase is Phase.RESULT
    QApplication.setActiveWindow(window)  # offscreen: nothing gives the window back its activation
    qtbot.keyClick(window, Qt.Key.Key_Return)
    qtbot.keyClick(window, Qt.Key.Key_S)
    tables.run()
    assert table.phase is Phase.RESULT and entries(table, E.ROUND_SETTLED) == []
    assert window.reason.text() == PRESS_AFTER_DIALOG
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)  # the big button's own press
    tables.run()
    assert table.phase is Phase.SETTLED
