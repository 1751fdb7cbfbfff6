"""The player display shows the table's Lucky Numbers, Bonus Number, results and statistics (the real
table service behind it)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from engine.bets import inside_bet
from engine.round import Phase
from engine.table.view import HistoryEntry
from gui import demo
from gui.windows.player_display import LAST_SHOWN, PlayerDisplay, colour_split, hot_and_cold
from tests.gui.live import LiveTables


def entries(*numbers: int) -> list[HistoryEntry]:
    return [HistoryEntry(n) for n in numbers]


def test_hot_and_cold() -> None:
    hot, cold = hot_and_cold(entries(7, 7, 7, 12, 12, 30, 0, 0, 0, 0))
    assert hot[:3] == [0, 7, 12] and 30 in hot
    assert cold == [1, 2, 3, 4, 5]  # never hit, lowest numbers first
    assert hot_and_cold([]) == ([], [])  # before any result no number is hot or cold


def test_hot_and_cold_look_only_at_the_window() -> None:
    hot, _ = hot_and_cold(entries(5, 5, 5, 9), window=1)
    assert hot == [9]


def test_colour_split() -> None:
    assert colour_split(entries(1, 3, 2, 0)) == {"red": 2, "black": 1, "green": 1}


def test_display_follows_the_table(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.start(seed=3, players=("Anna",))
    display = PlayerDisplay(table)
    qtbot.addWidget(display)
    display.resize(1280, 720)
    display.show()
    marquee = display.marquee
    table.open_bets()
    tables.run()
    assert marquee.phase is Phase.OPEN and marquee.lucky == {}
    table.place_wager("Anna", inside_bet([1]), Decimal(1))
    table.no_more_bets()
    tables.run()
    draw = table.snapshot().draw
    assert draw is not None
    assert marquee.lucky == dict(draw.lucky) and marquee.bonus == draw.bonus_number
    number = next(iter(draw.lucky))
    tables.wheel(table, demo.wheel_result(number))
    assert marquee.result is None  # not confirmed yet: players see only confirmed results
    table.confirm_result()
    tables.run()
    assert marquee.result == number
    table.settle()
    tables.run()
    assert [e.number for e in marquee.history] == [number] and marquee.history[0].lucky
    table.next_round()
    tables.run()
    assert marquee.lucky == {} and marquee.result is None


def test_display_paints_with_history(qtbot: QtBot, tables: LiveTables, tmp_path: Path) -> None:
    table = tables.demo(demo.croupier_after_lucky_win)
    display = PlayerDisplay(table)
    qtbot.addWidget(display)
    display.resize(1600, 900)
    display.show()
    assert len(display.marquee.history) == 60 and display.marquee.result == table.snapshot().result
    path = tmp_path / "display.png"
    assert display.grab().save(str(path))
    image = QImage(str(path))
    assert image.width() == 1600
    assert LAST_SHOWN == 20
