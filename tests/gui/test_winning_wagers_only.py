"""Issue 12, point 9 on the croupier station: with winning wagers only, the felt takes no chip while
bets are open (the line under the big button says why), takes only chips covering the result once it
is in, shows each one's payout at the drawn odds as it is entered, and the round settles as any other."""

from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.bets import Bet, inside_bet
from engine.floor.actions import change_settings
from engine.round import Phase
from engine.table.next_step import WINNING_ONLY_ENTER, WINNING_ONLY_OPEN
from gui import demo
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables, entries, service_of

PLAYERS = ("Anna", "Bob")


def _click(qtbot: QtBot, window: CroupierWindow, bet: Bet) -> None:
    qtbot.mouseClick(window.felt, Qt.MouseButton.LeftButton, pos=window.felt.spot_of(bet).toPoint())


def test_the_croupier_enters_only_the_winning_chips_after_the_result(
    qtbot: QtBot, tables: LiveTables
) -> None:
    table = tables.start(seed=57, players=PLAYERS, approval_threshold=Decimal("100000"))
    service = service_of(table)
    change_settings(
        service.store, service.table, {"entry_mode": "winning"}, "busy night", User("pete", "pitboss")
    )
    window = CroupierWindow(table, PLAYERS)
    window.resize(1500, 950)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)

    draw = demo.next_draw(table)
    lucky = min(n for n in draw.lucky if n != 0)
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)  # open bets
    tables.run()
    assert table.phase is Phase.OPEN and window.view.winning_only
    assert WINNING_ONLY_OPEN in window.guide.text()
    _click(qtbot, window, inside_bet([lucky]))
    tables.run()
    assert table.snapshot().wagers == () and window.reason.text() == WINNING_ONLY_OPEN

    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)  # no more bets
    tables.run()
    tables.wheel(table, demo.wheel_result(lucky))
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)  # confirm
    tables.run()
    assert table.phase is Phase.RESULT and WINNING_ONLY_ENTER in window.guide.text()
    assert window.undo_button.isEnabled()

    qtbot.mouseClick(window.player_buttons["Anna"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(window.chip_buttons[Decimal(5)], Qt.MouseButton.LeftButton)
    other = lucky + 1 if lucky < 36 else lucky - 1
    _click(qtbot, window, inside_bet([other]))  # does not cover the result: refused on the station
    tables.run()
    assert table.snapshot().wagers == () and f"does not cover {lucky}" in window.reason.text()
    _click(qtbot, window, inside_bet([lucky]))
    tables.run()
    (wager,) = table.snapshot().wagers
    # The paying list shows the entered chip at the number's drawn Lucky odds at once.
    (line,) = [ln for ln in window.pay_lines if ln.wager.id == wager.id]
    assert line.payout == Decimal(5) * Decimal(draw.lucky[lucky].numerator) / draw.lucky[lucky].denominator
    assert window.paying.rowCount() >= 1

    assert window.action.text() == "Settle"
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
    tables.run()
    assert table.phase is Phase.SETTLED
    assert [e.type for e in entries(table)].count("round.wager_placed") == 1
