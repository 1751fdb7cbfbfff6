"""The table service's RNG fault: a failing generator is journaled (rng.fault) and no draw is made."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.entry_types import EntryType
from engine.journal_types import read
from engine.rng import HealthFailure
from engine.store import Store
from engine.table.gate import TableTilted
from engine.table_events import RngFault
from tests.rng.test_health import Stuck
from tests.table.helpers import CROUPIER, make_service, some_wagers, spin, wheel


def test_table_journals_an_rng_fault_and_refuses_to_draw(store: Store) -> None:
    async def go() -> Any:
        svc = make_service(store)
        await svc.start()
        svc.rng.inner = Stuck()  # the source dies: every value 0
        # Round 1: its draw alone (0 from four different ranges) is not yet improbable enough.
        await wheel(svc, {"type": "started", "game": 1})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, *spin(1, 5)[1:])
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        await svc.next_round(CROUPIER)
        # Round 2: the repetition count test stops the draw.
        await wheel(svc, {"type": "started", "game": 2})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        with pytest.raises(HealthFailure, match="repetition count test"):
            await svc.no_more_bets(CROUPIER)
        with pytest.raises(TableTilted):  # still refused, by the gate now; the fault is journaled once
            await svc.no_more_bets(CROUPIER)
        # The wheel's own "no more bets" is journaled, the draw is not made.
        await wheel(svc, *spin(2)[1:])
        return svc

    svc = asyncio.run(go())
    entries = list(store.journal.entries("T1"))
    faults = [e for e in entries if e.type == EntryType.RNG_FAULT]
    assert len(faults) == 1
    fault = read(faults[0])
    assert isinstance(fault, RngFault) and fault.test == "repetition count test" and fault.rng == "seeded:7"
    assert [e.type for e in entries].count(EntryType.ROUND_BETS_CLOSED) == 1  # round 1's only
    assert EntryType.WHEEL_NO_MORE_BETS in [e.type for e in entries]
    assert svc.round.phase.value == "open"
