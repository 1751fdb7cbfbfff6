"""A whole round driven through the croupier station on the real table service: wagers of every
kind placed by clicking the felt, no more bets, Lucky Numbers lit, a result, payouts equal to
`drr settle`'s; approvals and voids signed off by a pit boss with a real name and PIN."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.bets import Bet, BetKind, inside_bet, outside_bet
from engine.entry_types import EntryType as E
from engine.round import Phase
from engine.rules import default_rules_path
from engine.table.view import odds_number
from gui import cli, demo
from gui.table_model import TableModel
from gui.widgets.status import SensorHealth
from gui.windows.croupier import CroupierWindow
from gui.windows.dialogs import ManualResultDialog
from tests.gui.live import PIN, PIT_BOSS, LiveTables, entries, journaled, service_of

PLAYERS = ("Anna", "Bob", "Carla")


def every_kind(lucky: int) -> list[tuple[str, Bet]]:
    """One bet of every kind, the inside ones around a Lucky Number."""
    n = lucky if 4 <= lucky <= 32 and lucky % 3 == 2 else 17
    return [
        ("Anna", inside_bet([n])),
        ("Anna", inside_bet([n, n + 3])),
        ("Anna", inside_bet([n - 1, n, n + 1])),
        ("Bob", inside_bet([n - 1, n, n + 2, n + 3])),
        ("Bob", inside_bet(range(n - 1, n + 5))),
        ("Bob", inside_bet([0, 1, 2])),
        ("Carla", inside_bet([0, 1, 2, 3])),
        ("Carla", inside_bet([0, 2])),
        ("Carla", outside_bet(BetKind.RED)),
        ("Carla", outside_bet(BetKind.BLACK)),
        ("Anna", outside_bet(BetKind.ODD)),
        ("Anna", outside_bet(BetKind.EVEN)),
        ("Bob", outside_bet(BetKind.LOW)),
        ("Bob", outside_bet(BetKind.HIGH)),
        ("Carla", outside_bet(BetKind.DOZEN, 2)),
        ("Anna", outside_bet(BetKind.COLUMN, 2)),
    ]


Station = tuple[TableModel, CroupierWindow]


@pytest.fixture
def station(qtbot: QtBot, tables: LiveTables) -> Station:
    table = tables.start(seed=57, players=PLAYERS, approval_threshold=Decimal("100000"))
    window = CroupierWindow(table, PLAYERS)
    window.resize(1500, 950)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return table, window


def click(qtbot: QtBot, window: CroupierWindow, bet: Bet) -> None:
    qtbot.mouseClick(window.felt, Qt.MouseButton.LeftButton, pos=window.felt.spot_of(bet).toPoint())


def settle_via_cli(tmp_path: Path, table: TableModel, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    snap = table.snapshot()
    assert snap.draw is not None and snap.result is not None
    round_json = {
        "lucky": {str(n): str(x) for n, x in snap.draw.lucky.items()},
        "bonus_number": snap.draw.bonus_number,
        "result": snap.result,
        "bonus_odds": {},
        "wagers": [
            {"id": w.id, "player": w.player, "amount": str(w.amount), **w.bet.to_wire()} for w in snap.wagers
        ],
    }
    path = tmp_path / "round.json"
    path.write_text(json.dumps(round_json))
    capsys.readouterr()
    assert cli.main(["settle", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    return {w["id"]: w["payout"] for w in out["wagers"]}


def test_a_whole_round_through_the_croupier_station(
    station: Station,
    tables: LiveTables,
    qtbot: QtBot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table, window = station
    draw = demo.next_draw(table)
    lucky = max(draw.lucky, key=lambda n: draw.lucky[n])
    assert window.action.text() == "Open bets"
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
    tables.run()
    assert table.phase is Phase.OPEN and window.action.text() == "No more bets"

    plan = every_kind(lucky)
    for player, bet in plan:
        qtbot.mouseClick(window.player_buttons[player], Qt.MouseButton.LeftButton)
        qtbot.mouseClick(window.chip_buttons[Decimal(5)], Qt.MouseButton.LeftButton)
        click(qtbot, window, bet)
    tables.run()
    placed = table.snapshot().wagers
    assert [(w.player, w.bet, w.amount) for w in placed] == [(p, b, Decimal(5)) for p, b in plan]
    assert {w.bet.kind for w in placed} == set(BetKind)
    assert "Table: 80.00" in window.totals.text()

    qtbot.keyClick(window, Qt.Key.Key_Space)  # the next action: no more bets
    tables.run()
    assert table.phase is Phase.CLOSED
    assert window.felt.lucky == dict(draw.lucky) and window.felt.bonus_number == draw.bonus_number
    assert window.lucky_table.rowCount() == len(draw.lucky) + 1
    assert not window.action.isEnabled()  # waiting for the ball

    result = lucky  # the straight, split, street, corner and six line all cover it
    assert all(result in b.numbers for _, b in plan[:5])
    tables.wheel(table, demo.wheel_result(result))
    assert window.action.text() == f"Confirm {result}"
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
    tables.run()
    assert table.phase is Phase.RESULT and window.felt.result == result

    expected = settle_via_cli(tmp_path, table, capsys)
    shown = {ln.wager.id: str(ln.payout) for ln in window.pay_lines}
    assert shown == expected
    assert {ln.kind for ln in window.pay_lines} >= {"lucky", "lose"}
    # The paying list: winners only, grouped by player, largest payout first, with totals.
    cells = [[window.paying.item(r, c).text() for c in range(5)] for r in range(window.paying.rowCount())]
    players_in_order = [row[0] for row in cells if not row[0].endswith("total")]
    assert players_in_order == sorted(players_in_order, key=PLAYERS.index)
    for player in PLAYERS:
        pays = [Decimal(row[4].replace(",", "")) for row in cells if row[0] == player]
        assert pays == sorted(pays, reverse=True)
    winners = [ln for ln in window.pay_lines if ln.wins]
    grand = sum((ln.payout + ln.wager.amount for ln in winners), Decimal(0))
    assert cells[-1][0] == "Table total" and Decimal(cells[-1][4].replace(",", "")) == grand

    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)  # settle
    tables.run()
    assert table.phase is Phase.SETTLED
    history = window.history.shown
    assert history[0].number == result and history[0].lucky == (result in draw.lucky)
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)  # next round
    tables.run()
    assert table.phase is Phase.IDLE and window.felt.lucky == {} and table.snapshot().wagers == ()
    # Every step is in the table's journal, the wheel's message before the croupier's confirmation.
    types = journaled(table)
    for kind in (E.ROUND_OPENED, E.ROUND_BETS_CLOSED, E.WHEEL_RESULT, E.ROUND_RESULT, E.ROUND_SETTLED):
        assert kind in types, kind
    assert types.count(E.ROUND_WAGER_PLACED) == len(plan)


def test_clicks_outside_open_bets_are_refused_with_a_reason(
    station: Station, tables: LiveTables, qtbot: QtBot
) -> None:
    table, window = station
    click(qtbot, window, inside_bet([7]))
    tables.run()
    assert table.snapshot().wagers == ()
    assert "bets are not open" in window.reason.text()


def test_undo_clear_and_remove(station: Station, tables: LiveTables, qtbot: QtBot) -> None:
    table, window = station
    table.open_bets()
    tables.run()
    window.select_player("Bob")
    for bet in (inside_bet([1]), inside_bet([2]), outside_bet(BetKind.RED)):
        click(qtbot, window, bet)
    tables.run()
    qtbot.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
    tables.run()
    assert [w.bet for w in table.snapshot().wagers] == [inside_bet([1]), inside_bet([2])]
    qtbot.mouseClick(
        window.felt, Qt.MouseButton.RightButton, pos=window.felt.spot_of(inside_bet([1])).toPoint()
    )
    tables.run()
    assert [w.bet for w in table.snapshot().wagers] == [inside_bet([2])]
    window.select_player("Anna")
    click(qtbot, window, inside_bet([3]))
    tables.run()
    window.select_player("Bob")
    qtbot.mouseClick(window.clear_button, Qt.MouseButton.LeftButton)
    tables.run()
    assert [(w.player, w.bet) for w in table.snapshot().wagers] == [("Anna", inside_bet([3]))]


def test_table_limits_refuse_with_a_visible_reason(qtbot: QtBot, tables: LiveTables) -> None:
    text = default_rules_path().read_text() + '\n[limits]\nminimum = "1"\nmaximum_inside = "10"\n'
    table = tables.start(rules_text=text.encode(), players=PLAYERS, seed=1)
    window = CroupierWindow(table, PLAYERS)
    qtbot.addWidget(window)
    table.open_bets()
    tables.run()
    window.select_chip(Decimal(25))
    click(qtbot, window, inside_bet([9]))
    tables.run()
    assert table.snapshot().wagers == ()
    assert "above the inside maximum 10" in window.reason.text()
    assert "inside max 10.00" in window.limits.text()


def test_the_pit_bosses_table_limits_hold_from_the_next_round(qtbot: QtBot, tables: LiveTables) -> None:
    """The pit boss's table settings (minimum and maximum bet) are the croupier's limits too
    (the in-memory demo table used to skip them)."""
    from engine.auth import User
    from engine.floor.actions import change_settings

    table = tables.start(players=PLAYERS, seed=1)
    window = CroupierWindow(table, PLAYERS)
    qtbot.addWidget(window)
    changes = {"min_bet": "5", "max_bet": "100"}
    service = service_of(table)
    change_settings(service.store, service.table, changes, "VIP table", User(PIT_BOSS, "pitboss"))
    table.open_bets()
    tables.run()
    # The chips below the minimum or above the maximum are not offered (the settings' table.chips
    # under the limits in force); typed, such a wager is refused by the service with its reason.
    assert list(window.chip_buttons) == [Decimal(5), Decimal(25), Decimal(100)]
    for typed, why in (("9/1", "below the table minimum 5"), ("9/500", "above the table maximum 100")):
        window.wager_entry.setText(typed)
        window.wager_entry.submit()
        tables.run()
        assert table.snapshot().wagers == ()
        assert why in window.reason.text()
    # Issue 12: the croupier read "Limits: none set" while these were enforced.
    assert "min 5.00" in window.limits.text() and "inside max 100.00" in window.limits.text()
    assert "outside max 100.00" in window.limits.text() and "none" not in window.limits.text()
    change_settings(service.store, service.table, {"max_bet": "200"}, "busier", User(PIT_BOSS, "pitboss"))
    window.select_chip(Decimal(25))
    click(qtbot, window, inside_bet([9]))
    tables.run()
    assert [w.amount for w in table.snapshot().wagers] == [Decimal(25)]
    assert "inside max 100.00" in window.limits.text()  # the round's limits hold to its end
    assert "(from the next round: max 200.00)" in window.limits.text()
    window.resize(1600, 1000)
    window.grab().save("/tmp/floorui/croupier-limits.png")


def test_sensor_loss_and_two_step_manual_result(station: Station, tables: LiveTables, qtbot: QtBot) -> None:
    table, window = station
    table.set_sensor_health(SensorHealth(False, "serial:/dev/ttyUSB0", 31.0, ("wheel silent",)))
    assert "DISCONNECTED" in window.sensor.text.text() and "wheel silent" in window.sensor.warning.text()
    table.open_bets()
    table.no_more_bets()
    tables.run()
    assert window.manual_button.isEnabled()

    dialog = ManualResultDialog(window)
    dialog.number.setText("23")
    dialog.step()
    dialog.number.setText("32")  # a different number the second time starts again
    dialog.step()
    assert dialog.result() != dialog.DialogCode.Accepted and dialog.number_entered is None
    dialog.number.setText("23")
    dialog.step()
    dialog.number.setText("23")
    dialog.step()  # the reason is asked for: none is chosen beforehand
    assert dialog.result() != dialog.DialogCode.Accepted and "reason" in dialog.error.text()
    dialog.reason.setCurrentIndex(0)
    dialog.step()
    assert dialog.result() == dialog.DialogCode.Accepted and dialog.number_entered == 23

    table.manual_result(23, dialog.reason_text)
    tables.run()
    assert table.phase is Phase.RESULT and window.felt.result == 23
    table.settle()
    tables.run()
    assert table.snapshot().history[-1].manual
    # Both of the croupier's entries are journaled, then the result with its reason.
    types = journaled(table)
    assert types.count(E.TABLE_MANUAL_ENTRY) == 2 and E.ROUND_RESULT in types  # issue 25: was one
    first, second = entries(table, E.TABLE_MANUAL_ENTRY)
    assert first.payload["number"] == second.payload["number"] == 23


def test_no_spin_keeps_wagers_and_draw(station: Station, tables: LiveTables) -> None:
    table, window = station
    table.open_bets()
    table.place_wager("Anna", inside_bet([4]), Decimal(5))
    table.no_more_bets()
    tables.run()
    draw = table.snapshot().draw
    tables.wheel(table, demo.wheel_result(4))
    assert window.action.text() == "Confirm 4"
    table.no_spin("ball made fewer than four revolutions")
    tables.run()
    assert table.phase is Phase.CLOSED and table.snapshot().draw == draw
    assert len(table.snapshot().wagers) == 1
    assert window.action.text() == "Waiting for the ball…"
    assert "no spin" in window.reason.text()
    assert E.ROUND_NO_SPIN in journaled(table)
    # A void is the pit boss's: the croupier alone is refused, and a void needs a reason.
    table.void("wheel jammed")
    tables.run()
    assert table.phase is Phase.CLOSED and "pit boss" in window.reason.text()
    table.void("", PIT_BOSS, PIN)
    tables.run()
    assert table.phase is Phase.CLOSED and "needs a reason" in window.reason.text()


def test_large_payouts_need_approval_before_settling(qtbot: QtBot, tables: LiveTables) -> None:
    """The approval is a pit boss's, checked against the user store: a name alone, a wrong PIN or
    someone who is not a user is refused (the in-memory demo table used to take any name without a
    PIN), and the approval is journaled with who gave it."""
    table = tables.demo(demo.croupier_after_lucky_win)
    window = CroupierWindow(table, table.players)
    qtbot.addWidget(window)
    # The table total stays in sight in the list's title, even when the list has to scroll.
    wins = [ln for ln in table.snapshot().pay_lines if ln.wins]
    grand = sum((ln.payout + ln.wager.amount for ln in wins), Decimal(0))
    assert f"table pays {grand:,.2f}" in window.paying_title.text()
    # The pit boss's sign-off is the one next action; settling is refused until it is given.
    assert window.approvals and window.action.isEnabled()
    assert window.action.text() == "Pit-boss approval…"
    asked: list[bool] = []
    window.ask_approval = lambda: asked.append(True)  # type: ignore[method-assign]
    window.do_next_action()
    assert asked and table.phase is Phase.RESULT
    table.settle()
    tables.run()
    assert table.phase is Phase.RESULT and "approval" in window.reason.text()
    for name, pin in (("pit boss Paula", ""), (PIT_BOSS, ""), (PIT_BOSS, "1111"), ("nobody", PIN)):
        table.approve_payouts(name, pin)
        tables.run()
        assert window.approvals and window.action.text() == "Pit-boss approval…", (name, pin)
        assert "PIN" in window.reason.text() or "user" in window.reason.text(), window.reason.text()
    assert E.ROUND_PAYOUT_APPROVED not in journaled(table)
    table.approve_payouts(PIT_BOSS, PIN)
    tables.run()
    assert window.action.isEnabled() and window.action.text() == "Settle"
    assert [e.payload["approved_by"] for e in entries(table, E.ROUND_PAYOUT_APPROVED)] == [PIT_BOSS]
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
    tables.run()
    assert table.phase is Phase.SETTLED


def test_a_new_window_mid_round_shows_the_round_as_it_stands(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.demo(demo.croupier_after_lucky_win)
    first = CroupierWindow(table, table.players)
    qtbot.addWidget(first)
    first.close()
    again = CroupierWindow(table, table.players)
    qtbot.addWidget(again)
    snap = table.snapshot()
    assert again.phase is Phase.RESULT and again.felt.result == snap.result
    assert again.felt.lucky == dict(snap.draw.lucky) if snap.draw else False
    assert again.wagers == snap.wagers and again.pay_lines == snap.pay_lines
    assert again.paying.rowCount() == first.paying.rowCount() > 0
    QApplication.processEvents()


def test_seats_take_the_players_names_between_their_wagers(
    station: Station, tables: LiveTables, qtbot: QtBot
) -> None:
    table, window = station
    assert window.rename_seat("Anna", "  Anna   Maria ")
    assert window.players[0] == "Anna Maria" and window.player == "Anna Maria"
    assert window.player_buttons["Anna Maria"].text().startswith("Anna Maria")
    assert not window.rename_seat("Bob", "Carla") and "already sits" in window.reason.text()
    assert not window.rename_seat("Bob", " ") and "empty" in window.reason.text()
    table.open_bets()
    tables.run()
    qtbot.keyClick(window, Qt.Key.Key_1)  # the seat's key follows the new name
    assert window.player == "Anna Maria"
    window.on_bet_clicked(inside_bet([17]))
    tables.run()
    assert [w.player for w in table.snapshot().wagers] == ["Anna Maria"]
    assert not window.rename_seat("Anna Maria", "Zoe") and "has wagers in this round" in window.reason.text()
    assert window.rename_seat("Bob", "Zoe")  # a seat without wagers may be named mid-round
    assert window.styles["Zoe"] != window.styles["Anna Maria"]


def test_lucky_payouts_of_every_bet_size_shown_on_the_felt_on_demand(
    station: Station, tables: LiveTables, qtbot: QtBot
) -> None:
    table, window = station
    table.open_bets()
    table.no_more_bets()
    tables.run()
    draw = table.snapshot().draw
    assert draw is not None and not window.felt.lucky_detail
    qtbot.keyClick(window, Qt.Key.Key_L)
    assert window.felt.lucky_detail and window.lucky_button.isChecked()
    rows = window.felt.lucky_detail_rows()
    assert [int(r[0]) for r in rows] == sorted(draw.lucky)
    for row in rows:
        odds = draw.lucky[int(row[0])]
        # straight, split, street, corner, six line: the Lucky odds over the numbers covered
        assert row[1:] == tuple(f"{odds_number(odds)} to {k}" for k in (1, 2, 3, 4, 6))
    before = window.felt.grab().toImage()
    qtbot.keyClick(window, Qt.Key.Key_L)
    assert not window.felt.lucky_detail and window.felt.grab().toImage() != before


def test_keyboard_shortcuts_reach_every_action(station: Station, tables: LiveTables, qtbot: QtBot) -> None:
    table, window = station
    keys = {sc.key().toString() for sc in window.findChildren(QShortcut)}
    # Every action has its key (the dialogs' ones too: no-spin, void, manual result, approval, seat name).
    assert {"Space", "O", "N", "C", "S", "R", "M", "A", "L", "Ctrl+Shift+N", "Ctrl+Shift+V", "Ctrl+Z"} <= keys
    assert {QKeySequence("Delete").toString(), "Ctrl+E", "1", "3", "F1", "F6"} <= keys
    qtbot.keyClick(window, Qt.Key.Key_O)
    tables.run()
    assert table.phase is Phase.OPEN
    qtbot.keyClick(window, Qt.Key.Key_2)
    qtbot.keyClick(window, Qt.Key.Key_F3)
    assert window.player == "Bob" and window.chip == Decimal(25)
    window.on_bet_clicked(inside_bet([8]))
    window.on_bet_clicked(inside_bet([9]))
    tables.run()
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    tables.run()
    assert [w.bet for w in table.snapshot().wagers] == [inside_bet([8])]
    qtbot.keyClick(window, Qt.Key.Key_Delete)
    tables.run()
    assert table.snapshot().wagers == ()
    qtbot.keyClick(window, Qt.Key.Key_N)
    tables.run()
    assert table.phase is Phase.CLOSED


def test_manual_result_dialog_takes_the_number_and_enter_twice(qtbot: QtBot) -> None:
    dialog = ManualResultDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.reason.setCurrentIndex(0)  # the croupier chooses the reason
    for _ in range(2):  # type, Enter; type again, Enter: never Cancel
        qtbot.keyClicks(dialog.number, "29")
        qtbot.keyClick(dialog.number, Qt.Key.Key_Return)
    assert dialog.result() == ManualResultDialog.DialogCode.Accepted and dialog.number_entered == 29
