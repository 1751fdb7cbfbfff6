"""The croupier station on the real table service: every fact journaled first, screens redrawn from
it, and a restart in the middle of a round shows the round where it was."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.bets import BetKind, inside_bet, outside_bet
from engine.rng import SeededRng
from engine.round import Phase
from engine.store import Store, open_store
from engine.table.service import TableService
from gui.table_model import TableModel
from gui.windows.croupier import CroupierWindow

CROUPIER = User("carol", "croupier")
PLAYERS = ("anna", "bob")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "table.sqlite"), table="T1") as s:
        yield s


def start_station(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot, authenticate: Any = None
) -> tuple[TableModel, CroupierWindow]:
    service = TableService(store, "T1", rng=SeededRng(9), allow_seeded_rng=True, claim=False)
    loop.run_until_complete(service.start())
    table = TableModel(service, CROUPIER, PLAYERS, authenticate=authenticate)
    table.refresh()
    window = CroupierWindow(table, PLAYERS)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    return table, window


def run(loop: asyncio.AbstractEventLoop, table: TableModel) -> None:
    """Let the commands the screen sent reach the service and come back as journal entries."""

    async def drain() -> None:
        while table.tasks:
            await asyncio.gather(*list(table.tasks), return_exceptions=True)

    loop.run_until_complete(drain())


def wheel(loop: asyncio.AbstractEventLoop, table: TableModel, *events: dict[str, Any]) -> None:
    for ev in events:
        loop.run_until_complete(table.service.wheel_event(ev))


def test_a_round_on_the_table_service(loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot) -> None:
    table, window = start_station(loop, store, qtbot)
    assert window.action.text() == "Open bets"
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
    run(loop, table)
    assert table.phase is Phase.OPEN and window.phase is Phase.OPEN
    for player, bet in (
        ("anna", inside_bet([17])),
        ("bob", outside_bet(BetKind.RED)),
        ("bob", inside_bet([17, 20])),
    ):
        window.select_player(player)
        qtbot.mouseClick(window.felt, Qt.MouseButton.LeftButton, pos=window.felt.spot_of(bet).toPoint())
    run(loop, table)
    assert [(w.player, w.bet) for w in window.wagers] == [
        ("anna", inside_bet([17])),
        ("bob", outside_bet(BetKind.RED)),
        ("bob", inside_bet([17, 20])),
    ]
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)  # no more bets
    run(loop, table)
    round_state = table.service.round
    assert round_state is not None and round_state.draw is not None
    assert window.felt.lucky == dict(round_state.draw.lucky)
    wheel(loop, table, {"type": "result", "game": 1, "number": 17})
    assert window.action.text() == "Confirm 17"
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
    run(loop, table)
    assert window.felt.result == 17 and window.pay_lines
    settlement = table.service.settlement()
    assert settlement is not None
    assert {ln.wager.id: ln.payout for ln in window.pay_lines} == {
        s.wager.id: s.payout for s in settlement.settlements
    }
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)  # settle
    run(loop, table)
    assert table.phase is Phase.SETTLED and window.history.shown[0].number == 17
    # A refusal comes back from the service as a visible reason.
    table.place_wager("anna", inside_bet([1]), Decimal(5))
    run(loop, table)
    assert "cannot place a wager" in window.reason.text(), window.reason.text()
    loop.run_until_complete(table.shutdown())


def test_a_restart_mid_round_shows_the_round_where_it_was(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    table, window = start_station(loop, store, qtbot)
    table.open_bets()
    run(loop, table)
    table.place_wager("anna", inside_bet([5]), Decimal(10))
    table.place_wager("bob", outside_bet(BetKind.ODD), Decimal(25))
    run(loop, table)
    table.no_more_bets()
    run(loop, table)
    draw = window.felt.lucky
    wagers = window.wagers
    loop.run_until_complete(table.shutdown())
    window.close()

    again, restored = start_station(loop, store, qtbot)
    assert restored.phase is Phase.CLOSED and restored.phase_label.text() == "NO MORE BETS"
    assert restored.felt.lucky == draw and restored.wagers == wagers
    assert restored.action.text() == "Waiting for the ball…"
    loop.run_until_complete(again.shutdown())


def test_an_irregularity_puts_the_station_on_hold_until_a_no_spin(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    table, window = start_station(loop, store, qtbot)
    table.open_bets()
    run(loop, table)
    table.place_wager("anna", inside_bet([5]), Decimal(10))
    table.no_more_bets()
    run(loop, table)
    wheel(loop, table, {"type": "miss_spin", "game": 1})
    # The croupier's way out is the big button: a no-spin (with its reason).
    assert window.phase_label.text() == "ON HOLD" and window.action.text() == "No-spin…"
    assert window.action.isEnabled() and "no-spin" in window.reason.text()
    asked: list[bool] = []
    window.ask_no_spin = lambda: asked.append(True)  # type: ignore[method-assign]
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
    assert asked
    table.no_spin("ball ran with the rotor")
    run(loop, table)
    assert window.phase_label.text() == "NO MORE BETS" and window.action.text() == "Waiting for the ball…"
    # The no-spin's own message does not claim the hold is still on.
    assert "no spin" in window.reason.text() and "on hold" not in window.reason.text()
    loop.run_until_complete(table.shutdown())


def test_a_round_with_the_virtual_wheel_end_to_end(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    """Clicks on the felt, the virtual wheel closes bets and reports the ball, the croupier confirms
    and settles; every step goes through the journal."""
    from gui.app import WheelFeed

    table, window = start_station(loop, store, qtbot)
    feed = WheelFeed(table, "sim:free", speed=40.0)

    async def until(condition: Any, seconds: float = 20.0) -> None:
        for _ in range(int(seconds / 0.02)):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("timed out")

    async def play() -> None:
        window.do_next_action()  # open bets
        await until(lambda: table.phase is Phase.OPEN and not table.tasks)
        for player, bet in (("anna", outside_bet(BetKind.RED)), ("bob", outside_bet(BetKind.BLACK))):
            window.select_player(player)
            qtbot.mouseClick(window.felt, Qt.MouseButton.LeftButton, pos=window.felt.spot_of(bet).toPoint())
        await until(lambda: len(window.wagers) == 2)
        feed.start()
        await until(lambda: window.phase is Phase.CLOSED and window.candidate is not None)
        assert window.action.text() == f"Confirm {window.candidate}"
        window.do_next_action()  # confirm
        await until(lambda: window.phase is Phase.RESULT)
        window.do_next_action()  # settle
        await until(lambda: window.phase is Phase.SETTLED)
        await feed.stop()

    loop.run_until_complete(play())
    assert window.history.shown[0].number == window.felt.result
    types = [e.type for e in store.journal.entries("T1")]
    for expected in (
        "round.opened",
        "round.wager_placed",
        "round.bets_closed",
        "wheel.result",
        "round.result",
        "round.settled",
    ):
        assert expected in types, expected
    loop.run_until_complete(table.shutdown())


def test_a_void_needs_a_pit_boss_sign_off(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    from engine.store.users import add_user, authenticate

    add_user(store, "pete", "pitboss", "246810", by=User("root", "admin"))
    table, window = start_station(
        loop, store, qtbot, lambda n, p: authenticate(store, n, p, station="croupier")
    )
    table.open_bets()
    run(loop, table)
    table.void("wheel malfunction")
    run(loop, table)
    assert table.phase is Phase.OPEN and "pit boss" in window.reason.text()
    table.void("wheel malfunction", "pete", "0000")
    run(loop, table)
    assert table.phase is Phase.OPEN and "pete" in window.reason.text()
    table.void("wheel malfunction", "pete", "246810")
    run(loop, table)
    assert table.phase is Phase.VOID and window.phase_label.text() == "VOID"
    assert window.action.text() == "Next round"
    loop.run_until_complete(table.shutdown())


def test_the_history_strip_survives_a_restart(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    table, window = start_station(loop, store, qtbot)
    for number in (7, 0):
        table.open_bets()
        run(loop, table)
        table.no_more_bets()
        run(loop, table)
        table.manual_result(number, "the sensor gave no result")
        run(loop, table)
        table.settle()
        run(loop, table)
        table.next_round()
        run(loop, table)
    assert [e.number for e in window.history.shown] == [0, 7]
    loop.run_until_complete(table.shutdown())
    window.close()

    again, restored = start_station(loop, store, qtbot)  # the service reads the history from the store
    assert [(e.number, e.manual) for e in restored.history.shown] == [(0, True), (7, True)]
    loop.run_until_complete(again.shutdown())


def test_a_bonus_game_on_the_table_service(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    """Picks and the cash-out go to the service first; the panel shows what the journal says."""
    from engine.table.view import BonusStatus
    from gui.windows.bonus_screen import BonusScreen

    table, window = start_station(loop, store, qtbot)
    screen = BonusScreen(table)
    qtbot.addWidget(screen)
    screen.show()
    table.open_bets()
    run(loop, table)
    table.place_wager("anna", inside_bet([0]), Decimal(1))  # every number covered: any Bonus Number hits
    for i in range(6):
        table.place_wager("anna", inside_bet(range(6 * i + 1, 6 * i + 7)), Decimal(1))
    run(loop, table)
    table.no_more_bets()
    run(loop, table)
    round_state = table.service.round
    assert round_state is not None and round_state.draw is not None
    table.manual_result(round_state.draw.bonus_number, "the sensor gave no result")
    run(loop, table)
    assert table.phase is Phase.BONUS and window.action.text() == "Bonus game running…"
    panel = screen.panels["anna"]
    qtbot.mouseClick(panel.start, Qt.MouseButton.LeftButton)
    run(loop, table)
    for _ in range(2):
        hidden = table.service.state.games["anna"]._hidden
        assert hidden is not None
        safe = next(i + 1 for i, c in enumerate(hidden) if c != "X")
        qtbot.mouseClick(panel.boxes[safe - 1], Qt.MouseButton.LeftButton)
        run(loop, table)
    assert panel.view is not None and panel.view.round == 3 and panel.cash_out.isEnabled()
    qtbot.mouseClick(panel.cash_out, Qt.MouseButton.LeftButton)
    run(loop, table)
    view = panel.view
    assert view is not None and view.status is BonusStatus.CASHED_OUT
    journaled = [e.type for e in store.journal.entries("T1")]
    assert journaled.count("bonus.box_picked") == 2 and "bonus.cashed_out" in journaled
    assert view.final_odds == table.service.round.bonus_odds["anna"]  # type: ignore[union-attr]
    assert view.payout is not None and view.payout > 0
    assert window.action.text() == "Settle"
    loop.run_until_complete(table.shutdown())


def test_named_seats_come_back_after_a_restart_mid_round(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    seats = ("Seat 1", "Seat 2", "Seat 3")

    def station() -> tuple[TableModel, CroupierWindow]:
        service = TableService(store, "T1", rng=SeededRng(9), allow_seeded_rng=True, claim=False)
        loop.run_until_complete(service.start())
        table = TableModel(service, CROUPIER, seats)
        table.refresh()
        window = CroupierWindow(table, seats)
        qtbot.addWidget(window)
        window.show()
        return table, window

    table, window = station()
    assert window.rename_seat("Seat 1", "Anna") and window.rename_seat("Seat 3", "Bob Marley")
    table.open_bets()
    run(loop, table)
    window.select_player("Bob Marley")
    window.on_bet_clicked(inside_bet([5]))
    run(loop, table)
    loop.run_until_complete(table.shutdown())
    window.close()

    again, restored = station()  # the window starts with the plain seat names again
    assert restored.players == ("Bob Marley", "Seat 2", "Seat 3")
    assert restored.player_buttons["Bob Marley"].text().startswith("Bob Marley")
    restored.select_player("Bob Marley")
    assert restored.player == "Bob Marley"
    qtbot.mouseClick(restored.undo_button, Qt.MouseButton.LeftButton)  # undo works for the seat
    run(loop, again)
    assert again.snapshot().wagers == ()
    loop.run_until_complete(again.shutdown())
