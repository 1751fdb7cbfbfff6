"""The wheel phase strip (issue 12 point 2): one widget on the croupier station and the player display,
fed from the table model's change notices, showing "Place your bets" with the betting countdown,
"Ball spinning", "No more bets" and the result with its auto-confirm countdown — the same on both."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from pytestqt.qtbot import QtBot

from engine import wheel_events as ev
from engine.bets import inside_bet
from gui.widgets.phase_strip import PhaseStrip
from gui.windows.croupier import CroupierWindow
from gui.windows.player_display import PlayerDisplay
from tests.gui.live import LiveTables, now, service_of


class Clock:
    def __init__(self) -> None:
        self.now = 3_000_000.0

    def __call__(self) -> float:
        return self.now


def lit(strip: PhaseStrip) -> str:
    return strip.text_of(strip.spin.step)


def test_both_screens_show_the_spins_steps_and_countdowns(
    qtbot: QtBot, tables: LiveTables, tmp_path: Path
) -> None:
    clock = Clock()
    table = tables.start(seed=4, players=("Anna",), clock=clock, betting_seconds=20, auto_confirm_seconds=5)
    croupier = CroupierWindow(table, table.players)
    display = PlayerDisplay(table)
    qtbot.addWidget(croupier)
    qtbot.addWidget(display)
    strips = (croupier.phase_strip, display.phase_strip)
    assert all(s.spin.step == "idle" for s in strips)

    tables.wheel(table, ev.WheelStarted(game=1, time=now()))
    table.open_bets()
    table.place_wager("Anna", inside_bet([17]), Decimal(5))
    tables.run()
    clock.now += 7.5
    for s in strips:
        s.redraw()  # what its four-a-second timer does
    assert [lit(s) for s in strips] == ["Place your bets · 13 s"] * 2
    out = Path("/tmp/wheel")
    out.mkdir(exist_ok=True)
    croupier.resize(1600, 1000)
    croupier.grab().save(str(out / "croupier_place_your_bets.png"))

    clock.now += 13
    tables.call(service_of(table).tick_clock())  # the service's timer: the spin is ordered
    tables.wheel(table, ev.WheelLaunched(game=1, time=now()))
    assert [lit(s) for s in strips] == ["Ball spinning"] * 2
    tables.wheel(table, ev.WheelNoMoreBets(game=1, time=now()))
    assert [lit(s) for s in strips] == ["No more bets"] * 2  # the same instant on both screens
    tables.wheel(table, ev.WheelResult(game=1, time=now(), number=17))
    # The croupier sees the countdown to the automatic confirmation; the players the number.
    assert [lit(s) for s in strips] == ["17 BLACK · confirms in 5 s", "17 BLACK"]
    assert croupier.dispute_button.isEnabled()
    display.resize(1600, 900)
    display.grab().save(str(out / "display_result_countdown.png"))

    clock.now += 5.1
    tables.call(service_of(table).tick_clock())
    tables.run()
    assert [lit(s) for s in strips] == ["17 BLACK"] * 2
    assert not croupier.dispute_button.isEnabled()
    croupier.grab().save(str(out / "croupier_result.png"))


def test_the_croupier_disputes_a_result_before_it_confirms_itself(qtbot: QtBot, tables: LiveTables) -> None:
    clock = Clock()
    table = tables.start(seed=4, players=("Anna",), clock=clock, auto_confirm_seconds=5)
    croupier = CroupierWindow(table, table.players)
    qtbot.addWidget(croupier)
    table.open_bets()
    table.no_more_bets()
    tables.run()
    tables.wheel(table, ev.WheelResult(game=None, time=now(), number=8))
    table.dispute_result("ball sits in 30")
    tables.run()
    assert croupier.phase_strip.spin.step == "hold"
    clock.now += 60
    tables.call(service_of(table).tick_clock())
    assert table.snapshot().phase.value == "closed"  # not confirmed
    assert not croupier.dispute_button.isEnabled()
