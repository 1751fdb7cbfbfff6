"""Issue 25 point 6: the silent-table alert says whether the round waits for a pit boss (a hold) or
for the wheel. It said "bets are closed and no result is in (waiting for the wheel, or on hold for a
pit boss)" for both: the officer could not tell a stuck wheel from a hold nobody had come to."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from engine.floor.alerts import AlertScanner
from engine.store import Store
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, PITBOSS, make_service, some_wagers, wheel

LATER = timedelta(hours=2)  # well past any silent limit


def silent_words(store: Store) -> list[str]:
    last = max(e.time for e in store.journal.entries("T1"))
    now = datetime.strptime(last, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC) + LATER
    alerts = AlertScanner(silent_after=timedelta(minutes=10)).scan(store, ["T1"], now=now)
    return [a.message for a in alerts if a.kind == "table silent"]


async def closed(store: Store) -> TableService:
    svc = make_service(store)
    await svc.start()
    await wheel(svc, {"type": "started", "game": 20})
    await svc.open_bets(CROUPIER)
    await some_wagers(svc)
    await wheel(svc, {"type": "launched", "game": 20}, {"type": "no_more_bets", "game": 20})
    return svc


def test_a_round_waiting_for_the_wheel_says_so(store: Store) -> None:
    async def go() -> None:
        svc = await closed(store)
        await svc.close()

    asyncio.run(go())
    [words] = silent_words(store)
    assert "waiting for the wheel" in words and "hold" not in words, words


def test_a_round_on_hold_says_it_waits_for_a_pit_boss_and_why(store: Store) -> None:
    async def go() -> None:
        svc = await closed(store)
        await wheel(svc, {"type": "miss_spin", "game": 20})
        assert svc.state.hold is not None
        await svc.close()

    asyncio.run(go())
    [words] = silent_words(store)
    assert "on hold for a pit boss: the wheel reported a miss-spin" in words, words
    assert "waiting for the wheel" not in words


def test_a_hold_resolved_waits_for_the_wheel_again(store: Store) -> None:
    async def go() -> None:
        svc = await closed(store)
        await wheel(svc, {"type": "miss_spin", "game": 20})
        await svc.resolve_irregularity(PITBOSS, "ball checked, spin again")
        assert svc.state.hold is None and svc.phase == "closed"
        await svc.close()

    asyncio.run(go())
    [words] = silent_words(store)
    assert "waiting for the wheel" in words and "hold" not in words, words


def test_a_result_before_no_more_bets_is_a_hold_while_bets_are_open(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 5})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await wheel(svc, {"type": "result", "game": 5, "number": 17})
        assert svc.phase == "open" and svc.state.hold is not None
        await svc.close()

    asyncio.run(go())
    [words] = silent_words(store)
    assert "on hold for a pit boss: the wheel reported a result before no more bets" in words, words
