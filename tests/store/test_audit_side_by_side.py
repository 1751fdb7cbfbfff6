"""`drr audit verify` of a floor's many tables side by side (engine.store.audit_tables): the same
report and the same verdict as table after table, on the real PostgreSQL, whichever tables are
damaged and how."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.floor.demo import play_rounds
from engine.store import Store, audit_tables, chain_parallel, open_store
from engine.store.verify import Audit, audit
from tests.floor.played import PlayedFloors
from tests.pg_schema import PG_URL, pg_schema_url

pytestmark = pytest.mark.skipif(PG_URL is None, reason="needs DRR_TEST_PG_URL (a real PostgreSQL)")

TABLES = ["T1", "T2", "T3"]


def _play(store: Store) -> None:
    for i, table in enumerate(TABLES):
        play_rounds(store, table, 6, seed=f"side-{i}", bonus_every=3)


@pytest.fixture
def floor(played_floors: PlayedFloors) -> Iterator[tuple[str, Store]]:
    """The floor (`_play`) played once in this process and copied into each test's own schema
    (tests/floor/played.py): every test damages its own copy."""
    with pg_schema_url("drr_audit_tables") as url:
        played_floors.copy_into(url, ("audit-side-by-side",), _play)
        with open_store(url) as store:
            yield url, store


def _both(store: Store, monkeypatch: pytest.MonkeyPatch) -> tuple[Audit, Audit]:
    """The audit table after table, then side by side on two workers."""
    monkeypatch.setattr(audit_tables, "WORKERS", 0)
    alone = audit(store)
    monkeypatch.setattr(chain_parallel, "available", lambda: True)  # this test process may have Qt loaded
    monkeypatch.setattr(audit_tables, "WORKERS", 2)
    assert audit_tables.workers_for(store, ["floor", *TABLES]) == 2
    return alone, audit(store)


def _sql(store: Store, statement: str, **params: object) -> None:
    with store.engine.begin() as conn:
        conn.execute(sa.text(statement), params)


def test_a_sound_floor_gives_the_same_report(
    floor: tuple[str, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    _url, store = floor
    alone, side = _both(store, monkeypatch)
    assert alone == side
    assert side.report.ok and side.damage is None and side.derived is None
    assert set(side.report.tables) >= set(TABLES)


def test_a_broken_chain_is_named_before_any_derived_table(
    floor: tuple[str, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    _url, store = floor
    _sql(store, "UPDATE rounds SET paid = paid + 7 WHERE table_id = 'T1'")
    _sql(store, "UPDATE journal SET user_name = 'mallory' WHERE table_id = 'T3' AND seq = 9")
    alone, side = _both(store, monkeypatch)
    assert alone == side
    assert not side.report.ok and side.report.bad_table == "T3"
    assert side.report.problem is not None and side.report.problem.startswith("table T3 entry 9: ")


def test_the_first_table_whose_derived_tables_disagree_is_named(
    floor: tuple[str, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    _url, store = floor
    for table in ("T3", "T2"):
        _sql(store, "UPDATE rounds SET wagered = wagered + 100 WHERE table_id = :t", t=table)
    alone, side = _both(store, monkeypatch)
    assert alone == side
    assert side.derived is not None and side.derived.startswith("table T2: rounds row ")


def test_a_worker_that_dies_leaves_the_tables_to_this_process(
    floor: tuple[str, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures.process import BrokenProcessPool

    _url, store = floor
    _sql(store, "UPDATE rounds SET paid = paid + 1 WHERE table_id = 'T2'")
    monkeypatch.setattr(audit_tables, "WORKERS", 0)
    alone = audit(store)

    def broken(*_args: object) -> None:
        raise BrokenProcessPool("a worker was killed")

    monkeypatch.setattr(audit_tables, "_in_workers", broken)
    monkeypatch.setattr(chain_parallel, "available", lambda: True)
    monkeypatch.setattr(audit_tables, "WORKERS", 2)
    assert audit(store) == alone
    assert alone.derived is not None and alone.derived.startswith("table T2: ")


def test_drr_audit_verify_of_the_floor_says_ok(floor: tuple[str, Store]) -> None:
    """The command as a lab runs it (its own process, no Qt: the tables go side by side)."""
    url, _store = floor
    drr = str(Path(sys.executable).with_name("drr"))
    done = subprocess.run([drr, "audit", "verify", "--db", url], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("OK: ")
