"""Issue 26: the surveillance page charts the wheel's rotor speed and direction per game and games per
hour (gui/floor/wheel_chart.py), from the page's games (engine.floor.surveillance's journal tail)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from pytestqt.qtbot import QtBot

from engine.floor.surveillance import JournalTail
from engine.floor.wheel_alarms import GameWatch, TableWatch, WatchSettings
from engine.store import open_store
from engine.wheel_events import WheelResult, WheelRotor
from gui.floor.wheel_chart import WheelPhysicsChart
from gui.windows.surveillance import TablePage

T0 = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)


def _games(directions: str, skip: int | None = None) -> list[GameWatch]:
    """The games as the page has them: folded by a TableWatch from the results (the result of game
    `skip` entered by hand: no wheel.result, only its rotor report)."""
    watch = TableWatch(WatchSettings(games_per_hour=0))
    for i, d in enumerate(directions):
        direction = "cw" if d == "c" else "ccw"
        time = T0 + timedelta(minutes=2 * i)
        watch.feed(WheelRotor(game=i + 1, rpm=Decimal("16.5"), direction=direction), time)
        if i + 1 != skip:
            watch.feed(WheelResult(game=i + 1, number=i, rpm=Decimal("16.5"), direction=direction), time)
    return list(watch.games)


def test_the_chart_marks_a_direction_not_reversed_and_draws_games_per_hour(qtbot: QtBot) -> None:
    chart = WheelPhysicsChart(WatchSettings(games_per_hour=40))
    qtbot.addWidget(chart)
    chart.update_data(_games("cacaacac"))
    assert chart.rpm.points == 8 and chart.rpm.not_reversed == 1  # the 5th game turned ccw again
    assert chart.rpm.low.value() == 12.5 and chart.rpm.high.value() == 20.5
    assert chart.rate.values and all(abs(v - 30.0) < 1e-9 for v in chart.rate.values)  # a game every 2 min
    assert chart.rate.target.value() == 40
    chart.update_data([])
    assert chart.rpm.points == 0 and chart.rate.values == []
    # Game 3's result entered by hand: game 4 follows game 3 (ccw then cw), not game 2 (cw), and is
    # not ringed; the one ringed is the one the alert names (the 5th, ccw again).
    chart.update_data(_games("cacaacac", skip=3))
    assert chart.rpm.points == 7 and chart.rpm.not_reversed == 1


def test_the_page_shows_the_games_its_journal_tail_read(qtbot: QtBot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    from engine.rng import SeededRng
    from engine.table.headless import HeadlessTable
    from hardware.table_bridge import table_events
    from hardware.wheel_source import open_wheel
    from tests.table.helpers import make_service

    async def play() -> None:
        with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
            svc = make_service(store, seed=5)
            await svc.start()
            async with open_wheel("sim:free", speed=250, seed=4) as link:
                await asyncio.wait_for(
                    HeadlessTable(svc, rounds=3, choices=SeededRng(3)).run(table_events(link)), 60
                )
            await svc.close()

    asyncio.run(play())
    tail = JournalTail("T1")
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
        tail.update(store)
    games = list(tail.watch.games)
    assert len(games) >= 3 and all(g.rpm is not None and g.direction in ("cw", "ccw") for g in games)
    page = TablePage()
    qtbot.addWidget(page)
    page.wheel.update_data(games)
    assert page.wheel.rpm.points == len(games)
