"""The same store behaviour on the floor database: PostgreSQL when DRR_TEST_PG_URL is set (a schema of its
own per test), else a SQLite file. Journal, tamper detection, projections, statistics, history, users."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.auth import AuthenticationFailed
from engine.errors import DrrError
from engine.store import Store
from engine.store.history import RoundFilter, import_csv, list_rounds, show_round, void_round
from engine.store.records import NewEvent
from engine.store.stats import table_stats
from engine.store.users import MAX_FAILURES, add_user, authenticate
from engine.store.verify import verify
from tests.payloads import RULES_SHA
from tests.store.helpers import play_round


def test_chain_and_tamper_detection(central: Store, table_id: str) -> None:
    play_round(central, table_id, "R1", 17)
    play_round(central, table_id, "R2", 4)
    report = verify(central, table_id)
    assert report.ok and report.events == 10 and report.rounds == 2
    with central.begin() as conn:
        conn.execute(
            sa.text("UPDATE journal SET user_name = 'mallory' WHERE table_id = :t AND seq = 7"),
            {"t": table_id},
        )
    report = verify(central, table_id)
    assert not report.ok and report.bad_seq == 7 and "edited" in (report.problem or "")


def test_append_many_is_atomic(central: Store, table_id: str) -> None:
    with pytest.raises(DrrError):
        central.journal.append_many(
            [
                NewEvent(table_id, "round.opened", {"round_id": "R1", "rules_sha256": RULES_SHA}, "R1"),
                NewEvent(table_id, "round.result", {"number": 40}, "R1"),
            ]
        )
    assert central.journal.head(table_id) is None
    with central.read() as conn:
        assert (
            conn.execute(sa.text("SELECT count(*) FROM rounds WHERE table_id = :t"), {"t": table_id}).scalar()
            == 0
        )


def test_projections_stats_and_history(central: Store, table_id: str, tmp_path: Path) -> None:
    for i, n in enumerate([3, 3, 26, 0]):
        play_round(central, table_id, f"R{i}", n, lucky=[(3, "199")], bonus=26, paid="7.25")
    s = table_stats(central, table_id)
    assert s["spins"] == 4 and s["counts"][3] == 2 and s["lucky"]["hits"] == 2 and s["bonus"]["hits"] == 1
    assert s["hold"]["wagered"] == "40.00" and s["hold"]["paid"] == "29.00"
    assert table_stats(central, table_id, last=2)["spins"] == 2
    csv_path = tmp_path / "h.csv"
    csv_path.write_text("timestamp,number\n2026-02-01T00:00:00Z,5\n2026-02-01T00:01:00Z,5\n")
    import_csv(central, csv_path, table_id)
    assert table_stats(central, table_id)["counts"][5] == 2
    listed = list(list_rounds(central, RoundFilter(table=table_id, number=3)))
    assert [r["round_id"] for r in listed] == ["R0", "R1"]
    assert verify(central, table_id).ok


def test_users_and_void(central: Store, table_id: str) -> None:
    add_user(central, "ada", "admin", "111111", by=None)
    ada = authenticate(central, "ada", "111111", table=table_id)
    add_user(central, "pat", "pitboss", "222222", by=ada)
    play_round(central, table_id, "R1", 9, paid="18.00")
    void_round(central, "R1", "wrong ball", authenticate(central, "pat", "222222", table=table_id))
    assert show_round(central, "R1", table_id)["round"]["status"] == "void"
    for _ in range(MAX_FAILURES):
        with pytest.raises(AuthenticationFailed):
            authenticate(central, "pat", "0000", table=table_id)
    with pytest.raises(AuthenticationFailed, match="locked out"):
        authenticate(central, "pat", "222222", table=table_id)
    assert verify(central).ok


def test_one_owner_per_table(central_url: str, table_id: str) -> None:
    from engine.store import open_store

    with open_store(central_url) as first, open_store(central_url) as second:
        claim = first.claim(table_id, station="croupier")
        with pytest.raises(DrrError, match="already in use by croupier"):
            second.claim(table_id, station="table")
        claim.release()
        second.claim(table_id, station="table").release()


def test_journal_times_are_normalised(central: Store, table_id: str) -> None:
    entry = central.journal.append(
        table_id, "tick", {}, round_id=None, user=None, time="2026-03-01T13:00:00+01:00"
    )
    assert entry.time == "2026-03-01T12:00:00.000000Z"
    with pytest.raises(DrrError, match="not an ISO 8601 time"):
        central.journal.append(table_id, "tick", {}, round_id=None, user=None, time="teatime")


def test_migrations_build_exactly_the_declared_schema(central: Store) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from engine.store.schema import metadata

    with central.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
