"""Issue 25, found on a real screen (tests/gui/test_real_shift.py): the croupier window opened with
the typed-wager line holding the keyboard (the first control that takes it), so the croupier's
first Space typed a space there instead of opening bets. The offscreen platform hands the first
focus to the big button either way, so this checks the behaviour kept; the defect itself is caught
by the real-display shift (it fails there before the fix: "Space on the opened window did not open
bets")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.round import Phase
from gui.table_model import TableModel
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables


def test_the_first_space_on_the_opened_window_opens_bets(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.start(seed=5, players=("Anna", "Bob"))
    # As the station opens it: painted at once on a model with no table yet (its buttons greyed),
    # the table attached a moment later (gui.app).
    starting = TableModel.starting(table.rules, ("Anna", "Bob"), "T1")
    first = CroupierWindow(starting, ("Anna", "Bob"))
    qtbot.addWidget(first)
    first.show()
    first.activateWindow()
    qtbot.waitExposed(first)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=5000)
    assert QApplication.focusWidget() is not first.wager_entry, "the typed line holds the keys"
    first.close()
    window = CroupierWindow(table, ("Anna", "Bob"))
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=5000)
    assert QApplication.focusWidget() is not window.wager_entry, "the typed line holds the keys"
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Space)
    tables.run()
    assert table.phase is Phase.OPEN and window.wager_entry.text() == ""
    # W still takes the line, and a click does too.
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_W)
    assert QApplication.focusWidget() is window.wager_entry
