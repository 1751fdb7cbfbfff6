"""Doubtful results are never settled: each becomes a journaled irregularity that must be resolved."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.errors import IllegalTransition
from engine.store import Store
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, PITBOSS, make_service, some_wagers, spin, wheel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def closed_round(store: Store, game: int = 10) -> TableService:
    svc = make_service(store)
    await svc.start()
    await wheel(svc, {"type": "started", "game": game})
    await svc.open_bets(CROUPIER)
    await some_wagers(svc)
    await wheel(svc, {"type": "launched", "game": game}, {"type": "no_more_bets", "game": game})
    assert svc.phase == "closed"
    return svc


async def cannot_settle(svc: TableService) -> None:
    with pytest.raises(IllegalTransition):
        await svc.confirm_result(CROUPIER)
    with pytest.raises(IllegalTransition):
        await svc.settle(CROUPIER)
    assert svc.phase in ("open", "closed")


def settled_count(store: Store) -> int:
    return sum(1 for e in store.journal.entries("T1") if e.type == "round.settled")


def test_result_before_no_more_bets_is_an_irregularity(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 5})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await wheel(svc, {"type": "result", "game": 5, "number": 17})
        assert svc.phase == "open" and svc.state.hold is not None
        assert svc.state.hold.kind == "result_before_close"
        await cannot_settle(svc)
        # Closing is still possible, but no result counts until the pit boss resolves the hold.
        await wheel(svc, {"type": "started", "game": 6}, {"type": "no_more_bets", "game": 6})
        await wheel(svc, {"type": "result", "game": 6, "number": 3})
        assert svc.state.pending_result is None
        await cannot_settle(svc)
        await svc.resolve_irregularity(PITBOSS, "ball dropped early; spin again")
        await wheel(svc, {"type": "result", "game": 6, "number": 3})
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        assert svc.round is not None and svc.round.result == 3

    run(go())
    kinds = [e.type for e in store.journal.entries("T1")]
    assert "round.result_before_close" in kinds and "table.irregularity_resolved" in kinds
    assert settled_count(store) == 1


def test_result_for_an_unexpected_game_number_is_held(store: Store) -> None:
    async def go() -> TableService:
        svc = await closed_round(store, game=10)
        await wheel(svc, {"type": "result", "game": 11, "number": 8})
        assert svc.state.hold is not None and svc.state.hold.kind == "unexpected_game"
        assert svc.state.pending_result is None
        await cannot_settle(svc)
        # The croupier calls a no-spin: same wagers and draw, the ball is spun again.
        draw = svc.round.draw  # type: ignore[union-attr]
        await svc.no_spin(CROUPIER, "result from another game")
        assert svc.state.hold is None and svc.round.draw == draw  # type: ignore[union-attr]
        await wheel(svc, {"type": "launched", "game": 12}, {"type": "result", "game": 12, "number": 9})
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        return svc

    svc = run(go())
    assert svc.round is not None and svc.round.result == 9 and svc.round.no_spins == 1
    assert settled_count(store) == 1


@pytest.mark.parametrize("fault", ["miss_spin", "launch_failed", "ball_not_detected"])
def test_wheel_faults_after_close_hold_the_round(store: Store, fault: str) -> None:
    async def go() -> TableService:
        svc = await closed_round(store, game=20)
        await wheel(svc, {"type": fault, "game": 20})
        assert svc.state.hold is not None and svc.state.hold.kind == fault
        await wheel(svc, {"type": "result", "game": 20, "number": 4})  # the doubtful spin's number
        assert svc.state.pending_result is None
        await cannot_settle(svc)
        await svc.no_spin(CROUPIER, f"{fault} on game 20")
        # The wheel's late result of the cancelled game does not count for the re-spin.
        await wheel(svc, {"type": "result", "game": 20, "number": 4})
        assert svc.state.pending_result is None and svc.state.hold is None
        await wheel(svc, {"type": "launched", "game": 21}, {"type": "result", "game": 21, "number": 30})
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        return svc

    svc = run(go())
    assert svc.round is not None and svc.round.result == 30
    irregular = [e for e in store.journal.entries("T1") if e.type == "round.irregularity"]
    assert irregular[0].payload["kind"] == fault
    assert settled_count(store) == 1


@pytest.mark.parametrize("fault", ["miss_spin", "launch_failed"])
def test_a_fault_while_bets_are_open_needs_the_pit_boss(store: Store, fault: str) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 2})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await wheel(svc, {"type": "launched", "game": 2}, {"type": fault, "game": 2})
        assert svc.state.hold is not None
        await wheel(svc, {"type": "no_more_bets", "game": 2}, {"type": "result", "game": 2, "number": 1})
        await cannot_settle(svc)
        await svc.void(PITBOSS, f"{fault}: the wheel is checked")
        assert svc.phase == "void" and svc.state.hold is None

    run(go())
    assert settled_count(store) == 0


def test_a_pit_boss_may_enter_the_result_of_a_held_spin(store: Store) -> None:
    async def go() -> TableService:
        svc = await closed_round(store, game=30)
        await wheel(svc, {"type": "result", "game": 99, "number": 8})
        with pytest.raises(IllegalTransition, match="on hold"):
            await svc.manual_result(CROUPIER, 8, "seen on camera")
        await svc.manual_result(PITBOSS, 8, "seen on camera")
        await svc.manual_result(PITBOSS, 8, "seen on camera")
        await svc.settle(CROUPIER)
        return svc

    svc = run(go())
    assert svc.round is not None and svc.round.result_source == "manual" and svc.phase == "settled"


def test_a_result_with_warnings_is_held(store: Store) -> None:
    async def go() -> TableService:
        svc = await closed_round(store, game=3)
        await wheel(svc, {"type": "result", "game": 3, "number": 8, "warnings": ["same_direction"]})
        await cannot_settle(svc)
        return svc

    svc = run(go())
    assert svc.state.hold is not None and svc.state.hold.kind == "result_with_warnings"


def test_bad_wheel_events_are_refused_with_a_reason(store: Store) -> None:
    from engine.errors import DrrError

    async def go() -> None:
        svc = await closed_round(store)
        for bad, why in (
            ({"type": "explode"}, "unknown wheel event"),
            ({"type": "result", "number": 40}, "not a number 0-36"),
            ({"type": "result", "number": 3, "game": "x"}, "not a game number"),
        ):
            with pytest.raises(DrrError, match=why):
                await svc.wheel_event(bad)
        assert svc.state.pending_result is None
        # A double-zero pocket cannot come from this wheel: the spin is doubtful, not a result.
        await svc.wheel_event({"type": "result", "number": 37, "game": 10})
        assert svc.state.pending_result is None
        assert svc.state.hold is not None and svc.state.hold.kind == "ball_not_detected"

    run(go())


def test_spin_helper_round_trip(store: Store) -> None:
    """A plain fake-wheel game from start to result settles exactly once."""

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 1})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await wheel(svc, *spin(1, 0)[1:])
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        with pytest.raises(IllegalTransition):
            await svc.settle(CROUPIER)

    run(go())
    assert settled_count(store) == 1


def test_after_a_wheel_restart_a_recurring_game_number_counts_again(store: Store) -> None:
    """A no-spin cancels game 5's late result; after the wheel restarts, its counter may reach 5 again
    and that new game's result is the re-spin's."""

    async def go() -> TableService:
        svc = await closed_round(store, game=5)
        await wheel(svc, {"type": "restart", "game": 1, "previous": 5})
        assert svc.state.hold is not None and svc.state.hold.kind == "restart"
        await svc.no_spin(CROUPIER, "the wheel restarted mid-spin")
        cancelled = next(e for e in store.journal.entries("T1") if e.type == "round.no_spin")
        assert cancelled.payload["game"] == 5  # the spin that was cancelled, not the new counter
        await wheel(svc, {"type": "result", "game": 5, "number": 2})  # the old spin, late
        assert svc.state.pending_result is None
        await wheel(svc, {"type": "restart", "game": 1, "previous": 4})  # again: doubtful again
        await svc.no_spin(CROUPIER, "the wheel restarted again")
        await wheel(svc, {"type": "launched", "game": 5}, {"type": "result", "game": 5, "number": 11})
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        return svc

    svc = run(go())
    assert svc.round is not None and svc.round.result == 11
