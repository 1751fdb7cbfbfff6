"""Issue 25 point 6 at the croupier station, on the real table service: a seat named during the session
is journaled with its seat at once; the typed-wager line hands the keyboard back once its wagers are
placed (Enter never does two things: while the line has the focus Enter is the line's, after it the big
button's), a limit refusal keeps the typed text, and refusals name the wager in words, not by its id."""

from __future__ import annotations

import re
from decimal import Decimal

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.round import Phase
from engine.rules import default_rules_path
from gui.table_model import TableModel
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables, entries

PLAYERS = ("Seat 1", "Seat 2", "Seat 3")
INTERNAL_ID = re.compile(r"-\d{6}-w\d+")


def _window(qtbot: QtBot, table: TableModel) -> CroupierWindow:
    window = CroupierWindow(table, PLAYERS)
    window.resize(1500, 950)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    return window


def test_a_seat_named_during_the_session_is_journaled_with_its_seat_at_once(
    qtbot: QtBot, tables: LiveTables
) -> None:
    table = tables.start(seed=3, players=PLAYERS)
    window = _window(qtbot, table)
    assert window.rename_seat("Seat 2", "Zoë")  # no restart after this
    window.do_next_action()  # open bets
    tables.run()
    window.select_player("Zoë")
    window.on_bet_clicked(inside_bet([17]))
    tables.run()
    (placed,) = entries(table, E.ROUND_WAGER_PLACED)
    assert placed.payload["player"] == "Zoë"
    assert placed.payload["seat"] == 1  # the second seat, as the felt drew her chips


def test_the_typed_line_keeps_a_refused_text_and_hands_the_keyboard_back_once_placed(
    qtbot: QtBot, tables: LiveTables
) -> None:
    text = default_rules_path().read_text() + '\n[limits]\nminimum = "1"\nmaximum_inside = "10"\n'
    table = tables.start(rules_text=text.encode(), players=PLAYERS, seed=1)
    window = _window(qtbot, table)
    qtbot.keyClick(window, Qt.Key.Key_Space)  # open bets
    tables.run()
    assert table.phase is Phase.OPEN
    qtbot.keyClick(window, Qt.Key.Key_2)
    qtbot.keyClick(window, Qt.Key.Key_W)
    assert window.wager_entry.hasFocus()
    qtbot.keyClicks(window.wager_entry, "17/25")
    qtbot.keyClick(window.wager_entry, Qt.Key.Key_Return)  # above the inside maximum: refused
    tables.run()
    assert table.snapshot().wagers == () and table.phase is Phase.OPEN  # Enter did not close bets
    why = window.reason.text()
    assert why.startswith("Seat 2's 25 on straight 17: ") and "inside maximum 10" in why, why
    assert not INTERNAL_ID.search(why), why
    assert window.wager_entry.text() == "17/25" and window.wager_entry.hasFocus()  # kept to correct

    window.wager_entry.setText("17/5")
    qtbot.keyClick(window.wager_entry, Qt.Key.Key_Return)
    tables.run()
    assert [(w.player, w.amount) for w in table.snapshot().wagers] == [("Seat 2", Decimal(5))]
    assert table.phase is Phase.OPEN  # the line's Enter placed the wagers and did nothing else
    assert window.wager_entry.text() == "" and not window.wager_entry.hasFocus()
    qtbot.keyClick(window, Qt.Key.Key_Return)  # no Escape needed: the next Enter is the big button's
    tables.run()
    assert table.phase is Phase.CLOSED
