"""Issue 12: after a void the croupier's screen lists what to return, player by player (it showed an
empty paying list, so the croupier had to remember every chip)."""

from __future__ import annotations

from decimal import Decimal

from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.bets import BetKind, inside_bet, outside_bet
from engine.round import Phase
from gui.windows.croupier import RETURN_TITLE, CroupierWindow
from tests.gui.live import LiveTables, service_of

PLAYERS = ("Anna", "Bob")


def test_a_void_lists_every_wager_to_return_by_player(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.start(seed=5, players=PLAYERS)
    window = CroupierWindow(table, PLAYERS)
    qtbot.addWidget(window)
    window.show()
    service = service_of(table)
    croupier = User("carol", "croupier")
    tables.call(service.open_bets(croupier))
    tables.call(service.place_wager(croupier, "Anna", inside_bet([17]), Decimal(5)))
    tables.call(service.place_wager(croupier, "Anna", outside_bet(BetKind.RED), Decimal(20)))
    tables.call(service.place_wager(croupier, "Bob", inside_bet([17, 20]), Decimal(10)))
    tables.call(service.void(User("pete", "pitboss"), "wheel jammed"))
    tables.run()
    assert table.phase is Phase.VOID
    cells = [[window.paying.item(r, c).text() for c in range(5)] for r in range(window.paying.rowCount())]
    assert cells[0][:3] == ["Anna", inside_bet([17]).label, "5.00"] and cells[0][3] == "returned"
    assert ["Anna total", "", "", "", "25.00"] in cells and ["Bob total", "", "", "", "10.00"] in cells
    assert cells[-1] == ["Table total", "", "", "", "35.00"]
    assert RETURN_TITLE in window.paying_title.text() and "35.00" in window.paying_title.text()
