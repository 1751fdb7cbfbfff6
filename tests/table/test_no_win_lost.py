"""No win is ever lost (issue 12 point 3): a clean sensor result confirms itself after a few seconds
unless the croupier disputes it, on the service's one clock and journaled as auto-confirmed; a wheel
that spins anyway (free-running, its own button) never turns an accepted result into a hold."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest

from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.errors import IllegalTransition, IllegalWager
from engine.floor.recall import recall_round
from engine.store import Store
from tests.table.helpers import CROUPIER, PITBOSS, Clock, lands_on, make_service, run, spin, wheel


def types(store: Store) -> list[str]:
    return [e.type for e in store.journal.entries("T1")]


def test_the_next_spin_does_not_put_an_accepted_result_on_hold(store: Store) -> None:
    """Before: ~40 s after round 15's accepted 33, the free-running wheel's next spin (game 16) put
    the round ON HOLD ('unexpected_game'); the only ways out lost the win (a re-spin) or voided it."""

    async def go() -> None:
        svc = make_service(store)
        await lands_on(svc, 33)  # round 15 of the issue: game 15 lands on 33
        await wheel(svc, *spin(16, 7))  # nobody pressed Confirm; the wheel spun again anyway
        assert svc.state.hold is None
        assert svc.state.pending_result is not None and svc.state.pending_result.number == 33
        later = [e for e in store.journal.entries("T1") if e.type == E.WHEEL_RESULT][-1]
        # Journaled as what it is, and not the round's.
        assert later.payload["number"] == 7 and later.payload["accepted"] is False
        assert "ignored for the round" in later.payload["note"] and later.round_id is None
        await svc.confirm_result(CROUPIER)
        assert svc.round is not None and svc.round.result == 33
        await svc.close()

    run(go())


def test_a_later_spins_faults_and_warnings_do_not_hold_a_recorded_result(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await lands_on(svc, 33)  # round 15 of the issue: game 15 lands on 33
        await svc.confirm_result(CROUPIER)
        await wheel(
            svc,
            {"type": "started", "game": 16},
            {"type": "miss_spin", "game": 16},
            {"type": "warning", "game": 16, "warnings": ["result_mismatch"], "advice": "x"},
        )
        assert svc.state.hold is None and svc.round is not None and svc.round.result == 33
        await svc.close()

    run(go())


def test_a_second_result_of_the_same_game_is_still_doubtful(store: Store) -> None:
    """Only another spin is ignored: the same game reported with another number stays a hold."""

    async def go() -> None:
        svc = make_service(store)
        await lands_on(svc, 33)  # round 15 of the issue: game 15 lands on 33
        await wheel(svc, {"type": "result", "game": 15, "number": 34})
        assert svc.state.hold is not None and svc.state.hold.kind == "second_result"
        await svc.close()

    run(go())


def test_a_clean_result_is_confirmed_automatically_on_the_services_clock(store: Store) -> None:
    async def go() -> None:
        clock = Clock()
        svc = make_service(store, clock=clock, auto_confirm_seconds=5)
        await lands_on(svc, 33)  # round 15 of the issue: game 15 lands on 33
        due = [e for e in store.journal.entries("T1") if e.type == E.TABLE_AUTO_CONFIRM_DUE]
        assert [(e.payload["number"], e.payload["deadline"]) for e in due] == [(33, clock.now + 5)]
        clock.now += 4.9
        assert await svc.tick_clock() == [] and svc.phase == "closed"
        clock.now += 0.2
        entries = await svc.tick_clock()
        assert [e.type for e in entries] == [E.ROUND_RESULT]
        assert entries[0].user == "timer" and entries[0].payload["auto_confirmed_after"] == 5
        assert svc.phase == "result" and svc.round is not None and svc.round.result == 33
        assert await svc.tick_clock() == []  # once
        await svc.settle(CROUPIER)
        rec = recall_round(store, svc.round.round_id)
        assert rec.result == 33 and rec.confirmation == "confirmed automatically after 5 s (not disputed)"
        await svc.close()

    run(go())


def test_the_services_timer_confirms_without_anyone(store: Store) -> None:
    """The real timer (the service's clock is time.time here): nobody calls tick_clock."""

    async def go() -> None:
        svc = make_service(store, auto_confirm_seconds=0.2)
        await lands_on(svc, 33)  # round 15 of the issue: game 15 lands on 33
        for _ in range(300):
            if svc.phase == "result":
                break
            await asyncio.sleep(0.01)
        assert svc.phase == "result" and svc.round is not None and svc.round.result == 33
        await svc.close()

    run(go())


def test_a_disputed_result_is_not_confirmed_automatically(store: Store) -> None:
    async def go() -> None:
        clock = Clock()
        svc = make_service(store, clock=clock, auto_confirm_seconds=5)
        await lands_on(svc, 33)  # round 15 of the issue: game 15 lands on 33
        with pytest.raises(IllegalTransition, match="needs a reason"):
            await svc.dispute_result(CROUPIER, "  ")
        await svc.dispute_result(CROUPIER, "the ball sits in 36")
        hold = svc.state.hold
        assert hold is not None and hold.kind == "disputed_result" and "36" in hold.reason
        clock.now += 60
        assert await svc.tick_clock() == [] and svc.phase == "closed"
        # A pit boss enters the result the croupier saw (twice), which ends the hold.
        await svc.manual_result(PITBOSS, 36, "ball in 36 on the camera")
        await svc.manual_result(PITBOSS, 36, "ball in 36 on the camera")
        assert svc.round is not None and svc.round.result == 36
        await svc.close()

    run(go())


def test_a_restart_gives_the_croupier_the_whole_countdown_again(store: Store, tmp_path: Any) -> None:
    async def go() -> None:
        clock = Clock()
        svc = make_service(store, clock=clock, auto_confirm_seconds=5)
        await lands_on(svc, 33)  # round 15 of the issue: game 15 lands on 33
        await svc.close()
        clock.now += 3600
        again = make_service(store, clock=clock, auto_confirm_seconds=5)
        await again.start()
        assert await again.tick_clock() == [] and again.phase == "closed"
        clock.now += 5.1
        assert [e.type for e in await again.tick_clock()] == [E.ROUND_RESULT]
        await again.close()

    run(go())


def test_no_chips_after_the_ball_has_landed(store: Store) -> None:
    """Before: the wheel's result while bets were open put the round on hold, and chips were still
    accepted."""

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 5})
        await svc.open_bets(CROUPIER)
        await wheel(svc, {"type": "result", "game": 5, "number": 17})
        with pytest.raises(IllegalWager, match="on hold"):
            await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
        await svc.close()

    run(go())


def test_the_spin_under_way_as_bets_open_is_not_the_rounds(store: Store) -> None:
    """A free-running wheel already in state 3 when the croupier opens bets: its no-more-bets and
    result are journaled but belong to no round; the round's spin is the next game."""

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 8}, {"type": "launched", "game": 8})
        await svc.open_bets(CROUPIER)
        await wheel(svc, {"type": "no_more_bets", "game": 8})
        assert svc.phase == "open"
        await wheel(svc, {"type": "result", "game": 8, "number": 4})
        assert svc.phase == "open" and svc.state.hold is None
        await svc.place_wager(CROUPIER, "anna", inside_bet([9]), Decimal(5))
        await wheel(svc, *spin(9, 9))
        assert svc.state.pending_result is not None and svc.state.pending_result.game == 9
        await svc.close()

    run(go())
