"""Issue 13 item 1: a number line and a status line that disagree hold the round before settling."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine.errors import IllegalTransition
from engine.store import Store
from engine.table.service import TableService
from engine.wheel_events import WheelEvent
from hardware.protocol import get_protocol
from tests.table.helpers import CROUPIER, PITBOSS, make_service, some_wagers

T0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def feed(svc: TableService, protocol: Any, lines: list[str], start: int) -> None:
    for i, line in enumerate(lines):
        for ev in protocol.feed_line(line, T0 + timedelta(seconds=0.5 * (start + i))):
            if isinstance(ev, WheelEvent):
                await svc.wheel_event(ev)


async def mismatched_round(store: Store) -> TableService:
    svc = make_service(store)
    await svc.start()
    protocol = get_protocol("ss2")
    await feed(svc, protocol, ["*X;2;013;07;0;250;0"], 0)
    await svc.open_bets(CROUPIER)
    await some_wagers(svc)
    await feed(svc, protocol, ["*X;3;013;07;0;250;0", "*X;4;013;07;0;250;0"], 1)
    assert svc.phase == "closed"
    # The reproduction: the bare number line " 18", then status lines saying 19.
    await feed(svc, protocol, [" 18", "*X;5;013;19;0;250;0", "*X;5;013;19;0;250;0"], 3)
    return svc


def kinds(store: Store) -> list[str]:
    return [e.type for e in store.journal.entries("T1")]


def test_number_line_and_status_line_disagreeing_hold_the_round(store: Store) -> None:
    async def go() -> None:
        svc = await mismatched_round(store)
        assert svc.state.hold is not None and svc.state.hold.kind == "result_mismatch"
        assert svc.state.pending_result is None
        with pytest.raises(IllegalTransition):
            await svc.confirm_result(CROUPIER)
        with pytest.raises(IllegalTransition):
            await svc.settle(CROUPIER)
        # A plain acknowledgement does not end it: the result is still unknown.
        with pytest.raises(IllegalTransition, match="doubtful"):
            await svc.resolve_irregularity(PITBOSS, "looks fine")
        # A confirmed manual result (two entries) does.
        await svc.manual_result(PITBOSS, 18, "read the pocket: 18")
        await svc.manual_result(PITBOSS, 18, "read the pocket: 18")
        await svc.settle(CROUPIER)
        assert svc.round is not None and svc.round.result == 18

    run(go())
    journal = kinds(store)
    hold = journal.index("round.irregularity")
    assert "round.result" in journal and journal.index("round.result") > hold
    assert journal.index("round.settled") > hold
    results = [e for e in store.journal.entries("T1") if e.type == "round.result"]
    assert [e.payload.get("number") for e in results] == [18]


@pytest.mark.parametrize("how", ["no_spin", "void"])
def test_a_no_spin_or_a_void_ends_the_mismatch_hold(store: Store, how: str) -> None:
    async def go() -> None:
        svc = await mismatched_round(store)
        if how == "no_spin":
            await svc.no_spin(CROUPIER, "number line and status line disagree")
        else:
            await svc.void(PITBOSS, "number line and status line disagree")
        assert svc.state.hold is None

    run(go())
    assert "round.settled" not in kinds(store)


def test_a_mismatch_warning_after_an_accepted_result_holds_too(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.wheel_event({"type": "started", "game": 4})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await svc.wheel_event({"type": "launched", "game": 4})
        await svc.wheel_event({"type": "no_more_bets", "game": 4})
        await svc.wheel_event({"type": "result", "game": 4, "number": 19})
        await svc.wheel_event({"type": "warning", "game": 4, "warnings": ["result_mismatch"]})
        assert svc.state.hold is not None and svc.state.hold.kind == "result_mismatch"
        with pytest.raises(IllegalTransition):
            await svc.confirm_result(CROUPIER)

    run(go())
    assert "round.settled" not in kinds(store)
