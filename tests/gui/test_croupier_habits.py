"""A croupier's habits at the station (issue 12, point 8), on the real table service: who is signed
in, dealer change and log-out journaled; wagers typed on the keyboard and Rebet; chips from the
settings; a player's own limit shown; the croupier's keys kept while a player touches the bonus
screen, which never presses a button on Space and never opens behind the croupier window."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.bets import BetKind, inside_bet, outside_bet
from engine.entry_types import EntryType as E
from engine.floor.actions import change_settings
from engine.journal_types import read
from engine.round import Phase
from engine.store.users import add_user
from engine.table.view import BonusStatus
from engine.table_events import DealerChanged
from gui import demo
from gui.screen_layout import plan
from gui.table_model import TableModel
from gui.windows.bonus_screen import BonusScreen
from gui.windows.croupier import CroupierWindow
from gui.windows.player_display import PlayerDisplay
from tests.gui.live import PIN, PIT_BOSS, LiveTables, entries, service_of

PLAYERS = ("Anna", "Bob", "Carla")
SHOTS = Path("/tmp/habits")


def _window(qtbot: QtBot, table: TableModel, **kw: object) -> CroupierWindow:
    window = CroupierWindow(table, PLAYERS, **kw)  # type: ignore[arg-type]
    window.resize(1500, 950)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()  # as the station does (gui.app._place_on_screens)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    return window


def _shot(widget: object, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    widget.grab().save(str(SHOTS / name))  # type: ignore[attr-defined]


def test_who_is_signed_in_dealer_change_and_log_out_are_journaled(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.start(seed=3, players=PLAYERS)
    service = service_of(table)
    add_user(service.store, "rita", "croupier", "1357", by=User("demo-admin", "admin"))
    window = _window(qtbot, table)
    table.sign_in_dealer(table.user)  # as the station does after the login
    tables.run()
    assert "Signed in: <b>dana</b> (croupier)" in window.dealer_bar.who.text()

    dialog = window.dealer_bar.ask_sign_in()  # Dealer change…: the relief dealer signs in
    assert dialog is not None
    dialog.name.setText("rita")
    dialog.pin.setText("1357")
    dialog.try_login()
    tables.run()
    assert table.user.name == "rita" and "Signed in: <b>rita</b>" in window.dealer_bar.who.text()
    table.open_bets()
    tables.run()
    opened = entries(table, E.ROUND_OPENED)[-1]
    assert opened.payload["dealer"] == "rita" and opened.user == "rita"  # the per-dealer figures' dealer
    _shot(window, "croupier-signed-in.png")

    qtbot.mouseClick(window.dealer_bar.log_out, Qt.MouseButton.LeftButton)
    tables.run()
    assert "Nobody is signed in" in window.dealer_bar.who.text()
    assert window.dealer_bar.change.text() == "Sign in…"
    table.no_more_bets()  # a command (a shortcut) while nobody is signed in: refused
    tables.run()
    assert table.phase is Phase.OPEN and "nobody is signed in" in window.reason.text()
    assert window.action.text() == "Sign in…"  # the big button is the sign-in now
    tables.wheel(table, demo.wheel_result(7))  # the wheel's messages are journaled all the same
    assert entries(table, E.WHEEL_RESULT)
    changes = [read(e) for e in entries(table, E.TABLE_DEALER_CHANGED)]
    assert [(c.dealer, c.previous) for c in changes if isinstance(c, DealerChanged)] == [
        ("dana", None),
        ("rita", "dana"),
        (None, "rita"),
    ]
    _shot(window, "croupier-signed-out.png")
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert window.dealer_bar.dialog is not None and window.dealer_bar.dialog.isVisible()
    window.dealer_bar.dialog.reject()


def test_a_station_without_users_offers_no_log_out(qtbot: QtBot, tables: LiveTables) -> None:
    window = _window(qtbot, tables.start(seed=3, players=PLAYERS))
    window.dealer_bar.set_accounts(False)
    assert (
        not window.dealer_bar.log_out.isEnabled() and "drr users add" in window.dealer_bar.log_out.toolTip()
    )


def test_wagers_typed_on_the_keyboard_and_rebet(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.start(seed=3, players=PLAYERS)
    window = _window(qtbot, table)
    qtbot.keyClick(window, Qt.Key.Key_Space)  # open bets
    tables.run()
    qtbot.keyClick(window, Qt.Key.Key_2)  # Bob
    qtbot.keyClick(window, Qt.Key.Key_W)  # to the wager line
    assert window.wager_entry.hasFocus()
    qtbot.keyClicks(window.wager_entry, "17/25 17-20/10 red")
    qtbot.keyClick(window.wager_entry, Qt.Key.Key_Return)  # the line's, not the next action
    tables.run()
    assert table.phase is Phase.OPEN
    assert [(w.player, w.bet, w.amount) for w in table.snapshot().wagers] == [
        ("Bob", inside_bet([17]), Decimal(25)),
        ("Bob", inside_bet([17, 20]), Decimal(10)),
        ("Bob", outside_bet(BetKind.RED), window.chip),  # no amount: the selected chip
    ]
    _shot(window, "croupier-typed-wagers.png")
    qtbot.keyClicks(window.wager_entry, "17-19/5")
    qtbot.keyClick(window.wager_entry, Qt.Key.Key_Return)
    tables.run()
    assert "do not form a legal inside bet" in window.reason.text()
    assert window.wager_entry.text() == "17-19/5"  # kept, to be corrected
    qtbot.keyClick(window.wager_entry, Qt.Key.Key_Escape)
    assert not window.wager_entry.hasFocus() and window.wager_entry.text() == ""

    table.no_more_bets()
    tables.run()
    tables.wheel(table, demo.wheel_result(4))
    table.confirm_result()
    tables.run()
    table.settle()
    tables.run()
    table.next_round()
    tables.run()
    assert table.phase is Phase.IDLE, window.reason.text()
    window.do_next_action()  # open bets
    tables.run()
    placed = len(entries(table, E.ROUND_WAGER_PLACED))
    qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # Rebet for Bob
    tables.run()
    assert len(entries(table, E.ROUND_WAGER_PLACED)) == placed + 3  # each wager journaled
    assert [(w.bet, w.amount) for w in table.snapshot().wagers] == [
        (inside_bet([17]), Decimal(25)),
        (inside_bet([17, 20]), Decimal(10)),
        (outside_bet(BetKind.RED), Decimal(5)),
    ]
    qtbot.mouseClick(window.player_buttons["Anna"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(window.rebet_button, Qt.MouseButton.LeftButton)
    tables.run()
    assert "Anna has no wagers of an earlier round" in window.reason.text()


def test_chips_from_the_settings_none_below_the_minimum_and_a_players_own_limit_shown(
    qtbot: QtBot, tables: LiveTables
) -> None:
    table = tables.start(seed=3, players=PLAYERS)
    chips = tuple(Decimal(v) for v in ("2.5", "10", "50", "100", "500"))
    window = _window(qtbot, table, chips=chips)
    assert list(window.chip_buttons) == list(chips)
    assert [b.text() for b in window.chip_buttons.values()] == ["2.5", "10", "50", "100", "500"]
    service = service_of(table)
    boss = User(PIT_BOSS, "pitboss")
    change_settings(service.store, service.table, {"min_bet": "10", "player_limit:Anna": "60"}, "vip", boss)
    table.open_bets()
    tables.run()
    assert list(window.chip_buttons) == [Decimal(10), Decimal(50), Decimal(100), Decimal(500)]
    qtbot.keyClick(window, Qt.Key.Key_F2)
    assert window.chip == Decimal(50)
    window.select_player("Anna")
    window.on_bet_clicked(inside_bet([9]))
    tables.run()
    assert "Anna</b>: 50.00 of 60.00 (10.00 left)" in window.totals.text()
    window.on_bet_clicked(inside_bet([9]))
    tables.run()
    assert "above Anna's own limit 60" in window.reason.text()
    _shot(window, "croupier-chips-and-limit.png")


def test_the_bonus_screen_keeps_no_key_and_leaves_the_croupier_his(
    qtbot: QtBot, tables: LiveTables, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tables.start(seed=5, players=("Anna", "Bob"))
    window = _window(qtbot, table)
    bonus = BonusScreen(table)
    qtbot.addWidget(bonus)
    bonus.resize(900, 600)
    bonus.show()
    draw = demo.next_draw(table)
    table.open_bets()
    table.place_wager("Anna", inside_bet([draw.bonus_number]), Decimal(5))
    table.no_more_bets()
    tables.wheel(table, demo.wheel_result(draw.bonus_number))
    table.confirm_result()
    tables.run()
    assert table.phase is Phase.BONUS and "Anna" in bonus.panels
    panel = bonus.panels["Anna"]
    assert panel.start.isVisible()
    assert bonus.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    assert bonus.windowFlags() & Qt.WindowType.WindowDoesNotAcceptFocus
    assert panel.start.focusPolicy() == Qt.FocusPolicy.NoFocus
    assert all(b.focusPolicy() == Qt.FocusPolicy.NoFocus for b in panel.boxes)

    # A player touches the bonus screen (it becomes the active window if the system lets it), then
    # the croupier presses Space: the croupier's next action, never the bonus screen's Start button.
    qtbot.mouseClick(panel.preset_random, Qt.MouseButton.LeftButton)
    tables.run()
    QApplication.setActiveWindow(bonus)
    calls: list[str] = []
    monkeypatch.setattr(window, "do_next_action", lambda: calls.append("croupier"))
    window.keys["Space"].activated.disconnect()
    window.keys["Space"].activated.connect(window.do_next_action)
    qtbot.keyClick(bonus, Qt.Key.Key_Space)
    tables.run()
    assert calls == ["croupier"]
    assert not entries(table, E.BONUS_STARTED)  # Space pressed nothing on the bonus screen
    assert table.snapshot().bonus_games[0].status is BonusStatus.SETUP
    assert window.keys["Space"].context() == Qt.ShortcutContext.ApplicationShortcut


def test_the_players_screens_open_beside_or_on_another_monitor_never_behind() -> None:
    one = QRect(0, 0, 1920, 1080)
    croupier, display, bonus = plan(one, [], 3)
    assert not croupier.intersects(bonus), "beside the croupier window, never behind it"
    assert one.contains(bonus) and display == bonus  # the display behind the bonus screen
    assert croupier.width() >= 1300 and bonus.height() == 1080 and bonus.width() >= 420
    small = QRect(0, 0, 1366, 768)
    croupier, _, bonus = plan(small, [], 3)
    assert not croupier.intersects(bonus) and croupier.width() >= 940
    second = QRect(1920, 0, 1920, 1080)
    croupier, display, bonus = plan(one, [second], 3)
    assert one.contains(croupier) and second.contains(display) and second.contains(bonus)
    third = QRect(3840, 0, 1280, 1024)
    _, display, bonus = plan(one, [second, third], 3)
    assert second.contains(display) and third.contains(bonus)


def test_the_player_display_says_place_your_bets_only_while_bets_are_open(
    qtbot: QtBot, tables: LiveTables
) -> None:
    table = tables.start(seed=3, players=PLAYERS)
    display = PlayerDisplay(table)
    qtbot.addWidget(display)
    display.resize(1280, 720)
    display.show()
    assert display.marquee.headline()[0] == "Wait for the next round"  # not "place your bets"
    table.open_bets()
    tables.run()
    assert display.marquee.headline()[0] == "Place your bets"
    _shot(display, "player-display-place-your-bets.png")
    table.no_more_bets()
    tables.run()
    assert display.marquee.headline()[0] == "No more bets"
    assert display.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    _ = PIN
