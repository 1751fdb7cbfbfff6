"""A forwarded batch reads a bounded part of the floor, whatever the floor already holds (issue 15's
floor_forward_entries_per_s fell from ~40,000 to ~2,000 a second): on a PostgreSQL without statistics
(a floor just filled, autovacuum off), reading the settled rounds' wagers by `round_id IN (…)` was
planned as a scan of the table's whole chain, and the batch's ~200 rounds in one IN list as a scan of
every round of the table, per batch. Counted by PostgreSQL itself (the journal rows each batch's
transaction read), and in the statements each batch sends: a few, not one per entry; the rounds it
looks up are only the ones it continues (not the ones it opens); journal and new rounds by COPY (an
executemany of 200 rounds was one statement of 6,000 placeholders, ~0.1 s of psycopg parsing). No
timing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from bench.synthetic import TABLE, build_long_journal
from engine.store import Store, open_store
from engine.store.forward import Forwarder
from tests.pg_schema import PG_URL, pg_schema_url

pytestmark = pytest.mark.skipif(PG_URL is None, reason="needs DRR_TEST_PG_URL (the floor's PostgreSQL)")

BATCH = 1000
ENTRIES = 16_000


@pytest.fixture
def floor() -> Iterator[Store]:
    with pg_schema_url("drr_fwd_bounded") as url, open_store(url) as store:
        yield store


_READ = sa.text(
    "SELECT relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables "
    "WHERE schemaname = current_schema() AND relname IN ('journal', 'rounds')"
)


def test_a_batch_reads_a_bounded_part_of_the_floor_and_sends_few_statements(
    tmp_path: Path, floor: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = tmp_path / "keys"
    monkeypatch.setenv("DRR_KEY_DIR", str(keys))
    journal = build_long_journal(tmp_path / "long.sqlite", ENTRIES, key_dir=keys)
    read: list[dict[str, int]] = []  # rows each batch's transaction read, per table
    sent: list[list[tuple[str, Any]]] = [[]]  # the statements each batch sent to the floor

    def sign_and_count(forwarder: Forwarder, conn: sa.Connection, *args: Any, **kw: Any) -> None:
        # The batch's last statement (its head advanced, signed and NOTIFYed), in its transaction: what
        # it has read so far, by PostgreSQL's count.
        read.append({name: int(n) for name, n in conn.execute(_READ)})
        real_sign(forwarder, conn, *args, **kw)
        sent.append([])

    def count(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
        sent[-1].append((" ".join(statement.split()).upper(), parameters))

    real_sign = Forwarder._sign_head
    monkeypatch.setattr(Forwarder, "_sign_head", sign_and_count)
    sa.event.listen(floor.engine, "before_cursor_execute", count)
    with open_store(journal.url, table=TABLE) as local:
        forwarder = Forwarder(local, floor, [TABLE], batch=BATCH)
        sizes = [forwarder.forward_batch(TABLE) for _ in range(ENTRIES // BATCH)]
        while forwarder.forward_batch(TABLE):  # the short tail goes by the small-batch path
            pass
    sa.event.remove(floor.engine, "before_cursor_execute", count)
    with floor.read() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(sa.table("journal"))).scalar() == (
            # and the floor chain's chain.forwarded mark; on PostgreSQL that first floor write also keys
            # the floor chain (chain.keyed, this host's chain.writer_enrolled: engine.store.floor_sign)
            journal.entries + (1 if floor.is_sqlite else 3)
        )
    assert sizes == [BATCH] * (ENTRIES // BATCH)
    batches = list(zip(read, sent, strict=False))[
        1 : len(sizes)
    ]  # the first also writes the floor chain's mark
    # The wagers of the rounds it settles: its own entries and the round under way when it began (at the
    # end the table's chain on the floor is 15 times the batch).
    journal_read = [rows["journal"] for rows, _ in batches]
    assert max(journal_read) <= 2 * BATCH, f"journal rows of the floor read by each batch: {journal_read}"
    for i, (_, statements) in enumerate(batches, start=2):
        assert len(statements) <= 40, f"batch {i} sent {len(statements)} statements for {BATCH} entries"
        inserts = [s for s, _ in statements if s.startswith(("INSERT INTO JOURNAL", "INSERT INTO ROUNDS"))]
        assert not inserts, f"batch {i} inserted journal or rounds rows by statement, not by COPY"
        looked_up = [
            len(p) - 1 for s, p in statements if s.startswith("SELECT ROUNDS.") and "FROM ROUNDS" in s
        ]
        assert sum(looked_up) <= 3, f"batch {i} looked up {sum(looked_up)} rounds (~70 in the batch)"
