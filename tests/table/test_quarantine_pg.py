"""Issue 13: the documented quarantine procedure on a PostgreSQL store (tested against the real one,
DRR_TEST_PG_URL): the damaged table's rows are moved, untouched, to a quarantine schema, and its new
chain is started linked to the last good signed head, journaled; other tables and the users stay."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from engine.errors import DrrError
from engine.store import open_store
from engine.store.users import add_user, list_users
from engine.store.verify import verify
from gui.cli import main
from tests.pg_schema import PG_URL, pg_schema_url
from tests.table.helpers import make_service, voided_session

pytestmark = pytest.mark.skipif(PG_URL is None, reason="needs the real PostgreSQL (DRR_TEST_PG_URL)")


@pytest.fixture
def url() -> Iterator[str]:
    with pg_schema_url("drr_quar") as u:
        yield u


def _rows(url: str, query: str, **params: Any) -> list[Any]:
    with open_store(url, table="T1") as store, store.read() as conn:
        return list(conn.execute(sa.text(query), params).all())


def test_quarantine_on_postgresql_moves_the_rows_aside_and_links_the_new_chain(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(voided_session(url, 2))
    with open_store(url, table="T1") as store:
        add_user(store, "ada", "admin", "482913", by=None)
        store.journal.append("T9", "table.next_round", {"after": "T9-000001"}, round_id=None, user="x")
    before = _rows(url, "SELECT seq, hash, payload FROM journal WHERE table_id = 'T1' ORDER BY seq")
    # Was: "drr db quarantine moves a SQLite file aside; a floor database is restored by its DBA".
    assert main(["db", "quarantine", "--db", url, "--table", "T1", "--user", "ada"]) == 1
    assert "verifies: nothing to quarantine" in capsys.readouterr().err
    # The auditor's edit: one payload rewritten with plain SQL.
    victim = next(b for b in before if '"test round"' in b.payload)
    with open_store(url, table="T1") as store, store.begin() as conn:
        conn.execute(
            sa.text("UPDATE journal SET payload = :p WHERE table_id = 'T1' AND seq = :s"),
            {"p": victim.payload.replace('"test round"', '"other"'), "s": victim.seq},
        )
    with open_store(url, table="T1") as store, pytest.raises(DrrError, match="does not start"):
        asyncio.run(make_service(store).start())

    assert main(["db", "quarantine", "--db", url, "--table", "T1", "--user", "ada"]) == 0
    out = capsys.readouterr().out
    name = out.split("in the schema ")[1].split()[0]
    try:
        kept = _rows(url, f'SELECT seq, hash, payload FROM "{name}".journal ORDER BY seq')
        assert len(kept) == len(before) and [k.hash for k in kept] == [b.hash for b in before]
        edited = next(k for k in kept if k.seq == victim.seq)
        assert edited.payload != victim.payload  # the damaged chain kept as it was found, edit included
        assert _rows(url, f'SELECT count(*) FROM "{name}".rounds')[0][0] == 2
        with open_store(url, table="T1") as store:
            (entry,) = list(store.journal.entries("T1"))
            body = json.loads(entry.payload_text)
            assert entry.type == "table.quarantined" and entry.user == "ada"
            assert name in body["damaged_store"] and body["rounds_before"] == 2
            assert 0 <= body["last_good_seq"] < victim.seq
            assert verify(store, "T1").ok
            assert [u.name for u in list_users(store)] == ["ada"]  # the users stay
            assert [e.type for e in store.journal.entries("T9")] == ["table.next_round"]  # other tables too
        asyncio.run(voided_session(url, 1))  # the table starts again, round ids numbering on
        rounds = [r[0] for r in _rows(url, "SELECT round_id FROM rounds WHERE table_id = 'T1'")]
        assert rounds == ["T1-000003"]
        with open_store(url, table="T1") as store:
            assert verify(store, "T1").ok
    finally:
        with open_store(url, table="T1") as store, store.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{name}" CASCADE'))
