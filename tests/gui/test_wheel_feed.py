"""The wheel drives the real table service through the GUI's wheel feed on the qasync loop: results,
"no more bets" and the wheel's faults are journaled and act on the round."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from engine import wheel_events as ev
from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.round import Phase
from gui.app import WheelFeed
from gui.widgets.status import SensorHealth
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables, entries, journaled, now


def test_wheel_events_act_on_the_round(tables: LiveTables) -> None:
    table = tables.start(seed=2, players=("Seat 1",))
    irregular: list[str] = []
    table.irregularity.connect(irregular.append)
    table.open_bets()
    tables.run()
    tables.wheel(table, ev.WheelResult(game=1, time=now(), number=9))
    assert table.phase is Phase.OPEN and irregular and "before no more bets" in irregular[-1]
    table.place_wager("Seat 1", inside_bet([9]), Decimal(1))
    tables.wheel(table, ev.WheelNoMoreBets(game=1, time=now()))
    assert table.phase is Phase.CLOSED
    # The early result put the spin on hold: the wheel's result for it is journaled, not taken.
    assert table.snapshot().hold is not None
    tables.wheel(table, ev.WheelResult(game=1, time=now(), number=9))
    assert table.snapshot().result is None
    table.no_spin("result came before no more bets")
    tables.run()
    assert table.snapshot().hold is None
    # The re-spin: the wheel is seen launching it (state 3, then 4) before its result (issue 26).
    tables.wheel(table, ev.WheelLaunched(game=2, time=now()))
    tables.wheel(table, ev.WheelNoMoreBets(game=2, time=now()))
    tables.wheel(table, ev.WheelResult(game=2, time=now(), number=9))
    assert table.snapshot().result == 9
    assert E.ROUND_RESULT_BEFORE_CLOSE in journaled(table) and E.ROUND_NO_SPIN in journaled(table)


def test_a_miss_spin_is_journaled_and_holds_the_round(tables: LiveTables, qtbot: QtBot) -> None:
    """A miss-spin reaches the journal and puts the round on hold until a no-spin (the in-memory demo
    table only showed a message and kept no record)."""
    table = tables.start(seed=2, players=("Seat 1",))
    window = CroupierWindow(table, table.players)
    qtbot.addWidget(window)
    table.open_bets()
    table.no_more_bets()
    tables.run()
    tables.wheel(table, ev.WheelMissSpin(game=1, time=now()))
    assert "miss spin" in window.reason.text() and window.phase_label.text() == "ON HOLD"
    assert [e.payload["kind"] for e in entries(table, E.ROUND_IRREGULARITY)] == ["miss_spin"]
    tables.wheel(table, ev.WheelResult(game=1, time=now(), number=5))
    assert table.snapshot().result is None and window.action.text() == "No-spin…"


@pytest.mark.parametrize(
    ("event", "kind"),
    [
        (ev.WheelGap(game=9, time=now(), previous=3, expected=4), "gap"),
        (ev.WheelRestart(game=1, time=now(), previous=200), "restart"),
    ],
)
def test_a_gap_or_restart_of_the_wheels_counter_holds_the_spin(
    tables: LiveTables, event: ev.WheelEvent, kind: str
) -> None:
    """Games played unseen, or a power-cycled wheel, while bets are closed: the spin is doubtful (the
    in-memory demo table ignored both)."""
    table = tables.start(seed=2, players=("Seat 1",))
    table.open_bets()
    table.place_wager("Seat 1", inside_bet([9]), Decimal(1))
    table.no_more_bets()
    tables.run()
    tables.wheel(table, event)
    hold = table.snapshot().hold
    assert hold is not None and hold.startswith(kind), hold
    assert [e.payload["kind"] for e in entries(table, E.ROUND_IRREGULARITY)] == [kind]
    table.confirm_result()
    tables.run()
    assert table.phase is Phase.CLOSED


def test_the_virtual_wheel_closes_bets_and_reports_a_result(tables: LiveTables) -> None:
    table = tables.start(seed=3, players=("Seat 1",))
    health: list[SensorHealth] = []
    table.sensorHealth.connect(health.append)
    feed = WheelFeed(table, "sim:free", speed=40.0)
    table.open_bets()
    tables.run()
    feed.start()
    try:
        tables.until(lambda: table.snapshot().result is not None)
    finally:
        tables.call(feed.stop())
    assert table.phase is Phase.CLOSED  # the wheel's state 4 closed the bets
    result = table.snapshot().result
    assert result is not None and 0 <= result <= 36
    assert health and health[-1].connected and health[-1].source
    assert feed.tasks == set()
    assert E.WHEEL_NO_MORE_BETS in journaled(table) and E.WHEEL_RESULT in journaled(table)


@pytest.mark.parametrize("spec", ["serial:", "replay:"])
def test_a_bad_wheel_spec_is_a_clear_error(spec: str, tables: LiveTables) -> None:
    from engine.errors import DrrError

    feed = WheelFeed(tables.start(), spec)
    with pytest.raises(DrrError, match="needs"):
        feed.start()


def test_the_station_starts_a_commanded_wheel_and_its_result_confirms_itself(tables: LiveTables) -> None:
    """`make run`'s wheel (`sim`, commanded): the table starts the spin after the betting time and
    the clean result is confirmed by the service's clock (before: the wheel ran its own cycle)."""
    table = tables.start(seed=3, players=("Seat 1",), betting_seconds=0.3, auto_confirm_seconds=0.2)
    feed = WheelFeed(table, "sim", speed=40.0)

    async def until(condition: Any) -> None:
        for _ in range(1000):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("timed out")

    async def play() -> None:
        # One run of the loop from the wheel's start to the result (the wheel's tasks run throughout).
        feed.start()
        assert feed.driver is not None
        await until(lambda: E.WHEEL_STARTED in journaled(table))
        table.open_bets()
        await until(lambda: table.phase is Phase.OPEN and not table.tasks)
        table.place_wager("Seat 1", inside_bet([9]), Decimal(1))
        await until(lambda: table.phase is Phase.RESULT)

    try:
        tables.call(play())
    finally:
        tables.call(feed.stop())
    assert feed.driver.sent == 1
    [recorded] = entries(table, E.ROUND_RESULT)
    assert recorded.user == "timer" and recorded.payload["auto_confirmed_after"] == 0.2
    assert [e.payload["why"] for e in entries(table, E.TABLE_WHEEL_START)] == ["betting time over"]
