"""§ 617b.12(i), issue 23 finding 6: "to begin each round of the bonus game, a countdown timer shows how
long a player has remaining": the bonus screen's ring shows the whole time at each round's start and
counts down on the table service's clock, in every round the player chooses."""

from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from engine.bets import inside_bet
from engine.round import Phase
from engine.table.view import BonusStatus
from gui import demo
from gui.windows.bonus_screen import BonusScreen
from tests.gui.live import LiveTables
from tests.gui.test_bonus_game_screen import FakeClock, Screen, box_with, click_box, start


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def screen(qtbot: QtBot, clock: FakeClock, tables: LiveTables) -> Screen:
    """One player's bonus game waiting on the bonus screen (as tests/gui/test_bonus_game_screen.py's)."""
    table = tables.start(seed=5, players=("Anna", "Bob"), clock=clock)
    window = BonusScreen(table)
    window.resize(1400, 700)
    qtbot.addWidget(window)
    window.show()
    bonus = demo.next_draw(table).bonus_number
    table.open_bets()
    table.place_wager("Anna", inside_bet([bonus]), Decimal(2))
    table.no_more_bets()
    tables.wheel(table, demo.wheel_result(bonus))
    table.confirm_result()
    tables.run()
    assert table.phase is Phase.BONUS
    return table, window


def _picture(widget: object) -> QImage:
    return widget.grab().toImage()  # type: ignore[attr-defined, no-any-return]


def test_i_the_countdown_is_shown_from_each_rounds_start(
    screen: Screen, tables: LiveTables, qtbot: QtBot, clock: FakeClock
) -> None:
    table, window = screen
    panel = window.panels["Anna"]
    assert not panel.ring.isVisible()  # not before the game starts
    start(qtbot, tables, panel)
    seconds = table.rules.bonus_timer_seconds
    for round_no in range(1, 4):
        view = panel.view
        assert view is not None and view.status is BonusStatus.PLAYING and view.round == round_no
        # The round begins with the whole countdown, shown.
        assert panel.ring.isVisible() and panel.seconds_left() == seconds
        assert panel.ring._left == seconds
        full = _picture(panel.ring)
        # Seven seconds later on the service's clock the ring shows seven fewer, and looks different.
        clock.now += 7
        panel._on_tick()
        assert panel.ring._left == seconds - 7
        assert _picture(panel.ring) != full
        click_box(qtbot, tables, panel, box_with(table, "Anna", x=False))
    view = panel.view
    assert view is not None and view.round == 4 and panel.ring._left == seconds  # a fresh countdown
