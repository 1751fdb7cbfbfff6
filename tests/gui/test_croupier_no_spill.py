"""Issue 25 point 3: a long line under the big button or in the reason line never widens the
croupier window (before: 2,121-2,142 px on a 1,920-px screen on a hold); it wraps, the whole text on
hover."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables

PLAYERS = ("Anna", "Bob", "Carla")
LONG = (
    "the wheel reported a result before bets closed; a pit boss decides: no-spin, manual result or void. " * 5
)


def test_long_lines_wrap_and_the_window_keeps_its_width(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.start(seed=5, players=PLAYERS)
    window = CroupierWindow(table, PLAYERS)
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    before = window.minimumSizeHint().width()
    assert before <= 1280
    window.show_reason(LONG)
    window.guide.setText(LONG)
    QApplication.processEvents()  # the layout takes the new texts in
    assert window.minimumSizeHint().width() == before
    assert window.reason.toolTip() == LONG and window.guide.toolTip() == LONG
    assert window.width() <= 1280
