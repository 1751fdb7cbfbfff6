"""Issue 24, finding 1's last part: the floor's root key is provisioned on a table's PC, not trusted on
first use. Before, the first root key a table's inbox read in the floor chain was pinned, so an insider
who reached the table first (a floor chain keyed, or rewritten from entry 1, under their own root key)
had it believed for good. Now the forwarder's inbox takes no floor action until IT has pinned the root
key (`drr db root-key --pin`) or the PC holds it, says what is missing in one line, and loses nothing
meanwhile."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.auth import User
from engine.floor import actions
from engine.floor.inbox import FloorInbox, answered
from engine.store import Store, floor_sign, keys
from gui.cli import main
from tests.pg_schema import PG_URL
from tests.store.helpers import play_round
from tests.store.test_floor_insider import _floor

PAT = User("pat", "pitboss")


def _table_pc(store: Store, table: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The table's PC: a key directory holding the table's own key and witness, not the floor's root."""
    mine = tmp_path / "table-pc-keys"
    mine.mkdir(mode=0o700)
    for path in keys.key_dir().glob(f"table-{table}@{keys.store_id(store.where)}.*"):
        shutil.copy2(path, mine / path.name)
    monkeypatch.setenv("DRR_KEY_DIR", str(mine))
    keys._CACHE.clear()
    return mine


def test_no_floor_action_is_taken_until_the_root_key_is_pinned_then_it_is(
    store: Store,
    central: Store,
    table_id: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _floor(store, central, table_id)  # the admin's PC (this key directory) keys the floor chain
    with central.read() as conn:
        root = floor_sign.chain_root(conn)
    assert root is not None
    assert main(["db", "root-key", "--db", central.where]) == 0
    said = capsys.readouterr().out
    assert f"floor root key {root}" in said and "held here" in said, said
    round_id = f"{table_id}-000001"
    actions.void(central, round_id, "ball left the wheel", PAT, table=table_id)

    _table_pc(store, table_id, tmp_path, monkeypatch)
    forward = ["db", "forward", "--db", store.where, "--to", central.where, "--table", table_id, "--once"]
    assert main(forward) == 0  # the forwarder forwards, and says in one line why it takes nothing
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].startswith("drr db forward: floor actions are not taken"), printed
    inbox = FloorInbox(store, central, table_id)
    assert inbox.take() == []
    missing = str(inbox.missing)
    assert "root key is not provisioned" in missing and "\n" not in missing, missing
    assert str(floor_sign.root_pin_path(central.where)) in missing  # names the file that is missing
    assert "drr db root-key" in missing and "--pin" in missing
    assert actions.round_row(store, round_id, table_id).status == "settled"
    assert answered(store, table_id) == (0, set())  # nothing journaled: the action waits, not refused

    # IT installs the key the admin read out, while the forwarder runs: the same inbox takes the void.
    assert main(["db", "root-key", "--db", central.where, "--pin", root]) == 0
    assert "pinned at" in capsys.readouterr().out
    assert oct(floor_sign.root_pin_path(central.where).stat().st_mode & 0o777) == "0o600"
    taken = inbox.take()
    assert [(t.action, t.outcome) for t in taken] == [("round.voided", "taken")], taken
    assert inbox.missing is None
    assert actions.round_row(store, round_id, table_id).status == "void"


def test_a_second_root_key_is_not_pinned_over_the_first(
    store: Store,
    central: Store,
    table_id: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _floor(store, central, table_id)
    with central.read() as conn:
        root = floor_sign.chain_root(conn)
    assert root is not None
    _table_pc(store, table_id, tmp_path, monkeypatch)
    assert main(["db", "root-key", "--db", central.where, "--pin", root]) == 0
    assert main(["db", "root-key", "--db", central.where, "--pin", root]) == 0
    assert "was pinned already" in capsys.readouterr().out
    assert main(["db", "root-key", "--db", central.where, "--pin", "ab" * 32]) == 1
    said = capsys.readouterr().err
    assert "already pinned at" in said and "nothing changed" in said and "Traceback" not in said, said
    assert floor_sign.pinned_root(central.where) == root
    assert main(["db", "root-key", "--db", central.where, "--pin", "12zz"]) == 1
    assert "is not a root key" in capsys.readouterr().err


def test_a_floor_chain_keyed_by_whoever_reached_the_table_first_is_not_believed(
    store: Store, central: Store, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a table that had never read the floor chain pinned whatever root key it found there."""
    _floor(store, central, table_id)  # keyed by a root key this table's PC was never given
    actions.void(central, f"{table_id}-000001", "forged", PAT, table=table_id)
    _table_pc(store, table_id, tmp_path, monkeypatch)
    for _ in range(2):  # however often it reads, the key it sees is not pinned by the reading
        assert FloorInbox(store, central, table_id).take() == []
    assert not floor_sign.root_pin_path(central.where).exists()
    assert actions.round_row(store, f"{table_id}-000001", table_id).status == "settled"


def test_the_audit_on_a_table_pc_holds_the_floor_chain_against_the_pinned_root_key(
    store: Store, central: Store, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: `drr audit verify` of the floor chain on a table's PC said OK ("key not pinned") for a
    floor chain rewritten from entry 1 under an insider's own root key; the provisioned pin now pins it."""
    import sqlalchemy as sa

    from engine.store.users import add_user
    from engine.store.verify import verify

    _floor(store, central, table_id)
    with central.read() as conn:
        root = floor_sign.chain_root(conn)
    assert root is not None
    table_pc = _table_pc(store, table_id, tmp_path, monkeypatch)
    floor_sign.pin_root(central.where, root)
    assert verify(central, "floor").ok
    with central.begin() as conn:  # the insider, with their own key directory, writes a new floor chain
        conn.execute(sa.text("DELETE FROM journal WHERE table_id = 'floor'"))
        conn.execute(sa.text("DELETE FROM chain_heads WHERE table_id = 'floor'"))
        conn.execute(sa.text("DELETE FROM checkpoints WHERE table_id = 'floor'"))
        conn.execute(sa.text("DELETE FROM users"))
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "insider-keys"))
    keys._CACHE.clear()
    add_user(central, "ada", "admin", "481293", by=None)
    monkeypatch.setenv("DRR_KEY_DIR", str(table_pc))
    keys._CACHE.clear()
    report = verify(central, "floor")
    assert not report.ok and report.bad_table == "floor", report
    assert "rewritten with another key" in str(report.problem), report.problem


@pytest.mark.skipif(PG_URL is None, reason="the floor chain is keyed by a root key on PostgreSQL")
def test_a_provisioned_table_pc_does_not_key_an_emptied_floor_chain_with_a_root_of_its_own(
    store: Store, central: Store, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the floor chain emptied by someone with write access to the database, the table PC's
    forwarder keyed it again with a root key it made itself at its next floor write."""
    import sqlalchemy as sa

    from engine.errors import DrrError
    from engine.store.forward import Forwarder

    _floor(store, central, table_id)
    with central.read() as conn:
        root = floor_sign.chain_root(conn)
    assert root is not None
    table_pc = _table_pc(store, table_id, tmp_path, monkeypatch)
    floor_sign.pin_root(central.where, root)
    with central.begin() as conn:
        conn.execute(sa.text("DELETE FROM journal WHERE table_id = 'floor'"))
        conn.execute(sa.text("DELETE FROM chain_heads WHERE table_id = 'floor'"))
    play_round(store, table_id, f"{table_id}-000003", 5, paid="0.00")  # the table deals on
    with pytest.raises(DrrError) as refused:
        Forwarder(store, central, [table_id]).forward_once()  # its chain.forwarded mark: a floor write
    said = refused.value.message
    assert "is not keyed, but this PC has the floor's root key" in said and "nothing written" in said, said
    assert not list(table_pc.glob("table-floor@*.key"))  # no root key made on the table's PC


def test_a_sqlite_floor_databases_key_is_provisioned_the_same_way(
    store: Store, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.store import open_store

    with open_store(f"sqlite:///{tmp_path / 'floor.sqlite'}") as floor:
        _floor(store, floor, table_id)
        with floor.read() as conn:
            root = floor_sign.chain_root(conn)
        assert root is not None
        actions.void(floor, f"{table_id}-000001", "ball left the wheel", PAT, table=table_id)
        _table_pc(store, table_id, tmp_path, monkeypatch)
        inbox = FloorInbox(store, floor, table_id)
        assert inbox.take() == [] and "not provisioned" in str(inbox.missing)
        floor_sign.pin_root(floor.where, root)
        assert [t.outcome for t in inbox.take()] == ["taken"]
        assert actions.round_row(store, f"{table_id}-000001", table_id).status == "void"
