"""Issue 25 points 3 and 4: with `drr gui --station croupier` (no bonus window) the croupier station
plays the bonus games itself on a screen that comes up with the game (before: two games sat at
"Choose below, then start" for over 100 s); the croupier's refusals never reach the players' bonus
screen (before: they appeared there and widened it)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.bets import inside_bet
from engine.round import Phase
from gui import app, demo
from gui.table_model import TableModel
from gui.windows.bonus_screen import BonusScreen
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables

PLAYERS = ("Anna", "Bob")


def to_bonus(table: TableModel, tables: LiveTables) -> None:
    draw = demo.next_draw(table)
    table.open_bets()
    table.place_wager("Anna", inside_bet([draw.bonus_number]), Decimal(2))
    table.place_wager("Bob", inside_bet([draw.bonus_number]), Decimal(10))
    table.no_more_bets()
    tables.wheel(table, demo.wheel_result(draw.bonus_number))
    table.confirm_result()
    tables.run()
    assert table.phase is Phase.BONUS


def test_the_croupier_station_alone_plays_the_bonus_games(
    qtbot: QtBot, tables: LiveTables, tmp_path: Path
) -> None:
    table = tables.start(seed=5, players=PLAYERS)
    [window] = app._build_windows("croupier", table, all_windows=False)
    assert isinstance(window, CroupierWindow)
    qtbot.addWidget(window)
    window.show()
    bonus = window.bonus_screen
    assert bonus is not None and not bonus.isVisible()
    qtbot.addWidget(bonus)
    to_bonus(table, tables)
    assert bonus.isVisible(), "no screen to play the bonus games on: they stall"
    assert set(bonus.panels) == {"Anna", "Bob"}
    for name in PLAYERS:  # each player starts and plays to the end on the station's own screen
        panel = bonus.panels[name]
        qtbot.mouseClick(panel.start, Qt.MouseButton.LeftButton)
        tables.run()
        qtbot.mouseClick(panel.boxes[demo.safe_box(table, name) - 1], Qt.MouseButton.LeftButton)
        tables.run()
        qtbot.mouseClick(panel.boxes[demo.safe_box(table, name, x=True) - 1], Qt.MouseButton.LeftButton)
        tables.run()
        assert demo.service_of(table).state.games[name].finished
    window.press_action()  # settle
    tables.run()
    assert table.phase is Phase.SETTLED
    table.next_round()
    tables.run()
    table.open_bets()
    tables.run()
    assert not bonus.isVisible()


def test_the_croupiers_refusals_stay_off_the_bonus_screen(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.start(seed=5, players=PLAYERS)
    window = CroupierWindow(table, PLAYERS)
    screen = BonusScreen(table)
    qtbot.addWidget(window)
    qtbot.addWidget(screen)
    to_bonus(table, tables)
    table.settle()  # refused: the bonus games are not over
    tables.run()
    assert window.reason.text() != ""
    assert screen.reason.text() == "", "the croupier's refusal is on the players' screen"
    window.reason.setText("")
    table.bonus_pick("Anna", 1)  # a player's own refusal (the game is not started) is theirs to see
    tables.run()
    assert screen.reason.text() != ""
    # ...and theirs only: it showed on the croupier window too (issue 25 point 3).
    assert window.reason.text() == "", "the player's refusal is on the croupier window"
