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
