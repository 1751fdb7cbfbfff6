"""Issue 24, the floor bullet's remaining parts: an action whose floor entry later disappears is caught
by `drr audit verify` on the floor database (the table's `table.floor_action_taken` names it); the table
pins the floor's root key; a SQLite floor database's head signature is checked by the inbox."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.auth import User
from engine.floor import actions
from engine.floor.inbox import FloorInbox
from engine.store import Store, keys, open_store
from engine.store.users import add_user
from engine.store.verify import verify
from tests.pg_schema import PG_URL
from tests.store.test_floor_insider import _floor, _insert, _void

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


@needs_pg
def test_a_floor_chain_rewritten_under_another_root_key_is_not_believed(
    store: Store, central: Store, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the inbox believed whichever root key the floor chain's first `chain.keyed` named, each
    time: an insider who rewrote the whole floor chain from entry 1 under a root key of their own (and
    enrolled their own writer, added their own pit boss) had the table void a settled round."""
    _floor(store, central, table_id)
    assert FloorInbox(store, central, table_id).take() == []  # the table reads the floor chain: pinned
    table_keys = os.environ["DRR_KEY_DIR"]  # the table's PC (here also the admin's)
    # The insider, from another PC with a key directory of their own: the floor chain and users dropped
    # and made again from entry 1, keyed by their own root key, a pit boss of their own voiding.
    with central.begin() as conn:
        conn.execute(sa.text("DELETE FROM journal WHERE table_id = 'floor'"))
        conn.execute(sa.text("DELETE FROM chain_heads WHERE table_id = 'floor'"))
        conn.execute(sa.text("DELETE FROM users"))
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "insider-keys"))
    keys._CACHE.clear()
    ada = User("ada", "admin")
    add_user(central, "ada", "admin", "481293", by=None)
    add_user(central, "pat", "pitboss", "246824", by=ada)
    central.journal.append_many([_void(table_id, f"{table_id}-000001")])  # signed by their writer key
    monkeypatch.setenv("DRR_KEY_DIR", table_keys)  # back on the table's PC
    keys._CACHE.clear()
    taken = FloorInbox(store, central, table_id).take()
    assert [t.outcome for t in taken] == ["refused"], taken
    assert "pinned the floor's root key" in str(taken[0].why) and "rewritten" in str(taken[0].why)
    assert actions.round_row(store, f"{table_id}-000001", table_id).status == "settled"


def test_a_row_inserted_at_a_sqlite_floor_chains_tail_is_beyond_its_signed_head(
    store: Store, tmp_path: Path, table_id: str
) -> None:
    """Before: on a SQLite floor database the inbox checked only that a floor entry's hash recomputes
    and links; an insider's void appended with the head row moved on (they cannot sign it) was taken."""
    with open_store(f"sqlite:///{tmp_path / 'floor.sqlite'}") as floor:
        _floor(store, floor, table_id)
        _insert(floor, [_void(table_id, f"{table_id}-000001")], signer=None)
        taken = FloorInbox(store, floor, table_id).take()
        assert [t.outcome for t in taken] == ["refused"], taken
        assert "beyond the floor chain's signed head" in str(taken[0].why)
        assert actions.round_row(store, f"{table_id}-000001", table_id).status == "settled"
        # The genuine void after it (journaled with its head signed) is taken.
        actions.void(floor, f"{table_id}-000002", "ball left the wheel", PAT, table=table_id)
        again = FloorInbox(store, floor, table_id).take()
        assert [(t.action, t.outcome) for t in again][-1:] == [("round.voided", "taken")], again
        assert actions.round_row(store, f"{table_id}-000002", table_id).status == "void"
