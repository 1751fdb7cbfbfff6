"""What ends a hold, as the table service enforces it: a pit boss accepts the sensor's number of this
round's spin (never another game's), enters a manual result for this round's game, acknowledges or
voids; a croupier may do none of these (engine.table.holds is the one rule)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.auth import PermissionDenied
from engine.errors import IllegalTransition
from engine.round import Phase
from engine.store import Store
from engine.table.holds import ACCEPT_SENSOR, ACKNOWLEDGE, MANUAL_RESULT, NO_SPIN, VOID, hold_remedies
from engine.table.service import TableService
from engine.table.state import Hold
from tests.table.helpers import CROUPIER, PITBOSS, make_service, some_wagers, wheel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def closed_round(store: Store, game: int = 10) -> TableService:
    svc = make_service(store)
    await svc.start()
    await wheel(svc, {"type": "started", "game": game})
    await svc.open_bets(CROUPIER)
    await some_wagers(svc)
    await wheel(svc, {"type": "launched", "game": game}, {"type": "no_more_bets", "game": game})
    return svc


def test_a_pit_boss_accepts_the_sensors_number_of_a_held_result(store: Store) -> None:
    async def go() -> TableService:
        svc = await closed_round(store)
        await wheel(svc, {"type": "result", "game": 10, "number": 17, "warnings": ["ball_slow"]})
        assert svc.state.hold is not None and svc.state.hold.kind == "result_with_warnings"
        with pytest.raises(PermissionDenied):
            await svc.accept_sensor_result(CROUPIER, "looked at the wheel")
        with pytest.raises(IllegalTransition, match="needs a reason"):
            await svc.accept_sensor_result(PITBOSS, "  ")
        await svc.accept_sensor_result(PITBOSS, "ball is in 17, checked at the wheel")
        return svc

    svc = run(go())
    assert svc.state.hold is None and svc.round is not None and svc.round.result == 17
    found = [
        e for e in store.journal.entries("T1") if e.type in ("table.irregularity_resolved", "round.result")
    ]
    assert [e.type for e in found] == ["table.irregularity_resolved", "round.result"]
    assert found[0].payload["resolution"] == "sensor_number_accepted"
    result = found[1].payload
    assert result["number"] == 17 and result["source"] == "sensor" and result["game"] == 10
    assert (
        result["confirmed_by"] == PITBOSS.name and result["reason"] == "ball is in 17, checked at the wheel"
    )


def test_another_games_number_is_never_accepted_as_this_rounds(store: Store) -> None:
    async def go() -> TableService:
        svc = await closed_round(store, game=10)
        await wheel(svc, {"type": "result", "game": 11, "number": 8})
        assert svc.state.hold is not None and svc.state.hold.kind == "unexpected_game"
        with pytest.raises(IllegalTransition, match="accept the sensor's number"):
            await svc.accept_sensor_result(PITBOSS, "looks right")
        # The pit boss enters this round's result instead (twice), for game 10.
        await svc.manual_result(PITBOSS, 5, "ball seen in 5 for game 10")
        await svc.manual_result(PITBOSS, 5, "ball seen in 5 for game 10")
        return svc

    svc = run(go())
    assert svc.round is not None and svc.round.result == 5 and svc.state.hold is None
    result = next(e for e in store.journal.entries("T1") if e.type == "round.result").payload
    assert result["source"] == "manual" and result["game"] == 10 and result["confirmed_by"] == PITBOSS.name


def test_no_hold_no_acceptance(store: Store) -> None:
    async def go() -> None:
        svc = await closed_round(store)
        await wheel(svc, {"type": "result", "game": 10, "number": 4})
        with pytest.raises(IllegalTransition, match="not on hold"):
            await svc.accept_sensor_result(PITBOSS, "fine")

    run(go())


def test_the_remedies_of_each_hold() -> None:
    warned = Hold("result_with_warnings", "result 17 with ball_slow", number=17, game=10)
    rem = hold_remedies(warned, Phase.CLOSED, 10)
    assert rem.remedies == (NO_SPIN, ACKNOWLEDGE, ACCEPT_SENSOR, MANUAL_RESULT, VOID)
    assert rem.sensor_number == 17 and "accept the sensor's 17" in rem.todo
    assert "with warnings" in rem.what and "ball_slow" in rem.what
    mismatch = hold_remedies(
        Hold("result_mismatch", "number line 3 vs status line 26", 26, 10), Phase.CLOSED, 10
    )
    assert ACKNOWLEDGE not in mismatch.remedies and ACCEPT_SENSOR not in mismatch.remedies
    assert mismatch.sensor_number is None and MANUAL_RESULT in mismatch.remedies
    other = hold_remedies(Hold("doubtful_result", "result 8 while ...", 8, 11), Phase.CLOSED, 10)
    assert ACCEPT_SENSOR not in other.remedies and "game 11" in other.refused[ACCEPT_SENSOR]
    early = hold_remedies(
        Hold("result_before_close", "wheel result 17 (game 5) before no more bets", 17), Phase.OPEN, 5
    )
    assert early.remedies == (ACKNOWLEDGE, VOID)
    assert early.todo.startswith("A pit boss signs off here")
