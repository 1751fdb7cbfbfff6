"""Issue 13, controls that could be skipped or silently weakened: a service without the one-writer
claim outside demos and tests, and a large-payout threshold journaled before the bounds existed."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from engine.bets import inside_bet
from engine.errors import DrrError
from engine.journal_types import write
from engine.store import Store
from engine.table.service import TableService
from engine.table_events import SettingsChanged
from tests.table.helpers import CROUPIER, make_service


def test_a_service_without_the_claim_is_refused_at_a_real_table(store: Store) -> None:
    # Was accepted: TableService(claim=False) with the OS generator skipped the one-writer lock.
    with pytest.raises(DrrError, match="without the one-writer claim is for demos and tests"):
        TableService(store, "T1", claim=False)
    make_service(store)  # a seeded generator on a scratch store (tests, demos, bench) still may


def _journal_old_setting(store: Store, value: str) -> None:
    # Written as an older build (before the bounds) would have: straight to the journal.
    old = SettingsChanged({"large_payout": value}, "old build", "pete", "pitboss", "next round")
    store.journal.append_many([write(old, table="T1", user="pete")])


@pytest.mark.parametrize("value", ["1e400", "0", "-5", "abc"])
def test_a_stored_threshold_out_of_bounds_keeps_approval_with_a_one_line_message(
    store: Store, value: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def go() -> None:
        svc = make_service(store, approval_threshold=Decimal(100))
        await svc.start()
        await svc.close()
        _journal_old_setting(store, value)
        svc = make_service(store, approval_threshold=Decimal(100))
        await svc.start()
        assert len(svc.warnings) == 1
        (warning,) = svc.warnings
        assert f"large_payout {value!r}" in warning or f"not {value}" in warning
        assert "\n" not in warning and "payouts of 100 or more need a pit boss's approval" in warning
        await svc.open_bets(CROUPIER)
        assert svc.approval_threshold == Decimal(100)  # not 1e400 (no approval) nor 0
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
        await svc.close()

    asyncio.run(go())
    assert any("the stored setting" in r.message for r in caplog.records)


def test_a_stored_threshold_in_bounds_is_used_without_a_message(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store, approval_threshold=Decimal(100))
        await svc.start()
        await svc.close()
        _journal_old_setting(store, "700")
        svc = make_service(store, approval_threshold=Decimal(100))
        await svc.start()
        assert svc.warnings == []
        await svc.open_bets(CROUPIER)
        assert svc.approval_threshold == Decimal(700)
        await svc.close()

    asyncio.run(go())
