"""Issue 24, the floor bullet's remaining parts: an action whose floor entry later disappears is caught
by `drr audit verify` on the floor database (the table's `table.floor_action_taken` names it); the table
pins the floor's root key; a SQLite floor database's head signature is checked by the inbox."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.auth import User
from engine.floor import actions
from engine.floor.inbox import FloorInbox
from engine.store import Store, keys
from engine.store.verify import verify
from tests.pg_schema import PG_URL
from tests.store.test_floor_insider import _floor

PAT = User("pat", "pitboss")
needs_pg = pytest.mark.skipif(PG_URL is None, reason="the floor chain is signed entry by entry on PostgreSQL")


@needs_pg
def test_a_floor_action_cut_from_the_floor_chain_after_the_table_took_it_is_caught(
    store: Store, central: Store, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the pit boss's void taken by the table, then its floor entry cut from the floor chain's
    tail (the head put back), and the floor database's audit said OK."""
    forwarder = _floor(store, central, table_id)
    actions.void(central, f"{table_id}-000001", "ball left the wheel", PAT, table=table_id)
    taken = FloorInbox(store, central, table_id).take()
    assert [t.outcome for t in taken] == ["taken"]
    forwarder.forward_once()  # the table's answer (table.floor_action_taken) reaches the floor
    cut = taken[0].floor_seq
    with central.begin() as conn:
        prev = conn.execute(
            sa.text("SELECT seq, hash FROM journal WHERE table_id = 'floor' AND seq = :s"), {"s": cut - 1}
        ).one()
        conn.execute(sa.text("DELETE FROM journal WHERE table_id = 'floor' AND seq >= :s"), {"s": cut})
        conn.execute(
            sa.text("UPDATE chain_heads SET seq = :s, hash = :h, sig = NULL WHERE table_id = 'floor'"),
            {"s": prev.seq, "h": prev.hash},
        )
    # The audit on the admin's PC: no witness there of the station's writer key that signed the cut entries.
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "admin-keys"))
    keys._CACHE.clear()
    report = verify(central)
    assert not report.ok
    assert report.bad_table == table_id and "floor_action_taken" in (report.problem or "")
    assert f"floor entry {cut}" in (report.problem or "") and "is gone" in (report.problem or "")
