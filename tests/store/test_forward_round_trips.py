"""A live forward to PostgreSQL sends the forwarder's own work as two statements (issue 28).

On the live floor a table commits every few seconds and each commit is forwarded as it comes: a batch
of one or a few entries. Besides the entries and their projections (the journal's insert), each such
batch sent the head's row insert-if-missing, its locked read, the head's advance, the signed head's
last kept row, its signature on the head row, and `pg_notify`: six or seven round trips of the floor
transaction, each one a wait on a loaded server, in front of every tile on the surveillance wall. Now:
the locked head read, and one statement advancing and signing the head, keeping the signed head and
NOTIFYing. Counted with SQLAlchemy's `before_cursor_execute`, the entries' own statements left out;
what reaches the floor (head, signature, kept signed heads, the notification) is checked too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine.floor.demo import play_rounds
from engine.store import Store, open_store, schema
from engine.store import forward as forward_module
from engine.store.forward import Forwarder, listen
from engine.store.verify import verify
from tests.pg_schema import PG_URL

pytestmark = pytest.mark.skipif(PG_URL is None, reason="needs DRR_TEST_PG_URL (the floor's PostgreSQL)")


class _Sent:
    """The statements the forwarder itself sends to the floor (the entries' insert left out)."""

    def __init__(self, floor: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.statements: list[str] = []
        self._inserting = False
        real = forward_module.insert_entries

        def insert(*args: Any, **kw: Any) -> None:
            self._inserting = True
            try:
                real(*args, **kw)
            finally:
                self._inserting = False

        monkeypatch.setattr(forward_module, "insert_entries", insert)
        sa.event.listen(floor.engine, "before_cursor_execute", self._count)

    def _count(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if not self._inserting:
            self.statements.append(" ".join(statement.split()))

    def take(self) -> list[str]:
        out, self.statements = self.statements, []
        return out


@pytest.fixture
def floor(central: Store) -> Iterator[Store]:
    if central.is_sqlite:
        pytest.skip("the floor's statements are counted on PostgreSQL")
    yield central


def _head(store: Store, table: str) -> tuple[int, str, str | None]:
    h = schema.chain_heads
    with store.read() as conn:
        row = conn.execute(sa.select(h.c.seq, h.c.hash, h.c.sig).where(h.c.table_id == table)).one()
    return int(row.seq), row.hash, row.sig


def _kept(floor: Store, table: str) -> list[int]:
    t = schema.signed_heads
    with floor.read() as conn:
        return [
            int(s) for (s,) in conn.execute(sa.select(t.c.seq).where(t.c.table_id == table).order_by(t.c.seq))
        ]


def _checkpoints(store: Store, table: str) -> list[tuple[Any, ...]]:
    cps = schema.checkpoints
    with store.read() as conn:
        rows = conn.execute(sa.select(cps).where(cps.c.table_id == table).order_by(cps.c.seq))
        return [tuple(row) for row in rows]


def test_a_live_forward_sends_two_statements_of_its_own(
    tmp_path: Path, floor: Store, central_url: str, table_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    got: list[tuple[str, int]] = []
    listener = listen(central_url, lambda t, s: got.append((t, s)))
    try:
        assert listener.ready.wait(10)
        with open_store(str(tmp_path / "t.sqlite"), table=table_id) as local:
            play_rounds(local, table_id, 2)
            forwarder = Forwarder(local, floor, [table_id], keep_every_s=0)
            forwarder.forward_once()  # the first batch also marks the copy on the floor chain
            sent = _Sent(floor, monkeypatch)
            for _ in range(3):  # a live table: a round's entries, forwarded as they come
                play_rounds(local, table_id, 1)
                sent.take()  # (the checks' own reads of the floor)
                assert forwarder.forward_batch(table_id) > 0
                statements = sent.take()
                assert len(statements) == 2, "\n".join(s[:150] for s in statements)
                head = _head(local, table_id)
                assert head[2] is not None and _head(floor, table_id) == head  # advanced, signed
                assert _kept(floor, table_id)[-1] == head[0]  # kept (keep_every_s=0: every head)
                assert _checkpoints(floor, table_id) == _checkpoints(local, table_id)  # copied
            sent.take()
            assert forwarder.forward_batch(table_id) == 0  # nothing new: the signature checked
            assert len(sent.take()) == 2
            deadline = time.monotonic() + 10
            while (table_id, head[0]) not in got and time.monotonic() < deadline:
                time.sleep(0.02)
        assert (table_id, head[0]) in got  # NOTIFYed "schema:table:seq" at commit
    finally:
        listener.stop()
    report = verify(floor, table_id)
    assert report.ok, report.problem


def test_heads_close_together_are_kept_once_in_the_folded_statement(
    tmp_path: Path, floor: Store, table_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table=table_id) as local:
        play_rounds(local, table_id, 2)
        forwarder = Forwarder(local, floor, [table_id], keep_every_entries=1000)
        forwarder.forward_once()
        first = _head(local, table_id)[0]
        sent = _Sent(floor, monkeypatch)
        play_rounds(local, table_id, 1)
        forwarder.forward_once()
        assert len(sent.take()) == 2
        assert _head(floor, table_id) == _head(local, table_id)
        assert _kept(floor, table_id) == [first]  # received seconds after the last kept one
        # Many entries on: kept again, however recent the last.
        forwarder.keep_every_entries = 1
        play_rounds(local, table_id, 1)
        forwarder.forward_once()
        assert _kept(floor, table_id) == [first, _head(local, table_id)[0]]
