"""Issue 24 finding 7: silent loss. The `-wal` file deleted while a table deals is noticed at the next
write (the table stops and says so, the committed rounds saved into the store file before a kill can
take them), and derived tables edited behind the journal stop the table at its start."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.store import keys, open_store
from engine.store.verify import verify
from tests.table.helpers import make_service, voided_session

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, os, sys
from pathlib import Path
from engine.errors import DrrError
from engine.store import open_store
from tests.table.helpers import CROUPIER, PITBOSS, cover_everything, make_service

path = Path(sys.argv[1])

async def main() -> None:
    store = open_store(str(path), table="T1")
    svc = make_service(store)
    await svc.start()
    for _ in range(2):
        await svc.open_bets(CROUPIER)
        await cover_everything(svc)
        await svc.void(PITBOSS, "test round")
        await svc.next_round(CROUPIER)
    Path(f"{path}-wal").unlink()  # the insider (or a cleaner) removes the write-ahead log
    for attempt in range(2):
        try:
            await svc.open_bets(CROUPIER)
            await cover_everything(svc)
            print("dealt on", flush=True)
        except DrrError as error:
            print("STOPPED:", error, flush=True)
    os._exit(9)  # then the process is killed (power cut, kill -9): no close, no checkpoint

asyncio.run(main())
"""


def _rounds(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM journal WHERE type = 'round.opened'").fetchone()[0])
    finally:
        conn.close()


def test_a_deleted_wal_file_stops_the_table_at_the_next_write_and_nothing_is_lost(tmp_path: Path) -> None:
    """Before: nothing warned, the table dealt on, and the kill lost every round since the last
    checkpoint (here all of them)."""
    path = tmp_path / "table.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 9, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("STOPPED:") for line in lines), done.stdout
    assert "-wal was deleted while the table was writing" in lines[0] and "the table stops" in lines[0]
    assert "copied into the store file" in lines[0]
    keys._CACHE.clear()
    assert _rounds(path) == 2  # the two rounds dealt before the deletion survived the kill
    with open_store(str(path), table="T1") as store:
        assert verify(store, "T1").ok


@pytest.mark.parametrize(
    "forgery",
    [
        "UPDATE rounds SET paid = '1000000.00'",
        "UPDATE daily_totals SET paid = '1000000.00'",
    ],
)
def test_derived_tables_edited_behind_the_journal_stop_the_table_at_its_start(
    tmp_path: Path, forgery: str
) -> None:
    """Before: `drr audit verify` named the edit but the table started, and history and reports showed
    the forged money until `drr db rebuild`."""
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 1))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(forgery)
    conn.close()
    keys._CACHE.clear()
    with open_store(str(path), table="T1") as store, pytest.raises(DrrError) as refused:
        asyncio.run(make_service(store).start())
    message = str(refused.value)
    assert "does not start" in message and "paid" in message and "drr db rebuild" in message, message
    with open_store(str(path), table="T1") as store:
        alerts = [dict(e.payload) for e in store.journal.entries("floor") if e.type == "alert.raised"]
        assert [(a["kind"], a["severity"]) for a in alerts] == [("derived_mismatch", "critical")]
        assert "paid" in str(alerts[0]["message"])
        assert list(store.journal.entries("T1"))[-1].type != "table.started"  # the table did not start
