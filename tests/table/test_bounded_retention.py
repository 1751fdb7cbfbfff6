"""What a table service and a follower keep stays bounded over many rounds: objects counted (issue 28)."""

from __future__ import annotations

import asyncio
import gc
import types
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import engine.table.read_model
from engine.floor.demo import START, DemoClock, _DemoTable
from engine.rng import SeededRng
from engine.store import Store, open_store
from engine.table.follower import JournalFollower
from engine.table.service import TableService

KEPT = 5  # the history strip shortened from 500 results: it is full after a few rounds
# Rounds before the first count (the strip full, the RNG's health tests met every range the bonus
# games draw from: one stream per range, engine.rng.HealthTestedRng), rounds between the counts.
WARM, MORE = 24, 36
BONUS_EVERY = 3

# Shared by every table and not the service's own (the code, the classes, the modules).
_SHARED = (types.ModuleType, type, types.FunctionType, types.CodeType, types.BuiltinFunctionType)
# SQLAlchemy's engine and the database drivers: their caches are their own, bounded (SQLAlchemy's
# compiled statements: an LRU of 500), and fill as new statements are first run.
_DRIVERS = ("sqlalchemy", "sqlite3", "psycopg")


def reachable(roots: Iterable[Any]) -> Counter[str]:
    """Every object reachable from `roots` (the code, the classes and the database layer excepted),
    counted by type."""
    seen: set[int] = set()
    counts: Counter[str] = Counter()
    todo = list(roots)
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, _SHARED) or type(obj).__module__.startswith(_DRIVERS):
            continue
        seen.add(id(obj))
        counts[type(obj).__name__] += 1
        todo.extend(gc.get_referents(obj))
    return counts


def test_a_service_and_a_follower_keep_no_more_after_many_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table plays WARM rounds, is counted, plays MORE, is counted again: the objects reachable from
    its TableService (fold, read model, journal, store, bias watch, subscribers) and from a
    JournalFollower of the same table grow by less than one per round. A list or dict kept per
    round, entry or wager would grow by MORE or more."""
    monkeypatch.setattr(engine.table.read_model, "HISTORY_KEPT", KEPT)

    async def main() -> tuple[Counter[str], Counter[str]]:
        store: Store = open_store(str(tmp_path / "t.sqlite"), table="B1", durable=False)
        clock = DemoClock(START.timestamp())
        svc = TableService(
            store,
            "B1",
            rng=SeededRng("bounded-game"),
            allow_seeded_rng=True,
            clock=clock,
            stamp_with_clock=True,
            station="test",
        )
        shown: list[int] = []
        svc.subscribe_batches(lambda entries, _c, view: shown.append(len(entries)))  # a screen's path
        await svc.start()
        follower = JournalFollower(store, "B1")
        follower.subscribe_batches(lambda entries, _c, view: None)
        demo = _DemoTable(svc, clock, SeededRng("bounded"), datetime.fromtimestamp(clock.now, START.tzinfo))

        async def play(first: int, count: int) -> None:
            for i in range(first, first + count):
                await demo.play(i, hit_bonus=i % BONUS_EVERY == BONUS_EVERY - 1)
                follower.poll()
                # The loop runs between rounds, as between a wheel's events (a bonus timer cancelled
                # before it ever ran ends only when the loop next steps it).
                await asyncio.sleep(0)

        try:
            await play(0, WARM)
            gc.collect()
            before = reachable([svc, follower])
            await play(WARM, MORE)
            gc.collect()
            after = reachable([svc, follower])
        finally:
            await svc.close()
            await follower.close()
            store.close()
        assert sum(shown) > MORE * 5  # the rounds were played and shown
        return before, after

    before, after = asyncio.run(main())
    grown = {name: after[name] - before[name] for name in after if after[name] - before[name] > 0}
    assert sum(grown.values()) < MORE, sorted(grown.items(), key=lambda kv: -kv[1])[:10]
