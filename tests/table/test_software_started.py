"""A table journals the digest of the program it starts with (`table.started`'s `software`)."""

from __future__ import annotations

import asyncio

from engine.entry_types import EntryType
from engine.journal_types import parse, read
from engine.software_id import software_identity
from engine.store import Store
from engine.table_events import TableStarted
from tests.table.helpers import make_service


def test_table_started_carries_the_software_digest(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.close()

    asyncio.run(go())
    started = [read(e) for e in store.journal.entries("T1") if e.type == EntryType.TABLE_STARTED.value]
    assert len(started) == 1
    payload = started[0]
    assert isinstance(payload, TableStarted)
    assert payload.software == software_identity().digest


def test_old_table_started_without_digest_still_reads() -> None:
    old = {
        "station": "table-service",
        "pid": 1,
        "rng": "system",
        "recovered_to": 0,
        "round_in_play": None,
        "phase": "idle",
    }
    payload = parse(EntryType.TABLE_STARTED.value, old)
    assert isinstance(payload, TableStarted) and payload.software is None
    assert payload.to_json() == old  # written back unchanged: the chain hashes this text


def test_the_floor_reads_the_digest_of_the_last_start(store: Store) -> None:
    from engine.floor.started import last_started

    assert last_started(store, "T1") is None

    async def start_and_stop() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.close()

    asyncio.run(start_and_stop())
    asyncio.run(start_and_stop())
    started = last_started(store, "T1")
    assert started is not None and started.software == software_identity().digest
    last = [e for e in store.journal.entries("T1") if e.type == EntryType.TABLE_STARTED.value][-1]
    assert started.seq == last.seq and started.time == last.time
    assert started.text().startswith(f"software digest {software_identity().digest}, table started ")
    assert last_started(store, "T2") is None
