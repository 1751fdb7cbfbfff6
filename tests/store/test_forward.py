"""Forwarding a table's SQLite journal to the floor store (PostgreSQL when DRR_TEST_PG_URL is set, else a
second SQLite file): in order, idempotent, surviving an unreachable server and a connection lost mid-batch;
LISTEN/NOTIFY on PostgreSQL and data_version polling on SQLite."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import exc

from engine.errors import DrrError
from engine.store import Store, open_store
from engine.store import forward as fwd
from engine.store.forward import ChainDivergence, Forwarder, Watcher, listen
from engine.store.stats import table_stats
from engine.store.verify import verify
from tests.store.conftest import PG_URL
from tests.store.helpers import play_round


def _play(store: Store, table: str, rounds: int, start: int = 0) -> None:
    for i in range(start, start + rounds):
        play_round(store, table, f"{table}-r{i}", (i * 7) % 37, paid="5.00")


def test_forward_in_order_and_idempotent(store: Store, central: Store, table_id: str) -> None:
    _play(store, table_id, 10)
    f = Forwarder(store, central, [table_id], batch=7)
    assert f.forward_once() == 50
    assert f.forward_once() == 0  # re-running sends nothing twice
    _play(store, table_id, 2, start=10)
    assert Forwarder(store, central, [table_id], batch=7).forward_once() == 10  # a fresh forwarder resumes
    assert central.journal.head(table_id) == store.journal.head(table_id)
    assert verify(central, table_id).ok
    local, remote = table_stats(store, table_id), table_stats(central, table_id)
    assert remote["counts"] == local["counts"] and remote["hold"] == local["hold"]


def test_connection_lost_mid_batch_rolls_back_and_catches_up(
    store: Store, central: Store, table_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _play(store, table_id, 6)  # 30 entries
    real_insert = fwd.insert_entries

    def failing_insert(conn: sa.Connection, entries: list[Any]) -> None:
        real_insert(conn, entries[:4])  # part of the batch is written in the transaction, then the line dies
        if conn.dialect.name == "postgresql":
            # Kill this very backend from another session: the next statement finds the socket dead.
            pid = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar()
            with central.engine.connect() as killer:
                killer.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
                killer.commit()
            real_insert(conn, entries[4:])
        else:
            raise exc.OperationalError("INSERT", {}, Exception("connection lost"))

    monkeypatch.setattr(fwd, "insert_entries", failing_insert)
    f = Forwarder(store, central, [table_id], batch=10)
    with pytest.raises(DrrError):
        f.forward_once()
    assert central.journal.head(table_id) is None  # nothing of the cut batch landed
    monkeypatch.setattr(fwd, "insert_entries", real_insert)
    assert f.forward_once() == 30
    assert verify(central, table_id).ok
    assert central.journal.head(table_id) == store.journal.head(table_id)


def test_unreachable_central_store_is_retried_by_run(store: Store, central_url: str, table_id: str) -> None:
    _play(store, table_id, 1)
    f = Forwarder(store, "postgresql://nobody@127.0.0.1:1/floor", [table_id])  # nothing listens on port 1
    stop = threading.Event()
    thread = threading.Thread(target=f.run, args=(stop,), kwargs={"interval": 0.01})
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while f.status.last_error is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert f.status.last_error is not None and "cannot reach" in f.status.last_error
        _play(store, table_id, 1, start=1)  # the table goes on meanwhile
        f.central = central_url  # the network is back
        while f.status.central_heads.get(table_id) != 10 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        thread.join(10)
    with open_store(central_url) as central:
        assert central.journal.head(table_id) == store.journal.head(table_id)
    f.close()


def test_diverging_central_chain_stops_forwarding(store: Store, central: Store, table_id: str) -> None:
    central.journal.append(table_id, "something.else", {}, round_id=None, user=None)
    _play(store, table_id, 1)
    with pytest.raises(ChainDivergence, match="does not continue"):
        Forwarder(store, central, [table_id]).forward_once()


def test_checkpoints_travel_with_the_chain(store: Store, central: Store, table_id: str) -> None:
    _play(store, table_id, 1)
    store.journal.checkpoint(table_id, "shutdown")
    Forwarder(store, central, [table_id]).forward_once()
    with central.read() as conn:
        rows = conn.execute(
            sa.text("SELECT seq, reason FROM checkpoints WHERE table_id = :t"), {"t": table_id}
        ).all()
    assert [tuple(r) for r in rows] == [(5, "shutdown")]


@pytest.mark.postgres
@pytest.mark.skipif(PG_URL is None, reason="LISTEN/NOTIFY needs the PostgreSQL of DRR_TEST_PG_URL")
def test_listen_receives_a_notification_per_forwarded_batch(
    store: Store, central: Store, table_id: str, central_url: str
) -> None:
    got: list[tuple[str, int]] = []
    listener = listen(central_url, lambda t, s: got.append((t, s)))
    try:
        assert listener.ready.wait(10)
        _play(store, table_id, 2)
        Forwarder(store, central, [table_id]).forward_once()
        deadline = time.monotonic() + 10
        while (
            table_id,
            10,
        ) not in got and time.monotonic() < deadline:  # this table's (the database is shared)
            time.sleep(0.02)
    finally:
        listener.stop()
    assert (table_id, 10) in got


def test_listen_refuses_sqlite(tmp_path: Path) -> None:
    with pytest.raises(DrrError, match="need PostgreSQL"):
        listen(f"sqlite:///{tmp_path / 'x.sqlite'}", lambda t, s: None)


def test_sqlite_watcher_sees_commits_of_another_connection(tmp_path: Path) -> None:
    path = str(tmp_path / "w.sqlite")
    with open_store(path) as writer, open_store(path) as viewer:
        watcher = Watcher(viewer)
        assert watcher.poll() == {}
        writer.journal.append("T1", "tick", {}, round_id=None, user=None)
        assert watcher.wait(5) == {"T1": 1}
        assert watcher.poll() == {}
        watcher.close()


@pytest.mark.postgres
@pytest.mark.skipif(PG_URL is None, reason="LISTEN/NOTIFY needs the PostgreSQL of DRR_TEST_PG_URL")
def test_listener_reconnects_after_its_connection_is_killed(
    store: Store, central: Store, table_id: str, central_url: str
) -> None:
    got: list[tuple[str, int]] = []
    listener = listen(central_url, lambda t, s: got.append((t, s)), channel=f"drr_{table_id}")
    forwarder = Forwarder(store, central, [table_id], channel=f"drr_{table_id}")
    try:
        assert listener.ready.wait(10)
        with central.engine.connect() as conn:
            killed = conn.execute(
                sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = :q"),
                {"q": f'LISTEN "drr_{table_id}"'},
            ).scalar()
            conn.commit()
        assert killed
        listener.ready.clear()
        deadline = time.monotonic() + 20
        while not listener.ready.wait(0.1) and time.monotonic() < deadline:
            pass
        _play(store, table_id, 1)
        forwarder.forward_once()
        # Until this table's notification of the round's 5 entries (not any table's: the database is
        # shared). It waited for a seq 10 that one round never reaches, so always the whole 20 s.
        while (table_id, 5) not in got and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        listener.stop()
    assert got == [(table_id, 5)]


@pytest.mark.postgres
@pytest.mark.skipif(PG_URL is None, reason="LISTEN/NOTIFY needs the PostgreSQL of DRR_TEST_PG_URL")
def test_a_table_writing_straight_to_postgresql_notifies_at_commit(
    central: Store, table_id: str, central_url: str
) -> None:
    got: list[tuple[str, int]] = []
    listener = listen(central_url, lambda t, s: got.append((t, s)))
    try:
        assert listener.ready.wait(10)
        central.journal.append(table_id, "tick", {}, round_id=None, user=None)
        central.journal.append(table_id, "tick", {}, round_id=None, user=None)
        deadline = time.monotonic() + 10
        while len(got) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        listener.stop()
    assert [(table_id, 1), (table_id, 2)] == [g for g in got if g[0] == table_id]
