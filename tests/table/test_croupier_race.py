"""Issue 25 points 1 and 2 at the engine: the auto-confirmation stops while the croupier has the
wheel's result open in a dialog (a dispute, a manual result) and a dispute made there is never
refused because the number was confirmed behind it; the wheel is started only while the round wants
its spin, after a restart too (never during a bonus game or a hold)."""

from __future__ import annotations

import asyncio
from typing import Any

from engine.entry_types import EntryType as E
from engine.store import Store
from engine.table import wheel_drive
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, Clock, cover_everything, lands_on, make_service, run, wheel


def test_the_confirmation_waits_while_the_croupier_disputes(store: Store) -> None:
    """Before: the 5 s ran on behind the Dispute dialog; the number was confirmed and the dispute then
    refused ("the round is RESULT")."""

    async def go() -> None:
        clock = Clock(3_000_000.0)
        svc = make_service(store, clock=clock, auto_confirm_seconds=5)
        await lands_on(svc, 33)
        clock.now += 3
        assert svc.hold_confirmation(CROUPIER) is True  # the Dispute dialog opens
        clock.now += 30  # the croupier takes their time to type what they see
        assert await svc.tick_clock() == [] and svc.phase == "closed"
        assert wheel_drive.next_deadline(svc.state, paused=True) is None
        await svc.dispute_result(CROUPIER, "the ball sits in 36")
        assert svc.state.hold is not None and svc.state.hold.kind == "disputed_result"
        assert await svc.resume_confirmation(CROUPIER) == []  # nothing left to confirm itself
        clock.now += 60
        assert await svc.tick_clock() == [] and svc.phase == "closed"
        await svc.close()

    run(go())


def test_a_cancelled_dialog_gives_the_whole_countdown_again(store: Store) -> None:
    async def go() -> None:
        clock = Clock(3_000_000.0)
        svc = make_service(store, clock=clock, auto_confirm_seconds=5)
        await lands_on(svc, 33)
        svc.hold_confirmation(CROUPIER)
        clock.now += 20
        assert await svc.tick_clock() == []
        [fresh] = await svc.resume_confirmation(CROUPIER)  # the croupier cancelled the dialog
        assert fresh.type == E.TABLE_AUTO_CONFIRM_DUE and fresh.user == "carol"
        assert fresh.payload["deadline"] == clock.now + 5 and fresh.payload["number"] == 33
        clock.now += 4.9
        assert await svc.tick_clock() == [] and svc.phase == "closed"
        clock.now += 0.2
        [recorded] = await svc.tick_clock()
        assert recorded.type == E.ROUND_RESULT and recorded.payload["auto_confirmed_after"] == 5
        await svc.close()

    run(go())


def test_the_services_own_timer_does_not_confirm_behind_the_dialog(store: Store) -> None:
    """The real timer on the real clock, nobody calling tick_clock: paused means paused."""

    async def go() -> None:
        svc = make_service(store, auto_confirm_seconds=0.2)
        await lands_on(svc, 33)
        svc.hold_confirmation(CROUPIER)
        await asyncio.sleep(0.6)
        assert svc.phase == "closed" and svc.round is not None and svc.round.result is None
        await svc.resume_confirmation(CROUPIER)
        for _ in range(300):
            if svc.phase == "result":
                break
            await asyncio.sleep(0.01)
        assert svc.phase == "result" and svc.round is not None and svc.round.result == 33
        await svc.close()

    run(go())


def test_a_manual_entry_begun_stops_the_sensors_confirmation(store: Store) -> None:
    async def go() -> None:
        clock = Clock(3_000_000.0)
        svc = make_service(store, clock=clock, auto_confirm_seconds=5)
        await lands_on(svc, 33)
        await svc.manual_result(CROUPIER, 36, "the sensor read the wrong pocket")
        clock.now += 10
        assert await svc.tick_clock() == [] and svc.phase == "closed"
        await svc.manual_result(CROUPIER, 36, "the sensor read the wrong pocket")
        assert svc.round is not None and svc.round.result == 36
        await svc.close()

    run(go())


async def ordered_and_launched(svc: TableService, clock: Clock) -> None:
    """Bets open on a commanded wheel, dora on every number; the betting time runs out, the table
    orders the spin and the wheel launches it."""
    await svc.start()
    await wheel(svc, {"type": "started", "game": 7})
    await svc.open_bets(CROUPIER)
    await cover_everything(svc)
    clock.now += 21
    assert [e.type for e in await svc.tick_clock()] == [E.TABLE_WHEEL_START]
    await wheel(svc, {"type": "launched", "game": 7}, {"type": "no_more_bets", "game": 7})


def restarted(store: Store, clock: Clock) -> TableService:
    return make_service(store, seed=11, clock=clock, betting_seconds=20)


def test_no_start_is_outstanding_during_a_bonus_game_after_a_restart(store: Store) -> None:
    """Before: the restarted table took the ordered spin as not launched, and the wheel driver sent
    `*u 1` once a second while the bonus game ran."""

    async def go() -> None:
        clock = Clock(3_000_000.0)
        svc = restarted(store, clock)
        await ordered_and_launched(svc, clock)
        assert svc.round is not None and svc.round.draw is not None
        await wheel(svc, {"type": "result", "game": 7, "number": svc.round.draw.bonus_number})
        await svc.confirm_result(CROUPIER)
        assert svc.phase == "bonus"
        await svc.close()
        again = restarted(store, clock)
        await again.start()
        assert again.phase == "bonus"
        assert not wheel_drive.order_outstanding(again.state), "no spin is wanted during a bonus game"
        clock.now += 100
        assert await again.tick_clock() == []
        await again.close()

    run(go())


def test_no_start_is_outstanding_during_a_hold_after_a_restart(store: Store) -> None:
    async def go() -> None:
        clock = Clock(3_000_000.0)
        svc = restarted(store, clock)
        await ordered_and_launched(svc, clock)
        await wheel(svc, {"type": "miss_spin", "game": 7})
        assert svc.state.hold is not None
        await svc.close()
        again = restarted(store, clock)
        await again.start()
        assert again.state.hold is not None
        assert not wheel_drive.order_outstanding(again.state), "no spin is wanted during a hold"
        assert await again.tick_clock() == []
        # The croupier's no-spin is what wants the re-spin: ordered then, and outstanding until launched.
        await again.no_spin(CROUPIER, "ball ran with the rotor")
        assert [e.payload["why"] for e in await again.tick_clock()] == [wheel_drive.RESPIN]
        assert wheel_drive.order_outstanding(again.state)
        await again.close()

    run(go())


def test_a_spin_still_wanted_after_a_restart_stays_outstanding(store: Store) -> None:
    """The restart rule kept for the case it was made for: the ordered ball was in the rim when the
    table stopped, no result came, so the start is sent again."""

    async def go() -> None:
        clock = Clock(3_000_000.0)
        svc = restarted(store, clock)
        await ordered_and_launched(svc, clock)
        await svc.close()
        again = restarted(store, clock)
        await again.start()
        assert wheel_drive.order_outstanding(again.state)
        await again.close()

    run(go())


class RecordingLink:
    """A wheel link that only records the commands sent (the wheel refuses none)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def command(self, text: str, timeout: float | None = None) -> Any:
        from hardware.events import CommandReply

        self.sent.append(text)
        return CommandReply(command=text, text="OK", status="ok")


def test_the_wheel_driver_sends_no_start_during_a_bonus_game_after_a_restart(store: Store) -> None:
    """The driver as the table runs it (hardware.table_bridge): attached to the restarted table it
    sent `*u 1` at once and again once a second; now it sends nothing while the bonus game runs."""
    from hardware.table_bridge import WheelDriver

    async def go() -> None:
        clock = Clock(3_000_000.0)
        svc = restarted(store, clock)
        await ordered_and_launched(svc, clock)
        assert svc.round is not None and svc.round.draw is not None
        await wheel(svc, {"type": "result", "game": 7, "number": svc.round.draw.bonus_number})
        await svc.confirm_result(CROUPIER)
        await svc.close()
        again = restarted(store, clock)
        await again.start()
        link = RecordingLink()
        driver = WheelDriver(again, link, retry_s=0.01)  # type: ignore[arg-type]
        driver.attach()
        await wheel(again, {"type": "started", "game": 8})  # the wheel waits in state 2 again
        await asyncio.sleep(0.1)
        assert link.sent == []
        await driver.close()
        await again.close()

    run(go())
