"""The virtual wheel drives the table through the GUI's wheel feed on the qasync loop."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from decimal import Decimal

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from engine import wheel_events as ev
from engine.bets import inside_bet
from engine.rng import SeededRng
from gui.app import WheelFeed
from gui.local_table import LocalTable
from gui.view_model import Phase, SensorHealth


def test_wheel_events_act_on_the_round(qapp: QApplication) -> None:
    table = LocalTable(rng=SeededRng(2))
    irregular: list[str] = []
    table.irregularity.connect(irregular.append)
    now = datetime.now(UTC)
    table.open_bets()
    table.wheel_event(ev.WheelResult(game=1, time=now, number=9))
    assert table.phase is Phase.OPEN and irregular and "before no more bets" in irregular[-1]
    table.place_wager("Seat 1", inside_bet([9]), Decimal(1))
    table.wheel_event(ev.WheelNoMoreBets(game=1, time=now))
    assert table.phase is Phase.CLOSED
    table.wheel_event(ev.WheelResult(game=1, time=now, number=9))
    assert table.snapshot().result == 9
    table.wheel_event(ev.WheelMissSpin(game=1, time=now))
    assert "miss_spin" in irregular[-1]


def test_the_virtual_wheel_closes_bets_and_reports_a_result(qapp: QApplication) -> None:
    table = LocalTable(rng=SeededRng(3))
    health: list[SensorHealth] = []
    table.sensorHealth.connect(health.append)
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    feed = WheelFeed(table, "sim", speed=40.0)

    async def play() -> None:
        table.open_bets()
        feed.start()
        for _ in range(400):
            if table.snapshot().result is not None:
                break
            await asyncio.sleep(0.05)
        await feed.stop()

    try:
        loop.run_until_complete(play())
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    assert table.phase is Phase.CLOSED  # the wheel's state 4 closed the bets
    result = table.snapshot().result
    assert result is not None and 0 <= result <= 36
    assert health and health[-1].connected and health[-1].source
    assert feed.tasks == set()


@pytest.mark.parametrize("spec", ["serial:", "replay:"])
def test_a_bad_wheel_spec_is_a_clear_error(spec: str, qapp: QApplication) -> None:
    from engine.errors import DrrError

    feed = WheelFeed(LocalTable(), spec)
    with pytest.raises(DrrError, match="needs"):
        feed.start()
