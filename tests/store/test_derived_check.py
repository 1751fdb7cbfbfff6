"""`drr audit verify`'s check of the derived tables (engine.store.verify.derived_problem): the journal
folded again and held against the stored rows without writing them. Every kind of edit made with
plain SQL is named by table, row and column; a journal whose rounds change after they were first
flushed (a pit boss's void or correction of an earlier round) raises nothing; the store is left as
it was. Each test runs with the fold whole and split in two parts side by side (a forked worker folds
the second: engine.store.derived_check), which must give the same verdict."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.floor import actions
from engine.floor.demo import play_rounds
from engine.store import Store, chain_parallel, derived_check, open_store, projections, schema
from engine.store.verify import derived_problem
from tests.floor.played import PlayedFloors
from tests.pg_schema import PG_URL, pg_schema_url
from tests.table.helpers import PITBOSS

BACKENDS = ["sqlite", "postgresql"] if PG_URL else ["sqlite"]
TABLE = "T1"


ROUNDS = [f"{TABLE}-{n:06d}" for n in range(1, 13)]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, played_floors: PlayedFloors) -> Iterator[Store]:
    """The played store (`_play`), played once per backend in this process and copied into the test's
    (tests/floor/played.py): every test edits its own copy. The copy does not depend on `chunk`, which
    only the fold of `rebuild` and of the check reads (playing never rebuilds)."""
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path / 'table.sqlite'}"
        else:
            url = stack.enter_context(pg_schema_url("drr_derived"))
        played_floors.copy_into(url, ("derived-check",), _play)
        yield stack.enter_context(open_store(url, table=TABLE))


@pytest.fixture(params=[50_000, 7], ids=["one-flush", "flush-every-7-entries"])
def chunk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """A short chunk makes the fold flush finished rounds often, as on a journal of years."""
    monkeypatch.setattr(projections, "REBUILD_CHUNK", request.param)
    return int(request.param)


@pytest.fixture(autouse=True, params=[1, 2], ids=["whole", "in-two-parts"])
def parts(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """The check's fold whole, or split in two parts (a forked worker), whatever the journal's length."""
    monkeypatch.setattr(derived_check, "WORKERS", request.param)
    monkeypatch.setattr(derived_check, "PARALLEL_MIN", 0)
    # A station's process (Qt loaded, as the test session may have it) is never forked; these tests
    # make no QApplication, so the worker is forked here all the same.
    monkeypatch.setattr(chain_parallel, "available", lambda: True)
    return int(request.param)


def _play(store: Store) -> None:
    rounds = play_rounds(store, TABLE, 12, seed="derived", bonus_every=4)
    assert rounds == ROUNDS
    # Later entries about earlier rounds: a void and a corrected result, after those rounds settled.
    actions.void(store, rounds[1], "dealer error seen on the camera", PITBOSS, table=TABLE)
    row = actions.check_correctable(store, rounds[2], TABLE)
    new = (int(row.result) + 1) % 37
    actions.correct_result(store, rounds[2], new, "sensor misread", PITBOSS, table=TABLE)


def _sql(store: Store, statement: str, **params: object) -> None:
    with store.engine.begin() as conn:
        conn.execute(sa.text(statement), params)


def _snapshot(store: Store) -> dict[str, list[tuple[object, ...]]]:
    with store.read() as conn:
        return {
            name: sorted(tuple(r) for r in conn.execute(sa.select(schema.metadata.tables[name])))
            for name in ("rounds", "number_counts", "daily_totals", "daily_handle", "rules_submissions")
        }


def test_an_untouched_store_agrees_and_is_left_as_it_was(store: Store, chunk: int) -> None:
    before = _snapshot(store)
    assert derived_problem(store, [TABLE]) is None
    assert _snapshot(store) == before


def test_a_raised_payout_is_named_by_round_and_column(store: Store, chunk: int) -> None:
    rounds = ROUNDS
    _sql(store, "UPDATE rounds SET paid = paid + 500 WHERE round_id = :r", r=rounds[5])
    problem = derived_problem(store, [TABLE])
    assert problem is not None and problem.startswith(f"table {TABLE}: rounds row {rounds[5]}: paid is ")
    assert problem.endswith("(changed outside the journal)")


def test_an_edit_of_a_round_a_later_entry_changed_is_named(store: Store, chunk: int) -> None:
    """The voided round was flushed settled, then taken back by the void: the edit of its stored
    row is still found (and the void itself raises nothing, as the untouched store shows)."""
    rounds = ROUNDS
    _sql(store, "UPDATE rounds SET status = 'settled' WHERE round_id = :r", r=rounds[1])
    assert derived_problem(store, [TABLE]) == (
        f"table {TABLE}: rounds row {rounds[1]}: status is 'settled', the journal says 'void' "
        "(changed outside the journal)"
    )


def test_a_deleted_round_is_missing(store: Store, chunk: int) -> None:
    rounds = ROUNDS
    _sql(store, "DELETE FROM rounds WHERE round_id = :r", r=rounds[7])
    assert derived_problem(store, [TABLE]) == (
        f"table {TABLE}: rounds row {rounds[7]} of the journal is missing (changed outside the journal)"
    )


def test_an_inserted_round_is_in_no_journal_entry(store: Store, chunk: int) -> None:
    rounds = ROUNDS
    with store.engine.begin() as conn:
        r = schema.rounds
        row = dict(conn.execute(sa.select(r).where(r.c.round_id == rounds[3])).one()._mapping)
        conn.execute(sa.insert(schema.rounds).values({**row, "round_id": "forged-round"}))
    assert derived_problem(store, [TABLE]) == (
        f"table {TABLE}: rounds row forged-round is in no journal entry (changed outside the journal)"
    )


def test_an_edited_aggregate_is_named(store: Store, chunk: int) -> None:
    with store.engine.begin() as conn:
        t = schema.number_counts
        key = conn.execute(sa.select(t).limit(1)).one()._mapping
        where = [t.c[c.name] == key[c.name] for c in t.primary_key.columns]
        conn.execute(sa.update(t).where(*where).values(spins=t.c.spins + 3))
    problem = derived_problem(store, [TABLE])
    assert problem is not None and problem.startswith(f"table {TABLE}: number_counts row ")
    assert ": spins is " in problem


def test_a_round_inserted_where_another_was_deleted_is_found(store: Store, chunk: int) -> None:
    """One round deleted, one forged: the count of stored rounds is the journal's, but the forged
    one is named (the check once looked for such rounds only when the counts differed; its id sorts
    before the deleted one's, so it is the first difference)."""
    rounds = ROUNDS
    with store.engine.begin() as conn:
        r = schema.rounds
        row = dict(conn.execute(sa.select(r).where(r.c.round_id == rounds[3])).one()._mapping)
        conn.execute(sa.insert(schema.rounds).values({**row, "round_id": "A-forged-round"}))
        conn.execute(sa.delete(r).where(r.c.round_id == rounds[7]))
    assert derived_problem(store, [TABLE]) == (
        f"table {TABLE}: rounds row A-forged-round is in no journal entry (changed outside the journal)"
    )


def test_the_parts_share_out_every_round_and_the_aggregates_add_up(store: Store) -> None:
    """Every round falls in exactly one part, and the parts' aggregates added up are the whole fold's."""
    rounds = ROUNDS
    assert {projections.round_part(r, 2) for r in rounds} == {0, 1}  # both parts hold rounds
    whole = derived_check._fold_part(store, TABLE, 0, 1)
    halves = [derived_check._fold_part(store, TABLE, k, 2) for k in range(2)]
    for name in ("number_counts", "daily_totals", "daily_handle"):
        t = schema.metadata.tables[name]
        added = derived_check._added(t, [h.aggregates.get(name, []) for h in halves])
        assert added == derived_check._added(t, [whole.aggregates.get(name, [])])


# -- the check a running table makes of a long journal: one read snapshot, nothing written ----------


@pytest.mark.parametrize(
    "forgery",
    [
        "UPDATE rounds SET paid = paid + 700 WHERE round_id = 'T1-000004'",
        "UPDATE rounds SET status = 'settled' WHERE round_id = 'T1-000002'",
        "DELETE FROM rounds WHERE round_id = 'T1-000008'",
        "UPDATE number_counts SET spins = spins + 3",
    ],
)
def test_the_snapshot_check_names_what_the_whole_check_names(store: Store, chunk: int, forgery: str) -> None:
    _sql(store, forgery)
    expected = derived_problem(store, [TABLE])
    assert expected is not None
    assert derived_check.snapshot_problem(store, TABLE) == expected
    assert derived_check.snapshot_problem(store, "T-none") is None  # a table with no journal agrees


def test_the_snapshot_check_takes_no_write_lock_and_sees_no_uncommitted_row(store: Store, chunk: int) -> None:
    """Checked while a writer holds its transaction open (the table appending: on SQLite the write
    lock, which the whole check's rolled-back transaction would wait for) with an edit not yet
    committed: the check answers at once, on the committed rows only."""
    _sql(store, "UPDATE rounds SET paid = paid + 700 WHERE round_id = :r", r=ROUNDS[3])
    expected = derived_problem(store, [TABLE])
    r = schema.rounds
    with store.engine.connect() as writer:
        transaction = writer.begin()  # BEGIN IMMEDIATE on SQLite
        writer.execute(sa.update(r).where(r.c.round_id == ROUNDS[0]).values(paid=r.c.paid + 1))
        try:
            assert derived_check.snapshot_problem(store, TABLE) == expected
        finally:
            transaction.rollback()


def test_the_snapshot_check_writes_nothing_and_stops_when_asked(store: Store, chunk: int) -> None:
    """The whole check stores a missing Rules Submission again inside its rolled-back transaction; the
    snapshot's fold only holds the text against its sha256, and a stop ends it (`Cancelled`)."""
    _sql(store, "DELETE FROM rules_submissions")
    before = _snapshot(store)
    assert derived_check.snapshot_problem(store, TABLE) is None
    assert _snapshot(store) == before and before["rules_submissions"] == []
    with pytest.raises(derived_check.Cancelled):
        derived_check.snapshot_problem(store, TABLE, cancelled=lambda: True)
