"""`drr db rebuild` folds the journal in memory and writes in bulk: it must leave exactly the rows each
append left (the incremental path), on SQLite and on PostgreSQL, for a varied journal: rounds played by
the table service (bonus games, a result entered by hand), voids before and after settlement, a
correction, no-spins, a table-wide irregularity, a wager taken back, imported history, an old
journal's spellings, two tables in one store, and rounds touched again after the rebuild has already
written them out (a tiny chunk)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine.floor.demo import play_rounds
from engine.store import Store, open_store, projections, schema
from engine.store.verify import verify
from tests.floor.played import PlayedFloors
from tests.payloads import RULES_SHA, append
from tests.pg_schema import PG_URL, pg_schema_url
from tests.store.helpers import play_round

PROJECTED = (
    schema.rounds,
    schema.number_counts,
    schema.daily_totals,
    schema.daily_handle,
    schema.rules_submissions,
)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path, played_floors: PlayedFloors) -> Iterator[Store]:
    """A table store holding `_varied_journal` (the rows its appends left included), on SQLite and on
    the PostgreSQL of DRR_TEST_PG_URL (SQLite again when unset): played once per backend in this
    process and copied into each test's own store, exactly as if played there (tests/floor/played.py;
    its 60 rounds through the table service are most of the tests' time, issue 29.2)."""
    with contextlib.ExitStack() as stack:
        if request.param == "postgresql" and PG_URL is not None:
            url = stack.enter_context(pg_schema_url("drr_rebuild"))
        else:
            url = f"sqlite:///{tmp_path / 'table.sqlite'}"
        played_floors.copy_into(url, ("rebuild-set-based-varied",), _varied_journal)
        yield stack.enter_context(open_store(url, table="T1"))


def _snapshot(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    with store.read() as conn:
        return {t.name: sorted((tuple(r) for r in conn.execute(sa.select(t))), key=repr) for t in PROJECTED}


def _varied_journal(store: Store) -> None:
    j = store.journal
    play_rounds(store, "T1", 60, bonus_every=7)  # bonus games, a manual result (round 26)
    play_rounds(store, "T2", 5, bonus_every=2)  # a second table in the same store
    for i in range(12):
        play_round(
            store, "T1", f"X{i}", (i * 7) % 37, lucky=[(i % 36 + 1, "199")], bonus=(i * 5) % 37,
            wagered=f"{10 + i}.00", paid=f"{i}.50", returned=f"{i + 10}.50",
            direction=("cw", "ccw", None)[i % 3],
            time=f"2026-12-{1 + i % 4:02d}T23:59:{i:02d}.000000Z",
        )  # fmt: skip
    append(j, "T1", "round.voided", {"reason": "dealer error"}, round_id="T1-000003", user="pat")  # settled
    append(j, "T1", "round.voided", {"reason": "wheel fault"}, round_id="X4", user="pat")
    append(
        j,
        "T1",
        "round.result_corrected",
        {"old": 5, "new": 6, "reason": "misread"},
        round_id="X5",
        user="pat",
    )
    append(j, "T1", "round.irregularity", {"kind": "power", "reason": "power cut"}, round_id=None, user=None)
    # A round with a wager taken back, a no-spin, an old journal's "round.closed", voided before settling.
    append(
        j,
        "T1",
        "round.opened",
        {"round_id": "Y1", "rules_sha256": RULES_SHA, "dealer": "eli"},
        round_id="Y1",
        user="eli",
    )
    for wid, bet, amount in (("a", "red", "5"), ("b", "black", "7.5"), ("c", "even", "3")):
        append(
            j,
            "T1",
            "round.wager_placed",
            {"id": wid, "player": "p1", "bet": bet, "amount": amount},
            round_id="Y1",
            user="eli",
        )
    append(j, "T1", "round.wager_removed", {"wager_id": "b"}, round_id="Y1", user="eli")
    # an old journal's spelling and shape, stored as it was (the registry reads it as BetsClosed)
    j.append("T1", "round.closed", {"lucky": [[9, "99"]], "bonus_number": 4}, round_id="Y1", user=None)
    append(j, "T1", "round.no_spin", {"reason": "ball left the wheel"}, round_id="Y1", user="eli")
    append(
        j,
        "T1",
        "round.result",
        {"number": 9, "source": "sensor", "direction": "cw"},
        round_id="Y1",
        user=None,
    )
    append(j,
        "T1", "round.settled", {"total_wagered": "8", "total_paid": "2079", "total_returned": "2087"},
        round_id="Y1", user=None,
    )  # fmt: skip
    append(j,
        "T1", "round.settled", {"total_wagered": "8", "total_paid": "5", "total_returned": "10"},
        round_id="Y1", user="pat",
    )  # fmt: skip
    append(j, "T1", "round.opened", {"round_id": "Y2", "rules_sha256": RULES_SHA}, round_id="Y2", user="eli")
    append(j, "T1", "round.voided", {"reason": "table closed"}, round_id="Y2", user="pat")
    for k in range(3):
        append(j,
            "T1", "history.imported",
            {"number": k, "time": f"2025-06-0{k + 1}T12:00:00+02:00", "source": "csv"},
            round_id=f"H{k}", user="pat",
        )  # fmt: skip


def test_rebuild_leaves_exactly_the_rows_each_append_left(any_store: Store) -> None:
    incremental = _snapshot(any_store)
    assert len(incremental["rounds"]) == 60 + 5 + 12 + 2 + 3
    assert any(r for r in incremental["daily_handle"])
    entries = {t: any_store.journal.head(t)[0] for t in ("T1", "T2")}  # type: ignore[index]
    with any_store.begin() as conn:
        assert projections.rebuild(conn, "T1") == entries["T1"]
    assert _snapshot(any_store) == incremental
    with any_store.begin() as conn:
        for table in ("T1", "T2"):
            projections.rebuild(conn, table)
    assert _snapshot(any_store) == incremental
    assert verify(any_store).ok


def test_rounds_written_out_early_are_taken_back_when_touched_again(
    any_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With chunks of 7 entries, settled rounds are written out long before their void or
    correction comes: the rebuild takes them back and still ends with the incremental rows."""
    incremental = _snapshot(any_store)
    monkeypatch.setattr(projections, "REBUILD_CHUNK", 7)
    with any_store.begin() as conn:
        projections.rebuild(conn, "T1")
    assert _snapshot(any_store) == incremental
