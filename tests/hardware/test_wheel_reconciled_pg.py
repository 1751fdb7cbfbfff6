"""Issue 26 item 2 on a PostgreSQL floor database: `drr wheel reconcile --db postgresql+psycopg://…` holds
the wheel's log against a table's forwarded chain there and reads its corrections as it reads them on
the table's own SQLite store — a result the croupier entered by hand (on the table's chain) and a pit
boss's correction at the floor (a `floor.action` on the floor's chain, until the table takes it); the
reconciliation journaled there (a `floor.action` too) raises its alert, is in the report, and stays at
the floor (the table has nothing to take)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.auth import User
from engine.bets import inside_bet
from engine.entry_types import EntryType
from engine.floor.actions import correct_result
from engine.floor.alerts import AlertScanner, list_alerts
from engine.floor.inbox import FloorInbox
from engine.floor.reports import table_report
from engine.floor.surveillance import floor_tables
from engine.rng import SeededRng
from engine.store import open_store
from engine.store.forward import Forwarder
from engine.store.users import FLOOR, add_user
from engine.table.service import TableService
from hardware.protocol.ss2_log import WheelLog, encode_page
from hardware.table_bridge import WheelDriver, table_events
from hardware.wheel_log import read_log_at_close
from hardware.wheel_reconcile import journal_games, reconcile_table
from hardware.wheel_source import open_wheel
from tests.pg_schema import PG_URL, pg_schema_url
from tests.table.helpers import CROUPIER, PITBOSS

ROOT = Path(__file__).resolve().parents[2]
PIN = "246810"


@pytest.fixture
def floor_url() -> Iterator[str]:
    assert PG_URL is not None  # tests/conftest.py starts a PostgreSQL of its own when none is named
    with pg_schema_url("drr_wheel") as url:
        yield url


async def _until(condition: Any) -> None:
    for _ in range(3000):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


def _play(db: Path, rounds: int, *, by_hand: int) -> tuple[WheelLog, str, int]:
    """`rounds` rounds on the commanded virtual wheel, round `by_hand` (1-based) with a result the
    croupier typed one off the wheel's; the wheel's log as read at the close, that round and the
    number the wheel gave it."""

    async def go() -> tuple[WheelLog, str, int]:
        store = open_store(str(db), table="T1")
        svc = TableService(
            store, "T1", rng=SeededRng(5), allow_seeded_rng=True, claim=False, betting_seconds=0.2
        )
        await svc.start()
        async with open_wheel("sim", speed=40, seed=9) as link:

            async def pump() -> None:
                async for ev in table_events(link):
                    await svc.wheel_event(ev)

            task = asyncio.create_task(pump())
            driver = WheelDriver(svc, link)
            driver.attach()
            for k in range(1, rounds + 1):
                await svc.open_bets(CROUPIER)
                await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
                await _until(lambda: svc.state.pending_result is not None)
                pending = svc.state.pending_result
                assert pending is not None
                if k == by_hand:
                    typed, wheel = (pending.number + 1) % 37, pending.number
                    marked = svc.state.round_id
                    await svc.manual_result(PITBOSS, typed, "the sensor read it wrong")
                    await svc.manual_result(PITBOSS, typed, "the sensor read it wrong")
                else:
                    await svc.confirm_result(CROUPIER)
                await svc.settle(CROUPIER)
                await svc.next_round(CROUPIER)
            await driver.close()
            record = await read_log_at_close(link)
            task.cancel()
        await svc.close()
        store.close()
        assert marked is not None
        return record, marked, wheel

    return asyncio.run(go())


def _reconcile(floor_url: str, log: Path, *signed: str) -> tuple[int, dict[str, Any]]:
    cmd = ["wheel", "reconcile", "--db", floor_url, "--table", "T1", "--log", str(log), "--json", *signed]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "gui.cli", *cmd],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode in (0, 1) and done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_the_floor_databases_reconcile_reads_a_manual_result_and_a_floor_correction(
    tmp_path: Path, floor_url: str
) -> None:
    db = tmp_path / "table.sqlite"
    record, by_hand, wheel_number = _play(db, 4, by_hand=2)
    log = tmp_path / "log.capture"
    lines = ["*s t 1", encode_page(0, record.entries())]
    log.write_text("".join(f"2026-12-02T06:00:0{i}.000\tRX\t{t}\n" for i, t in enumerate(lines)), "latin-1")
    with open_store(str(db), table="T1") as table, open_store(floor_url) as floor:
        assert Forwarder(table, floor, ["T1"]).forward_once() > 0
        games = journal_games(floor.journal.entries("T1"))
    assert [g.game for g in games] == [1, 2, 3, 4]

    # The croupier's manual result is on the table's chain, forwarded: the one game that differs.
    code, figures = _reconcile(floor_url, log)
    assert code == 1 and figures["matched"] == 3, figures
    [row] = figures["differ"]
    assert (row["round_id"], row["game"], row["wheel"]) == (by_hand, 2, wheel_number)
    assert row["journal"] == (wheel_number + 1) % 37

    # A pit boss corrects round 4 at the floor database: journaled on the floor's chain (the copy is
    # the table's), and read by the reconcile there at once, before the table takes it back.
    with open_store(floor_url) as floor:
        last = next(g for g in journal_games(floor.journal.entries("T1")) if g.game == 4)
        assert last.round_id is not None
        correct_result(floor, last.round_id, (last.wheel_said + 5) % 37, "misread", PITBOSS, table="T1")
    code, figures = _reconcile(floor_url, log)
    assert code == 1 and figures["matched"] == 2, figures
    assert [(r["round_id"], r["game"], r["journal"], r["wheel"]) for r in figures["differ"]] == [
        (by_hand, 2, (wheel_number + 1) % 37, wheel_number),
        (last.round_id, 4, (last.wheel_said + 5) % 37, last.wheel_said),
    ]

    # The table takes the correction back and forwards it: the floor has it twice, read once. (The
    # table takes an action only from a user of the floor database; once it has users, the reconcile
    # is signed.)
    with open_store(floor_url) as floor:
        add_user(floor, PITBOSS.name, "pitboss", PIN, by=User("admin", "admin"))
    with open_store(str(db), table="T1") as table, open_store(floor_url) as floor:
        taken = FloorInbox(table, floor, "T1").take()
        assert [t.outcome for t in taken if t.action == "round.result_corrected"] == ["taken"], taken
        assert Forwarder(table, floor, ["T1"]).forward_once() > 0
    code, again = _reconcile(floor_url, log, "--user", PITBOSS.name, "--pin", PIN)
    assert again["differ"] == figures["differ"] and again["matched"] == 2


def test_a_reconciliation_at_the_floor_database_raises_its_alert_is_reported_and_stays_at_the_floor(
    tmp_path: Path, floor_url: str
) -> None:
    db = tmp_path / "table.sqlite"
    record, by_hand, wheel_number = _play(db, 3, by_hand=2)
    with open_store(floor_url) as floor:
        add_user(floor, PITBOSS.name, "pitboss", PIN, by=User("admin", "admin"))
    with open_store(str(db), table="T1") as table, open_store(floor_url) as floor:
        assert Forwarder(table, floor, ["T1"]).forward_once() > 0
        entry = reconcile_table(floor, "T1", record, source="sim", occasion="on demand", user=PITBOSS)
        assert [(r.round_id, r.wheel) for r in entry.differ] == [(by_hand, wheel_number)]
        [action] = [e for e in floor.journal.entries(FLOOR) if e.type == EntryType.FLOOR_ACTION]
        assert action.payload["action"] == "wheel.reconciled"  # on the floor's chain, not the copy

        # One critical alert, the id a reconciliation on the table's own store raises, raised once
        # however often it is scanned.
        scanner = AlertScanner()
        scanner.scan(floor, floor_tables(floor))
        scanner.scan(floor, floor_tables(floor))
        AlertScanner().scan(floor, floor_tables(floor))
        wheel_alerts = [a for a in list_alerts(floor) if a.kind == "wheel log differs"]
        assert [(a.alert_id, a.severity, a.table, a.round_id) for a in wheel_alerts] == [
            (f"T1:{by_hand}:wheel log differs", "critical", "T1", by_hand)
        ]
        typed = (wheel_number + 1) % 37
        assert f"the journal has {typed}, the wheel's own log {wheel_number}" in wheel_alerts[0].message

        now = datetime.now(UTC)
        figures = dict(
            table_report(floor, "T1", now - timedelta(hours=1), now + timedelta(minutes=1)).figures()
        )
        assert figures["Wheel log reconciliations"] == "1"
        assert figures["Wheel log reconciliations with differences"] == "1"
        assert "1 differ" in figures["Last wheel log reconciliation"]

        # The table's forwarder passes it over: not refused, nothing journaled at the table for it.
        assert FloorInbox(table, floor, "T1").take() == []
        assert not [e for e in table.journal.entries("T1") if e.type == EntryType.TABLE_FLOOR_ACTION_TAKEN]
