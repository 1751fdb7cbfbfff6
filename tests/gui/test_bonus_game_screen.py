"""The bonus game played on the bonus screen by clicking: X, cash-out and timeout paths.

Picks go to the real table service (which runs the engine's bonus game and journals every step);
the panels redraw from what it reports. A fake clock is the service's clock, so the countdown
runs out when a test says so.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.round import Phase
from engine.settlement import BONUS
from engine.table.view import BonusStatus, BoxState, odds_number
from gui import demo
from gui.table_model import TableModel
from gui.widgets.bonus_panel import BonusPanel
from gui.windows.bonus_screen import BonusScreen
from tests.gui.live import LiveTables, journaled, service_of


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


Screen = tuple[TableModel, BonusScreen]


@pytest.fixture
def screen(qtbot: QtBot, clock: FakeClock, tables: LiveTables) -> Screen:
    table = tables.start(seed=5, players=("Anna", "Bob"), clock=clock)
    window = BonusScreen(table)
    window.resize(1400, 700)
    qtbot.addWidget(window)
    window.show()
    draw = demo.next_draw(table)
    bonus = draw.bonus_number
    table.open_bets()
    table.place_wager("Anna", inside_bet([bonus]), Decimal(2))
    table.place_wager("Bob", inside_bet([bonus]), Decimal(10))
    table.no_more_bets()
    tables.wheel(table, demo.wheel_result(bonus))
    table.confirm_result()
    tables.run()
    assert table.phase is Phase.BONUS
    return table, window


def hidden(table: TableModel, player: str) -> tuple[Any, ...]:
    boxes = service_of(table).state.games[player]._hidden
    assert boxes is not None
    return tuple(boxes)


def box_with(table: TableModel, player: str, x: bool) -> int:
    return demo.safe_box(table, player, x=x)


def click_box(qtbot: QtBot, tables: LiveTables, panel: BonusPanel, box: int) -> None:
    qtbot.mouseClick(panel.boxes[box - 1], Qt.MouseButton.LeftButton)
    tables.run()


def start(qtbot: QtBot, tables: LiveTables, panel: BonusPanel) -> None:
    assert panel.view is not None and panel.view.status is BonusStatus.SETUP
    assert panel.start.isVisible() and panel.preset_row.isVisible()
    qtbot.mouseClick(panel.start, Qt.MouseButton.LeftButton)
    tables.run()


def test_a_panel_per_player_and_the_x_path(screen: Screen, tables: LiveTables, qtbot: QtBot) -> None:
    table, window = screen
    assert set(window.panels) == {"Anna", "Bob"}
    panel = window.panels["Anna"]
    start(qtbot, tables, panel)
    view = panel.view
    assert view is not None and view.status is BonusStatus.PLAYING and view.round == 1
    assert not panel.cash_out.isEnabled()  # no cash-out before round 3
    picks = []
    for _ in range(2):
        box = box_with(table, "Anna", x=False)
        picks.append(hidden(table, "Anna")[box - 1])
        click_box(qtbot, tables, panel, box)
    view = panel.view
    assert view is not None and view.round == 3 and view.picks == tuple(picks)
    assert view.guarantee == picks[0]
    assert sum(1 for b in view.previous if b.state is not BoxState.HIDDEN) == 5  # last round revealed
    assert [b.picked for b in view.previous].count(True) == 1
    assert panel.cash_out.isEnabled() and panel.total.text() == f"Total {sum(picks)} to 1"

    click_box(qtbot, tables, panel, box_with(table, "Anna", x=True))
    view = panel.view
    assert view is not None and view.status is BonusStatus.LOST and view.final_odds == picks[0]
    assert "X in round 3" in panel.banner.text()
    assert all(b.state is not BoxState.HIDDEN for b in view.boxes)  # the unpicked boxes revealed
    line = next(ln for ln in table.snapshot().pay_lines if ln.wager.player == "Anna")
    assert line.kind == BONUS and not line.pending
    assert line.payout == Decimal(2) * Fraction(picks[0]).numerator / Fraction(picks[0]).denominator
    assert view.payout == line.payout and "pays" in panel.banner.text()
    # … and for which wager at which odds (a straight-up here: the multiplier "to 1").
    assert (
        view.paid_on == f"2.00 on {line.wager.bet.label} at {odds_number(picks[0])} to {line.wager.bet.size}"
    )
    assert view.paid_on in panel.banner.text()
    # Every pick is in the journal, and the game's outcome beside it.
    types = journaled(table)
    assert types.count(E.BONUS_BOX_PICKED) == 3 and E.ROUND_BONUS_OUTCOME in types
    # Bob is still playing: the round cannot settle yet.
    table.settle()
    tables.run()
    assert table.phase is Phase.BONUS


def test_cash_out_from_round_three(screen: Screen, tables: LiveTables, qtbot: QtBot) -> None:
    table, window = screen
    panel = window.panels["Bob"]
    start(qtbot, tables, panel)
    picked = []
    for _ in range(2):
        box = box_with(table, "Bob", x=False)
        picked.append(hidden(table, "Bob")[box - 1])
        click_box(qtbot, tables, panel, box)
    qtbot.mouseClick(panel.cash_out, Qt.MouseButton.LeftButton)
    tables.run()
    view = panel.view
    assert view is not None and view.status is BonusStatus.CASHED_OUT
    assert view.final_odds == sum(picked)
    assert not panel.cash_out.isVisible() and "Cashed out in round 3" in panel.banner.text()


def test_timeouts_pick_at_random_early_and_follow_the_preset_later(
    screen: Screen, tables: LiveTables, qtbot: QtBot, clock: FakeClock
) -> None:
    table, window = screen
    panel = window.panels["Bob"]
    start(qtbot, tables, panel)
    seconds = table.rules.bonus_timer_seconds
    assert panel.view is not None and panel.view.seconds_left == seconds
    clock.now += seconds + 1
    tables.call(service_of(table).tick_bonus_games())  # the service's timer, its countdown run out
    view = panel.view
    assert view is not None and view.round == 2 and len(view.picks) == 1  # round 1: a random box
    click_box(qtbot, tables, panel, box_with(table, "Bob", x=False))
    assert panel.view is not None and panel.view.round == 3
    clock.now += seconds + 1
    tables.call(service_of(table).tick_bonus_games())
    view = panel.view
    assert view is not None and view.status is BonusStatus.CASHED_OUT  # the default preset
    assert view.final_odds == sum(view.picks)
    assert journaled(table).count(E.BONUS_TIMER_EXPIRED) == 2


def test_random_preset_set_before_the_game(
    screen: Screen, tables: LiveTables, qtbot: QtBot, clock: FakeClock
) -> None:
    table, window = screen
    panel = window.panels["Anna"]
    qtbot.mouseClick(panel.preset_random, Qt.MouseButton.LeftButton)
    tables.run()
    assert panel.view is not None and panel.view.preset == "random"
    start(qtbot, tables, panel)
    table.bonus_set_preset("Anna", "cash_out")  # too late once started
    tables.run()
    assert panel.view is not None and panel.view.preset == "random"
    for _ in range(2):
        click_box(qtbot, tables, panel, box_with(table, "Anna", x=False))
    clock.now += table.rules.bonus_timer_seconds + 1
    tables.call(service_of(table).tick_bonus_games())
    view = panel.view
    assert view is not None and view.status is not BonusStatus.CASHED_OUT
    assert view.round == 4 or view.status is BonusStatus.LOST  # a random box was opened


def test_both_games_finished_lets_the_round_settle(screen: Screen, tables: LiveTables, qtbot: QtBot) -> None:
    table, window = screen
    for player in ("Anna", "Bob"):
        panel = window.panels[player]
        start(qtbot, tables, panel)
        click_box(qtbot, tables, panel, box_with(table, player, x=False))
        click_box(qtbot, tables, panel, box_with(table, player, x=True))
    assert all(not ln.pending for ln in table.snapshot().pay_lines)
    table.settle()
    tables.run()
    assert table.phase is Phase.SETTLED and table.snapshot().history[-1].bonus
    table.next_round()
    tables.run()
    assert window.panels == {} and window.idle.isVisible()
