"""Issue 24 finding 7, the long journal: a table whose journal is longer than the start folds before it
deals (engine.store.evidence.DERIVED_AT_START, patched down here) has its derived tables held against
the journal on a read snapshot while it deals (engine.table.derived_watch). A round's `paid` edited
with SQL tilts it through the gate (every play refused, the difference and `drr db rebuild` in the
words) with a critical `derived_mismatch` alert; an untouched store deals on with no alert; the check
blocks no append, a stop ends it without a write, and the tilt outlasts a restart until a rebuild."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine.auth import User
from engine.errors import DrrError
from engine.floor.demo import play_rounds_async
from engine.rng import SeededRng
from engine.store import Store, derived_check, evidence, keys, open_store, projections, schema
from engine.table.gate import TableTilted
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, PITBOSS, cover_everything, make_service

LIMIT = 50  # entries: the journal below is longer, so the start does not fold it before dealing
FORGED = "T1-000002"


async def _played(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Six settled rounds (about 80 entries), then the start's limit below their length."""
    await play_rounds_async(store, "T1", 6, seed="derived-start", bonus_every=0)
    with store.read() as conn:
        length = conn.execute(
            sa.select(schema.chain_heads.c.seq).where(schema.chain_heads.c.table_id == "T1")
        )
        assert int(length.scalar() or 0) > LIMIT
    monkeypatch.setattr(evidence, "DERIVED_AT_START", LIMIT)


def _forge(store: Store) -> None:
    """The insider's edit: a settled round's paid raised in the `rounds` table, behind the journal."""
    r = schema.rounds
    with store.engine.begin() as conn:
        done = conn.execute(
            sa.update(r).where(r.c.table_id == "T1", r.c.round_id == FORGED).values(paid=r.c.paid + 100_000)
        )
        assert done.rowcount == 1


def _alerts(store: Store) -> list[Any]:
    return [e.payload for e in store.journal.entries("floor") if e.type == "alert.raised"]


def _tilts(store: Store) -> list[Any]:
    return [
        e.payload for e in store.journal.entries("T1") if e.type in ("table.tilted", "table.tilt_cleared")
    ]


async def _deal_one(svc: TableService) -> None:
    await svc.open_bets(CROUPIER)
    await cover_everything(svc)
    await svc.void(PITBOSS, "test round")
    await svc.next_round(CROUPIER)


def test_a_forged_paid_on_a_long_journal_tilts_the_table_with_a_critical_alert(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a journal over the limit started unchecked, and the table dealt on the forged rows."""

    async def main() -> None:
        await _played(store, monkeypatch)
        _forge(store)
        svc = make_service(store)
        await svc.start()  # not refused: the table starts, and its check runs beside it
        # No command needed: the verdict is journaled and folded on the table's loop by itself.
        for _ in range(600):
            if svc.state.tilts:
                break
            await asyncio.sleep(0.05)
        with pytest.raises(TableTilted) as refused:
            await svc.open_bets(CROUPIER)
        words = str(refused.value)
        assert "derived tables disagree with the journal" in words, words
        assert f"rounds row {FORGED}: paid" in words and "drr db rebuild" in words, words
        assert svc.view.stopped and svc.view.tilt_causes == ("derived",)  # the screens show it too
        assert "drr db rebuild" in svc.view.tilt_todo
        await svc.close()

    asyncio.run(main())
    alerts = _alerts(store)
    assert [(a["kind"], a["severity"]) for a in alerts] == [("derived_mismatch", "critical")]
    assert f"rounds row {FORGED}: paid" in str(alerts[0]["message"])
    tilts = _tilts(store)
    assert [t["cause"] for t in tilts] == ["derived"] and "drr db rebuild" in str(tilts[0]["reason"])


def test_an_untouched_long_journal_deals_while_its_check_runs_and_raises_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check holds no write lock and reads one snapshot: the table deals rounds while it runs
    (held here in the middle of its fold until they are dealt), and the rows written meanwhile are
    no mismatch."""
    real_round = derived_check._HeldRows.round
    folding, dealt = threading.Event(), threading.Event()

    def held_round(self: Any, entry: Any) -> Any:
        folding.set()  # the snapshot is taken: the first chunk of the journal is read
        assert dealt.wait(20)
        return real_round(self, entry)

    async def main() -> None:
        await _played(store, monkeypatch)
        monkeypatch.setattr(derived_check._HeldRows, "round", held_round)
        svc = make_service(store)
        await svc.start()
        assert svc.derived_watch is not None
        assert await asyncio.to_thread(folding.wait, 20)
        for _ in range(2):
            await _deal_one(svc)  # on SQLite a held write lock would time out here
        assert svc.derived_watch.running  # both rounds were dealt and journaled during the check
        dealt.set()
        verdict = await svc.derived_checked()
        assert verdict is not None and verdict.problem is None and verdict.error is None
        await _deal_one(svc)  # and after it
        await svc.close()

    asyncio.run(main())
    assert _alerts(store) == [] and _tilts(store) == []


def test_a_stop_during_the_check_ends_it_promptly_and_writes_nothing_after(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_round = derived_check._HeldRows.round

    def slow_round(self: Any, entry: Any) -> Any:
        time.sleep(0.05)
        return real_round(self, entry)

    async def main() -> None:
        await _played(store, monkeypatch)
        _forge(store)
        monkeypatch.setattr(derived_check._HeldRows, "round", slow_round)
        svc = make_service(store)
        await svc.start()
        watch = svc.derived_watch
        assert watch is not None and watch.running
        began = time.monotonic()
        await svc.close()
        assert watch.join(2.0), "the check's thread did not end after the stop"
        assert time.monotonic() - began < 2.0
        assert watch.verdict is None  # its fold was given up, not finished
        await asyncio.sleep(0.1)

    asyncio.run(main())
    assert _alerts(store) == [] and _tilts(store) == []  # nothing written after the stop


def test_the_tilt_outlasts_a_restart_and_a_rebuild_clears_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        await _played(store, monkeypatch)
        _forge(store)
        svc = make_service(store)
        await svc.start()
        await svc.derived_checked()
        await svc.close()
        again = make_service(store)  # restarted on the same forged rows: tilted from the start
        await again.start()
        with pytest.raises(TableTilted):
            await again.open_bets(CROUPIER)
        await again.derived_checked()
        await again.close()
        with store.begin() as conn:  # drr db rebuild
            projections.rebuild(conn, "T1")
        third = make_service(store)
        await third.start()
        with pytest.raises(TableTilted):  # until its check has found the rows agreeing
            await third.open_bets(CROUPIER)
        verdict = await third.derived_checked()
        assert verdict is not None and verdict.problem is None
        await _deal_one(third)
        await third.close()

    asyncio.run(main())
    assert [t["cause"] for t in _tilts(store)] == ["derived", "derived"]  # the tilt, then its clear
    assert "agree" in str(_tilts(store)[1]["reason"])
    assert len(_alerts(store)) == 2  # each start that found the forged rows raised its alert


def test_the_croupier_stations_start_path_tilts_on_a_forged_long_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    """gui.app._start_table (the croupier station's start) with the screens' TableModel: the pushed
    view shows the table stopped with the derived tilt, and the station's close stops cleanly."""
    from gui.app import UNSET_USER, _start_table
    from gui.table_model import TableModel

    model = TableModel()
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:

        async def go() -> None:
            await _played(store, monkeypatch)
            _forge(store)
            await _start_table(model, store, User(*UNSET_USER), None, "T1")
            service = model.service
            assert isinstance(service, TableService)
            await service.derived_checked()
            assert model.view.stopped and model.view.tilt_causes == ("derived",)
            await model.shutdown()

        asyncio.run(go())
        assert [t["cause"] for t in _tilts(store)] == ["derived"]


def test_the_headless_run_stops_on_a_forged_long_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`drr table run --headless`: the unattended run ends in one line naming the derived tables and
    the rebuild (not the RNG's clear-tilt), before its rounds are all played."""
    from gui.cli import main

    db = tmp_path / "t.sqlite"
    with open_store(str(db), table="T1") as store:
        asyncio.run(_played(store, monkeypatch))
        _forge(store)
    keys._CACHE.clear()
    run = ["table", "run", "--headless", "--wheel", "sim", "--speed", "50", "--rounds", "40"]
    assert main([*run, "--seed", "7", "--db", str(db), "--table", "T1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("drr: table T1 is tilted: derived tables disagree with the journal"), err
    assert "drr db rebuild" in err and "clear-tilt" not in err and "Traceback" not in err
    with open_store(str(db), table="T1") as store:
        opened = [e for e in store.journal.entries("T1") if e.type == "round.opened"]
        assert len(opened) < 6 + 40
        assert [t["cause"] for t in _tilts(store)] == ["derived"]


def test_on_a_store_of_many_tables_only_the_forged_tables_check_disagrees(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A floor store holds many tables: each table's check reads its own rows in its snapshot. T2's
    forged round tilts T2 only; T1, beside it on the same store, deals on with no alert."""

    async def main() -> None:
        await play_rounds_async(store, "T2", 6, seed="derived-other", bonus_every=0)
        await _played(store, monkeypatch)
        r = schema.rounds
        with store.engine.begin() as conn:
            conn.execute(
                sa.update(r)
                .where(r.c.table_id == "T2", r.c.round_id == "T2-000003")
                .values(paid=r.c.paid + 9)
            )
        mine = make_service(store)
        await mine.start()
        verdict = await mine.derived_checked()
        assert verdict is not None and verdict.problem is None
        await _deal_one(mine)
        await mine.close()
        other = TableService(store, "T2", rng=SeededRng(9), allow_seeded_rng=True, claim=False)
        await other.start()
        verdict = await other.derived_checked()
        assert verdict is not None and verdict.problem is not None and "T2-000003: paid" in verdict.problem
        with pytest.raises(TableTilted):
            await other.open_bets(CROUPIER)
        await other.close()

    asyncio.run(main())
    assert _tilts(store) == []  # T1's chain
    alerts = _alerts(store)
    assert [(a["table"], a["kind"]) for a in alerts] == [("T2", "derived_mismatch")]


CHILD = """
import sys, time
from engine.store import derived_check, evidence
evidence.DERIVED_AT_START = 50
real = derived_check._HeldRows.round
def slow(self, entry):
    if not getattr(slow, "said", False):
        slow.said = True
        print("drr-test: the derived check is folding", file=sys.stderr, flush=True)
    time.sleep(0.2)  # a fold of years: far longer than the stop's budget
    return real(self, entry)
derived_check._HeldRows.round = slow
from gui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_sigterm_while_the_check_runs_stops_drr_table_run_promptly_and_writes_no_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A station stopped while its check folds (here `drr table run`, SIGTERM: the croupier station's
    stop runs the same service close) ends in order well inside the 5 s budget, and the verdict on the
    forged rows, never reached, is not written after the stop."""
    import os
    import signal
    import subprocess
    import sys

    from tests.table.helpers import drr_env

    db = tmp_path / "t.sqlite"
    with open_store(str(db), table="T1") as store:
        asyncio.run(_played(store, monkeypatch))
        _forge(store)
    keys._CACHE.clear()
    run = ["table", "run", "--headless", "--wheel", "sim", "--speed", "200", "--rounds", "0", "--seed", "7"]
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, *run, "--db", str(db), "--table", "T1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=drr_env(tmp_path),
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.stderr is not None and proc.stdout is not None
    watchdog = threading.Timer(60, proc.kill)  # a line that never comes fails the test, never hangs it
    watchdog.start()
    try:
        assert "the derived check is folding" in proc.stderr.readline()
        line = proc.stdout.readline()  # what recovery found, then the rounds: it deals while it folds
        while line and not line.startswith("T1-"):
            line = proc.stdout.readline()
        assert line.startswith("T1-")
        began = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert time.monotonic() - began < 5.0
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    with open_store(str(db), table="T1") as store:
        assert _tilts(store) == [] and _alerts(store) == []


def test_a_derived_tilt_is_cleared_by_the_start_that_folds_the_journal_before_dealing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tilt journaled by a check on a snapshot, then a start that folds the journal before it
    deals (a journal under the limit): refused while the rows still disagree, and once rebuilt the
    start's own entries clear the tilt and the table deals at once."""

    async def main() -> None:
        await _played(store, monkeypatch)
        _forge(store)
        svc = make_service(store)
        await svc.start()
        await svc.derived_checked()
        await svc.close()
        monkeypatch.setattr(evidence, "DERIVED_AT_START", 100_000)
        with pytest.raises(DrrError, match="does not start"):
            await make_service(store).start()
        with store.begin() as conn:
            projections.rebuild(conn, "T1")
        again = make_service(store)
        started = await again.start()
        assert again.derived_watch is None and "table.tilt_cleared" in [e.type for e in started]
        await _deal_one(again)
        await again.close()

    asyncio.run(main())
    assert [t["cause"] for t in _tilts(store)] == ["derived", "derived"]
