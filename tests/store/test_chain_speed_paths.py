"""The fast paths of the chain (issue 15) give the reference verdicts: the batched verify against the
reference entry check, the verify split over two processes against one, the incremental verify
against the full one; and a restart finds its seed entries through the partial index."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

from bench.synthetic import TABLE, append_rounds, build_long_journal, copy_long_journal
from engine.store import chain_parallel, keys, open_store, schema
from engine.store.verify import entry_problem, verify
from engine.table.recovery import SEED_TYPES

if TYPE_CHECKING:
    from bench.synthetic import LongJournal


@pytest.fixture(scope="module")
def long_chain(tmp_path_factory: pytest.TempPathFactory) -> LongJournal:
    """A synthetic signed, MAC'd journal of 6,000 entries (bench.synthetic)."""
    where = tmp_path_factory.mktemp("chain")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DRR_KEY_DIR", str(where / "keys"))
        return build_long_journal(where / "long.sqlite", 6000, key_dir=where / "keys")


@pytest.fixture
def chain(long_chain: LongJournal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy, verified once (its mark at the head), then 1,000 entries appended after it."""
    monkeypatch.setenv("DRR_KEY_DIR", str(long_chain.key_dir))
    copy = copy_long_journal(long_chain, tmp_path / "chain.sqlite")
    with open_store(copy.url, table=TABLE) as store:
        assert verify(store, TABLE).ok
        append_rounds(store, TABLE, 1000)
    return tmp_path


@contextlib.contextmanager
def key_dir(where: Path) -> Iterator[None]:
    yield  # the key directory is the module's (set by `chain`)


def _copy(chain: Path, tmp_path: Path) -> Path:
    return chain


def _reference(path: Path) -> int | None:
    """The first entry the reference check (JSON parse, canonical form, entry_hash) refuses."""
    with open_store(str(path), table=TABLE, migrate=False) as store:
        prev = None
        for entry in store.journal.entries(TABLE):
            if entry_problem(entry, prev) is not None:
                return entry.seq
            prev = entry.hash
    return None


def test_the_built_chain_verifies_fast_and_by_the_reference(chain: Path) -> None:
    with key_dir(chain / "keys"), open_store(str(chain / "chain.sqlite"), table=TABLE) as store:
        report = verify(store, TABLE, remember=False)
        assert report.ok and report.events > 5900
    assert _reference(chain / "chain.sqlite") is None


def test_an_edit_the_hash_does_not_cover_is_named_like_the_reference(chain: Path, tmp_path: Path) -> None:
    where = _copy(chain, tmp_path)
    db = sqlite3.connect(where / "chain.sqlite")
    db.execute("UPDATE journal SET time = '2020-01-01T00:00:00.000000Z' WHERE seq = 4321")
    db.commit()
    db.close()
    assert _reference(where / "chain.sqlite") == 4321
    with key_dir(where / "keys"), open_store(str(where / "chain.sqlite"), table=TABLE) as store:
        full = verify(store, TABLE, remember=False)
        assert not full.ok and full.bad_seq == 4321 and "do not match its hash" in (full.detail or "")


def test_a_payload_out_of_canonical_form_is_named_like_the_reference(chain: Path, tmp_path: Path) -> None:
    """A space put before a payload (same meaning, the hash recomputed by the forger the canonical way):
    the fast hash differs, so the reference check names the entry."""
    where = _copy(chain, tmp_path)
    db = sqlite3.connect(where / "chain.sqlite")
    db.execute("UPDATE journal SET payload = ' ' || payload WHERE seq = 2500")
    db.commit()
    db.close()
    assert _reference(where / "chain.sqlite") == 2500
    with key_dir(where / "keys"), open_store(str(where / "chain.sqlite"), table=TABLE) as store:
        full = verify(store, TABLE, remember=False)
    assert not full.ok and full.bad_seq == 2500 and "canonical" in (full.detail or "")


def test_two_processes_give_the_verdicts_of_one(
    chain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    joined: list[bool] = []
    real_join = chain_parallel.join

    def spy(*args: object) -> bool:
        joined.append(real_join(*args))  # type: ignore[arg-type]
        return joined[-1]

    monkeypatch.setattr(chain_parallel, "join", spy)
    monkeypatch.setattr(chain_parallel, "available", lambda: True)  # this test process may have Qt loaded
    where = _copy(chain, tmp_path)
    path = where / "chain.sqlite"
    with key_dir(where / "keys"), open_store(str(path), table=TABLE) as store:
        monkeypatch.setattr(chain_parallel, "PARALLEL_MIN", 10**9)
        one = verify(store, TABLE, remember=False)
        monkeypatch.setattr(chain_parallel, "PARALLEL_MIN", 1000)
        two = verify(store, TABLE, remember=False)
        assert joined == [True]  # the halves joined
        assert (one.ok, one.events, one.rounds, one.tables) == (two.ok, two.events, two.rounds, two.tables)
        db = sqlite3.connect(path)
        db.execute("UPDATE journal SET mac = ? WHERE seq = 5200", ("0" * 64,))  # in the second half
        db.commit()
        db.close()
        bad_two = verify(store, TABLE, remember=False)
        monkeypatch.setattr(chain_parallel, "PARALLEL_MIN", 10**9)
        bad_one = verify(store, TABLE, remember=False)
    assert joined == [True, False]  # the second half found it: the sequential scan gave the verdict
    assert bad_two.problem == bad_one.problem and bad_one.bad_seq == 5200 and "MAC" in (bad_one.problem or "")


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.parametrize(
    ("change", "seq", "words"),
    [
        ("UPDATE journal SET mac = '" + "0" * 64 + "' WHERE seq = ?", 5200, "MAC"),  # the third part
        ("UPDATE journal SET time = '2020-01-01T00:00:00.000000Z' WHERE seq = ?", 4700, "hash"),
        ("UPDATE journal SET payload = ' ' || payload WHERE seq = ?", 3100, "canonical"),  # the second
        ("UPDATE journal SET mac = NULL WHERE seq = ?", 1500, "MAC"),  # before the first cut
        ("UPDATE checkpoints SET sig = '" + "ab" * 64 + "' WHERE seq = ?", 4000, ""),  # a cut's signature
    ],
)
def test_three_parts_give_the_verdicts_of_one(
    chain: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    workers: int,
    change: str,
    seq: int,
    words: str,
) -> None:
    """Cut in three at the checkpoints 2000 and 4000: the parts scanned by a worker (1) or, taken back
    from the workers' queue, here (0) join to the one-process verdict, and a damage in any part (or a
    cut checkpoint's signature broken) is named exactly as one process names it."""
    joined: list[bool] = []
    real_join = chain_parallel.join

    def spy(*args: object) -> bool:
        joined.append(real_join(*args))  # type: ignore[arg-type]
        return joined[-1]

    monkeypatch.setattr(chain_parallel, "join", spy)
    monkeypatch.setattr(chain_parallel, "available", lambda: True)
    monkeypatch.setattr(chain_parallel, "WORKERS", workers)
    monkeypatch.setattr(chain_parallel, "PART_MIN", 2300)
    path = chain / "chain.sqlite"
    with key_dir(chain / "keys"), open_store(str(path), table=TABLE) as store:
        head = store.journal.head(TABLE)
        assert head is not None and chain_parallel.cuts(head[0], 1000) == [2000, 4000]
        monkeypatch.setattr(chain_parallel, "PARALLEL_MIN", 10**9)
        one = verify(store, TABLE, remember=False)
        monkeypatch.setattr(chain_parallel, "PARALLEL_MIN", 1000)
        three = verify(store, TABLE, remember=False)
        assert joined == [True, True]  # the three parts joined
        assert (one.ok, one.events, one.rounds, one.tables, one.keys) == (
            three.ok,
            three.events,
            three.rounds,
            three.tables,
            three.keys,
        )
        db = sqlite3.connect(path)
        db.execute(change, (seq,))
        db.commit()
        db.close()
        bad_three = verify(store, TABLE, remember=False)
        monkeypatch.setattr(chain_parallel, "PARALLEL_MIN", 10**9)
        bad_one = verify(store, TABLE, remember=False)
    assert not bad_one.ok and bad_three.problem == bad_one.problem and bad_three.bad_seq == bad_one.bad_seq
    assert words in (bad_one.problem or "")
    if seq != 4000:
        assert bad_one.bad_seq == seq


def test_the_incremental_verify_agrees_with_the_full_one(chain: Path, tmp_path: Path) -> None:
    where = _copy(chain, tmp_path)
    path = where / "chain.sqlite"
    with key_dir(where / "keys"), open_store(str(path), table=TABLE) as store:
        key = keys.load(store.where, TABLE)
        assert key is not None and key.verified is not None
        mark = key.verified.seq
        full = verify(store, TABLE, remember=False)
        incr = verify(store, TABLE, incremental=True, remember=False)
        assert (incr.ok, incr.events, incr.rounds, incr.tables) == (
            full.ok,
            full.events,
            full.rounds,
            full.tables,
        )
        db = sqlite3.connect(path)
        db.execute("UPDATE journal SET mac = ? WHERE seq = ?", ("0" * 64, mark + 10))  # after the mark
        db.commit()
        assert verify(store, TABLE, incremental=True).bad_seq == mark + 10
        db.execute("UPDATE journal SET mac = ? WHERE seq = ?", ("0" * 64, 100))  # before it
        db.commit()
        db.close()
        # the trade-off: an entry changed before the mark is left to the full verify ...
        assert verify(store, TABLE, incremental=True).bad_seq == mark + 10
        assert verify(store, TABLE).bad_seq == 100  # ... which names it
        db = sqlite3.connect(path)
        db.execute("DELETE FROM journal WHERE seq = ?", (mark,))  # the mark's own entry gone: full check
        db.commit()
        db.close()
        assert verify(store, TABLE, incremental=True).bad_seq == 100


def test_a_mark_edited_in_the_witness_is_ignored(chain: Path, tmp_path: Path) -> None:
    import json

    where = _copy(chain, tmp_path)
    with key_dir(where / "keys"):
        key = keys.load(str((where / "chain.sqlite").absolute()), TABLE)
        assert key is not None and key.verified is not None
        witness = keys.witness_path(key.path)
        data = json.loads(witness.read_text())
        data["verified"]["seq"] += 500  # pretend more was verified
        witness.write_text(json.dumps(data))
        keys._CACHE.clear()
        again = keys.load(str((where / "chain.sqlite").absolute()), TABLE)
        assert again is not None and again.verified is None


def test_the_restart_seed_query_names_the_indexed_types_and_uses_the_index(tmp_path: Path) -> None:
    assert tuple(SEED_TYPES) == schema.SEED_TYPES
    with open_store(str(tmp_path / "s.sqlite"), table="T1") as store, store.read() as conn:
        j = schema.journal
        query = sa.select(j).where(j.c.table_id == "T1", j.c.seq < 10, schema.SEED_FILTER).order_by(j.c.seq)
        sql = str(query.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True}))
        plan = " ".join(str(r[-1]) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql))
    assert "ix_journal_seed" in plan
