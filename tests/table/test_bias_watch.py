"""The table journals its own bias alarms (issue 27): fed at every settlement with no screen open, one
alarm per fact, raised by the alert scan, restarted by an acknowledgement and by a pit boss's wheel
service; a watch made afresh (another process) takes the journaled facts as they are."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from engine.floor.actions import wheel_serviced
from engine.floor.alerts import AlertScanner, acknowledge_alert
from engine.sequential import Thresholds
from engine.store import Store, open_store
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


def test_two_watches_of_one_chain_journal_a_fact_once(store: Store) -> None:
    """An import's watch and the running table's both see the same spins (another writer of the
    chain): the one that comes second journals nothing, and takes the alarm on the chain as its own."""
    other = BiasWatch("T1", QUICK)
    other.rebuild(store)  # ready before the spin, as a watch that keeps running is
    svc = make_service(store, bias_thresholds=QUICK)

    async def go() -> None:
        await svc.start()
        await _round(svc, 1, 17)
        await svc.close()

    asyncio.run(go())
    assert [(a["pockets"], a["at_spin"]) for _s, _r, a in _alarms(store)] == [([17], 1)]
    assert other.catch_up(store, journal_append(store, "T1")) == []
    ((seq, _r, _a),) = _alarms(store)
    assert list(other.open_alarms.values()) == [f"T1:{seq}"]


def _series_alarms(store: Store) -> list[tuple[str, int, str | None]]:
    return [(a["key"], a["at_spin"], round_id) for _s, round_id, a in _alarms(store)]


def _acknowledge(store: Store, pocket: int) -> None:
    seq = max(s for s, _r, a in _alarms(store) if a["pockets"] == [pocket])
    AlertScanner().scan(store, ["T1"])
    acknowledge_alert(store, f"T1:{seq}", WATCHER, "looked at the wheel")


def test_a_restart_mid_series_journals_the_alarms_an_uninterrupted_run_does(tmp_path: Path) -> None:
    """The same spins and acknowledgements, once with one table service and once with the table
    restarted twice (once right after an acknowledgement, once with an acknowledgement made while it
    was down): the same alarms, at the same spins and rounds."""
    phases = [(5, 8, 5, 9), (8, 5, 12), (5, 12, 8, 3), (12, 4, 5)]
    acks_after = {0: 5, 2: 12}  # after phase k, the latest alarm of this pocket is acknowledged

    def run(path: Path, restart_after: set[int]) -> list[tuple[str, int, str | None]]:
        with open_store(str(path), table="T1") as store:
            svc = make_service(store, bias_thresholds=QUICK)
            asyncio.run(svc.start())
            game = 0
            for k, numbers in enumerate(phases):

                async def play(numbers: tuple[int, ...] = numbers, svc: TableService = svc) -> None:
                    nonlocal game
                    for number in numbers:
                        game += 1
                        await _round(svc, game, number)

                asyncio.run(play())
                if k in restart_after:
                    asyncio.run(svc.close())
                if k in acks_after:
                    _acknowledge(store, acks_after[k])
                if k in restart_after:
                    svc = make_service(store, bias_thresholds=QUICK)
                    asyncio.run(svc.start())
            asyncio.run(svc.close())
            return _series_alarms(store)

    uninterrupted = run(tmp_path / "one.sqlite", set())
    assert [(key, spin) for key, spin, _r in uninterrupted] == [
        ("pocket:5", 1), ("pocket:8", 2), ("pocket:9", 4),  # phase 1; pocket 5 acknowledged
        ("pocket:5", 6), ("pocket:12", 7),  # phase 2: 5 again after its acknowledgement
        ("pocket:3", 11),  # phase 3; pocket 12 acknowledged
        ("pocket:12", 12), ("pocket:4", 13),  # phase 4
    ]  # fmt: skip
    assert run(tmp_path / "restarted.sqlite", {0, 1}) == uninterrupted


def test_a_settlement_never_waits_for_the_replay_of_a_long_history(
    store: Store, tmp_path: Path, monkeypatch: Any
) -> None:
    """A table-year's replay would hold a settlement for seconds: with a history longer than the start
    replays in place, the replay runs in a worker thread (held here until the settlement is done);
    the settlement journals no alarm meanwhile, and the replay's end journals the alarm of the spin
    that settled, at its spin and round, as a watch fed spin by spin would."""
    import threading

    from engine.store.history import import_csv
    from engine.table.bias_watch import BIAS_INLINE_SPINS

    history = [n for n in range(37) if n != 17] * (BIAS_INLINE_SPINS // 36 + 2)  # 17 never came up
    csv = tmp_path / "history.csv"
    lines = ["timestamp,number"] + [f"2026-11-01T00:00:00Z,{n}" for n in history]
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_csv(store, csv, "T1", user="pete", bias_thresholds=QUICK)  # its alarms: journaled there
    before = _alarms(store)
    assert {a["pockets"][0] for _s, _r, a in before} == set(range(37)) - {17}

    gate = threading.Event()
    replays: list[str] = []
    rebuild = BiasWatch.rebuild

    def held(self: BiasWatch, st: Store) -> None:
        replays.append(threading.current_thread().name)
        assert gate.wait(30)
        rebuild(self, st)

    monkeypatch.setattr(BiasWatch, "rebuild", held)
    svc = make_service(store, bias_thresholds=QUICK)

    async def go() -> None:
        await svc.start()
        await _round(svc, 1, 17)  # settles while the replay is held
        assert not svc.bias_watch.ready and _alarms(store) == before
        gate.set()
        for _ in range(3000):
            if len(_alarms(store)) > len(before):
                break
            await asyncio.sleep(0.01)
        await svc.close()

    asyncio.run(go())
    assert len(replays) == 1 and replays[0] != threading.main_thread().name
    fresh = _alarms(store)[len(before) :]
    round_id = next(e.round_id for e in store.journal.entries("T1") if e.type == "round.settled")
    assert [(a["key"], a["at_spin"], rid) for _s, rid, a in fresh] == [
        ("pocket:17", len(history) + 1, round_id)
    ]
