"""The table journals its own bias alarms (issue 27): fed at every settlement with no screen open, one
alarm per fact, raised by the alert scan, restarted by an acknowledgement and by a pit boss's wheel
service; a watch made afresh (another process) takes the journaled facts as they are."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from engine.floor.actions import wheel_serviced
from engine.floor.alerts import AlertScanner, acknowledge_alert
from engine.sequential import Thresholds
from engine.store import Store
from engine.table.bias_watch import BiasWatch, journal_append
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, PITBOSS, WATCHER, make_service, wheel

# One hit of a pocket is evidence enough here (0.41 nats a hit); the other tests never trip.
QUICK = Thresholds(pocket=0.3, sector=99, direction=99, runs=99)


async def _round(svc: TableService, game: int, number: int) -> None:
    await wheel(svc, {"type": "started", "game": game})
    await svc.open_bets(CROUPIER)
    await wheel(svc, {"type": "launched", "game": game}, {"type": "no_more_bets", "game": game})
    await wheel(svc, {"type": "result", "game": game, "number": number})
    await svc.confirm_result(CROUPIER)
    await svc.settle(CROUPIER)
    await svc.next_round(CROUPIER)


def _alarms(store: Store) -> list[tuple[int, str | None, dict[str, Any]]]:
    return [
        (e.seq, e.round_id, json.loads(e.payload_text))
        for e in store.journal.entries("T1")
        if e.type == "table.bias_alarm"
    ]


def test_a_settled_spin_trips_its_test_once_until_acknowledged_or_the_wheel_is_serviced(store: Store) -> None:
    async def play(svc: TableService, game: int, number: int) -> None:
        await _round(svc, game, number)

    svc = make_service(store, bias_thresholds=QUICK)

    async def first() -> None:
        await svc.start()
        await play(svc, 1, 17)
        await play(svc, 2, 17)  # the same fact: no second alarm

    asyncio.run(first())
    alarms = _alarms(store)
    assert [(a["test"], a["pockets"], a["at_spin"]) for _s, _r, a in alarms] == [("pocket", [17], 1)]
    seq, round_id, alarm = alarms[0]
    assert round_id is not None and "pocket 17: 1 hits in the last 1 spins" in alarm["words"]

    scanned = AlertScanner().scan(store, ["T1"])
    bias = [a for a in scanned if a.kind == "bias"]
    assert [a.alert_id for a in bias] == [f"T1:{seq}"] and "pocket 17" in bias[0].message
    acknowledge_alert(store, f"T1:{seq}", WATCHER, "looked at the wheel")

    async def second() -> None:
        await play(svc, 3, 17)  # the acknowledged test starts again: a new fact

    asyncio.run(second())
    assert [a["at_spin"] for _s, _r, a in _alarms(store)] == [1, 3]

    wheel_serviced(store, "T1", "maintenance", "ball track cleaned", PITBOSS)

    async def third() -> None:
        await play(svc, 4, 17)  # every test afresh after the service: spin 1 again
        await svc.close()

    asyncio.run(third())
    assert [a["at_spin"] for _s, _r, a in _alarms(store)] == [1, 3, 1]


def test_a_fresh_watch_replays_the_spins_and_adds_nothing_already_journaled(store: Store) -> None:
    svc = make_service(store, bias_thresholds=QUICK)

    async def go() -> None:
        await svc.start()
        for game, number in enumerate((5, 5, 8), 1):
            await _round(svc, game, number)
        await svc.close()

    asyncio.run(go())
    journaled = [(a["pockets"], a["at_spin"]) for _s, _r, a in _alarms(store)]
    assert journaled == [([5], 1), ([8], 3)]
    again = BiasWatch("T1", QUICK).catch_up(store, journal_append(store, "T1"))
    assert again == [] and len(_alarms(store)) == 2
