"""The one table model over the real table service: one push per journal batch, windows redrawing
only what the notice names, one settlement per confirmed result, the bonus countdown on the
service's clock."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from bench.screen_figures import _Counted
from engine.auth import User
from engine.bets import BetKind, inside_bet, outside_bet
from engine.rng import SeededRng
from engine.round import Phase
from engine.store import Store, open_store
from engine.table.changes import Changes
from engine.table.service import TableService
from engine.table.view import BonusStatus, TableView
from gui.table_model import TableModel
from gui.windows.bonus_screen import BonusScreen
from gui.windows.croupier import CroupierWindow

CROUPIER = User("carol", "croupier")
PLAYERS = ("anna", "bob")


class FakeClock:
    def __init__(self) -> None:
        self.now = 5_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "table.sqlite"), table="T1") as s:
        yield s


def station(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot, **kw: Any
) -> tuple[TableService, TableModel, CroupierWindow]:
    service = TableService(store, "T1", rng=SeededRng(9), allow_seeded_rng=True, claim=False, **kw)
    loop.run_until_complete(service.start())
    model = TableModel(service, CROUPIER, PLAYERS)
    window = CroupierWindow(model, PLAYERS)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    return service, model, window


def drain(loop: asyncio.AbstractEventLoop, model: TableModel) -> None:
    async def wait() -> None:
        while model.tasks:
            await asyncio.gather(*list(model.tasks), return_exceptions=True)

    loop.run_until_complete(wait())


class Redraws:
    """Counts the croupier window's redraws of each part."""

    def __init__(self, window: CroupierWindow) -> None:
        self.count: dict[str, int] = {}
        for name, owner, attr in (
            ("wagers", window.felt, "set_wagers"),
            ("draw", window.felt, "set_draw"),
            ("paying", window, "_fill_paying_list"),
            ("history", window.history, "set_history"),
            ("action", window, "_refresh_action"),
        ):
            self._spy(name, owner, attr)

    def _spy(self, name: str, owner: Any, attr: str) -> None:
        original = getattr(owner, attr)

        def spy(*args: Any, **kwargs: Any) -> Any:
            self.count[name] = self.count.get(name, 0) + 1
            return original(*args, **kwargs)

        setattr(owner, attr, spy)

    def take(self) -> dict[str, int]:
        out, self.count = self.count, {}
        return out


def test_one_push_per_command_and_the_window_redraws_only_what_it_names(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    service, model, window = station(loop, store, qtbot)
    pushes: list[tuple[Changes, TableView]] = []
    model.changed.connect(lambda changes, view: pushes.append((changes, view)))
    redraws = Redraws(window)
    loop.run_until_complete(service.open_bets(CROUPIER))
    assert len(pushes) == 1 and pushes[0][0].phase and pushes[0][1].phase is Phase.OPEN
    redraws.take()
    loop.run_until_complete(service.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5)))
    assert len(pushes) == 2 and pushes[1][0] == Changes(wagers=True)
    # A wager redraws the felt's chips and totals, not the draw, the paying list or the history.
    assert redraws.take() == {"wagers": 1}
    assert window.wagers == pushes[1][1].wagers and window.view is model.view
    loop.run_until_complete(service.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(20)))
    redraws.take()
    loop.run_until_complete(service.no_more_bets(CROUPIER))
    drawn = redraws.take()
    assert drawn.get("draw") == 1 and "wagers" not in drawn and "paying" not in drawn
    # A rotor reading is journaled but names nothing the croupier's window shows.
    loop.run_until_complete(service.wheel_event({"type": "rotor", "rpm": 24.0, "direction": "cw"}))
    assert redraws.take() == {} and window.view is model.view
    loop.run_until_complete(service.wheel_event({"type": "result", "game": None, "number": 17}))
    assert window.action.text() == "Confirm 17" and "paying" not in redraws.take()
    window.do_next_action()
    drain(loop, model)
    confirmed = redraws.take()
    assert confirmed.get("paying") == 1 and "wagers" not in confirmed and "draw" not in confirmed
    assert window.phase is Phase.RESULT and window.pay_lines == model.view.pay_lines
    loop.run_until_complete(service.settle(CROUPIER))
    assert redraws.take().get("history") == 1 and window.phase is Phase.SETTLED
    loop.run_until_complete(model.shutdown())


def test_a_confirmed_result_is_settled_once_and_the_view_built_once(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    service, model, window = station(loop, store, qtbot)
    loop.run_until_complete(service.open_bets(CROUPIER))
    for player, bet in (("anna", inside_bet([17])), ("bob", outside_bet(BetKind.RED))):
        loop.run_until_complete(service.place_wager(CROUPIER, player, bet, Decimal(5)))
    loop.run_until_complete(service.no_more_bets(CROUPIER))
    loop.run_until_complete(service.wheel_event({"type": "result", "game": None, "number": 17}))
    with _Counted() as counted:
        window.do_next_action()  # "Confirm 17"
        drain(loop, model)
        assert window.phase is Phase.RESULT and window.paying.rowCount() > 0
        assert (counted.settlements, counted.snapshots) == (1, 1)
        # Reading the view (the windows do it on every signal) never rebuilds or settles again.
        assert model.snapshot() is model.view and model.snapshot().pay_lines
        assert service.settlement() is service.settlement()
        assert (counted.settlements, counted.snapshots) == (1, 1)
    loop.run_until_complete(model.shutdown())


def test_the_bonus_countdown_is_the_services_clock(
    loop: asyncio.AbstractEventLoop, store: Store, qtbot: QtBot
) -> None:
    clock = FakeClock()
    service, model, _window = station(loop, store, qtbot, clock=clock)
    screen = BonusScreen(model)
    qtbot.addWidget(screen)
    loop.run_until_complete(service.open_bets(CROUPIER))
    loop.run_until_complete(service.place_wager(CROUPIER, "anna", inside_bet([0]), Decimal(1)))
    for i in range(6):
        six = inside_bet(range(6 * i + 1, 6 * i + 7))
        loop.run_until_complete(service.place_wager(CROUPIER, "anna", six, Decimal(1)))
    loop.run_until_complete(service.no_more_bets(CROUPIER))
    assert service.round is not None and service.round.draw is not None
    number = service.round.draw.bonus_number
    loop.run_until_complete(service.wheel_event({"type": "result", "game": None, "number": number}))
    loop.run_until_complete(service.confirm_result(CROUPIER))
    loop.run_until_complete(service.bonus_start(CROUPIER, "anna"))
    panel = screen.panels["anna"]
    seconds = service.rules.bonus_timer_seconds if service.rules else 0
    assert panel.view is not None and panel.view.deadline == clock.now + seconds
    assert panel.seconds_left() == seconds
    clock.now += 5  # no new view: the countdown follows the service's clock alone
    assert panel.seconds_left() == seconds - 5
    clock.now += seconds  # past the deadline: the panel shows zero and decides nothing
    panel._on_tick()
    assert panel.seconds_left() == 0 and panel.view.status is BonusStatus.PLAYING
    assert service.state.games["anna"].round == 1 and not hasattr(panel, "timedOut")
    loop.run_until_complete(service.tick_bonus_games())  # the service's timer applies the rule
    view = panel.view
    assert view is not None and (view.round == 2 or view.finished) and len(view.picks) == 1
    loop.run_until_complete(model.shutdown())
