"""Issue 26 item 2: every reconciliation of the wheel's own log is journaled (`wheel.reconciled`), a game
the log contradicts or only the log holds is one surveillance alert, the reports show it; on the
virtual wheel, read at the table's close like a real one."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.entry_types import EntryType
from engine.floor.actions import correct_result
from engine.floor.alerts import AlertScanner, list_alerts
from engine.floor.describe import describe_entry
from engine.floor.reports import table_report
from engine.journal_types import read
from engine.rng import SeededRng
from engine.store import open_store
from engine.table.headless import HeadlessTable
from engine.wheel_events import ReconciledGame, WheelReconciled
from hardware.protocol.ss2_log import LogEntry, WheelLog, encode_page
from hardware.table_bridge import table_events
from hardware.wheel_log import read_log_at_close
from hardware.wheel_reconcile import journal_games, reconcile_table
from hardware.wheel_source import open_wheel
from tests.table.helpers import PITBOSS, make_service

ROOT = Path(__file__).resolve().parents[2]


def _play(db: Path, rounds: int) -> WheelLog:
    """`rounds` rounds on the free-running virtual wheel, then its log read as at the table's close."""

    async def go() -> WheelLog:
        with open_store(str(db), table="T1") as store:
            svc = make_service(store, seed=5)
            await svc.start()
            headless = HeadlessTable(svc, rounds=rounds, choices=SeededRng(3))
            async with open_wheel("sim:free", speed=250, seed=4) as link:

                async def events() -> Any:
                    async for ev in table_events(link):
                        yield ev

                await asyncio.wait_for(headless.run(events()), timeout=60)
                record = await read_log_at_close(link)
            await svc.close()
        return record

    return asyncio.run(go())


def _reconciled(store: Any) -> list[WheelReconciled]:
    out = []
    for e in store.journal.entries("T1"):
        if e.type == EntryType.WHEEL_RECONCILED:
            p = read(e)
            assert isinstance(p, WheelReconciled)
            out.append(p)
    return out


def test_virtual_wheel_store_reconciles_then_a_corrected_result_is_the_one_difference(tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    record = _play(db, 3)
    assert record.pages_used == 1 and all(p.checksum_ok for p in record.pages.values())
    with open_store(str(db), table="T1") as store:
        first = reconcile_table(store, "T1", record, source="sim", occasion="close")
        assert first.matched >= 3 and not first.differs, first
        scanner = AlertScanner()
        scanner.scan(store, ["T1"])
        assert not [a for a in list_alerts(store) if a.kind.startswith("wheel")]

        # A pit boss changes a settled round's result: the wheel's log contradicts it.
        settled = [e for e in store.journal.entries("T1") if e.type == EntryType.ROUND_SETTLED]
        round_id = settled[-1].round_id
        assert round_id is not None
        old = correct_result(store, round_id, 0 if _result(store, round_id) else 1, "typed wrong", PITBOSS)
        second = reconcile_table(store, "T1", record, source="sim", occasion="on demand", user=PITBOSS)
        assert second.matched == first.matched - 1
        [row] = second.differ
        assert row.round_id == round_id and row.wheel == old and row.journal != old
        assert second.by == "pete" and second.journal_only == () and second.wheel_only == ()

        # One alert for the fact, raised once however often it is scanned or reconciled again.
        scanner.scan(store, ["T1"])
        reconcile_table(store, "T1", record, source="sim", occasion="on demand")
        scanner.scan(store, ["T1"])
        AlertScanner().scan(store, ["T1"])
        wheel_alerts = [a for a in list_alerts(store) if a.kind == "wheel log differs"]
        assert [(a.alert_id, a.severity, a.round_id) for a in wheel_alerts] == [
            (f"T1:{round_id}:wheel log differs", "critical", round_id)
        ]
        assert f"the journal has {row.journal}, the wheel's own log {old}" in wheel_alerts[0].message

        entries = [e for e in store.journal.entries("T1") if e.type == EntryType.WHEEL_RECONCILED]
        words = describe_entry(entries[1])
        assert "reconciled (on demand, sim)" in words and f"round {round_id}" in words

        now = datetime.now(UTC)
        report = table_report(store, "T1", now - timedelta(hours=1), now + timedelta(minutes=1))
        figures = dict(report.figures())
        assert figures["Wheel log reconciliations"] == "3"
        assert figures["Wheel log reconciliations with differences"] == "2"
        assert "1 differ" in figures["Last wheel log reconciliation"]


def _result(store: Any, round_id: str) -> int:
    for e in store.journal.entries("T1"):
        if e.round_id == round_id and e.type == EntryType.ROUND_RESULT:
            return int(e.payload["number"])
    raise AssertionError(round_id)


def test_a_wheel_game_the_journal_lacks_is_one_warning() -> None:
    from engine.floor.alerts import _reconciliation_alerts

    p = WheelReconciled(matched=3, misfires=0, wheel_only=(ReconciledGame(game=7, wheel=26),))
    [alert] = _reconciliation_alerts("T1", 40, "2026-12-03T10:00:00.000000Z", p)
    assert (alert.alert_id, alert.severity, alert.kind) == (
        "T1:wheel only:7:2026-12-03",
        "warning",
        "wheel game not journaled",
    )
    assert "wheel game 007 (26)" in alert.message


def test_drr_wheel_reconcile_journals_each_run(tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    record = _play(db, 2)
    log = [e for e in record.entries()]
    path = tmp_path / "log.capture"
    lines = ["*s t 1", encode_page(0, [*log[:-1], LogEntry("result", (log[-1].pocket + 1) % 37)])]
    path.write_text("".join(f"2026-12-02T06:00:0{i}.000\tRX\t{t}\n" for i, t in enumerate(lines)), "latin-1")
    cmd = ["wheel", "reconcile", "--db", str(db), "--table", "T1", "--log", str(path), "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "gui.cli", *cmd], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 1, done.stderr
    printed = json.loads(done.stdout)
    with open_store(str(db), table="T1") as store:
        [entry] = _reconciled(store)
    assert entry.figures() == printed and entry.occasion == "on demand"
    assert entry.source == f"capture {path}" and entry.pages_used == 1 and len(entry.differ) == 1


def test_the_headless_table_reconciles_the_virtual_wheel_at_close(tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    cmd = ["table", "run", "--headless", "--wheel", "sim", "--speed", "60", "--rounds", "2", "--seed", "3"]
    cmd += ["--db", str(db), "--table", "T1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "gui.cli", *cmd],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "wheel log reconciled at close: " in done.stdout, done.stdout
    with open_store(str(db), table="T1") as store:
        [entry] = _reconciled(store)
    assert entry.occasion == "close" and entry.source == "sim" and not entry.differs
    assert entry.matched >= 2 and entry.pages_used == 1


def _capture_of_a_session(path: Path, games: int) -> list[LogEntry]:
    """A capture as the table's capture folder keeps it: the virtual wheel's lines for `games` games,
    then the replies of the log read at the close (`*s t`, the page, `*W`, `*M`)."""
    from hardware.capture import CaptureLine
    from hardware.virtual_wheel import MODE_FREE, VirtualWheel

    async def go() -> tuple[list[CaptureLine], VirtualWheel]:
        wheel = VirtualWheel(speed=20, seed=4, mode=MODE_FREE)
        lines: list[CaptureLine] = []
        async for line in wheel.lines():
            lines.append(CaptureLine(datetime.now(), "RX", line))
            if wheel.results_played >= games and line.startswith("*X;2"):
                break
        wheel.stop()
        return lines, wheel

    lines, wheel = asyncio.run(go())
    end = lines[-1].time
    log = list(wheel.log)
    replies = ["*s t 1", encode_page(0, log)]
    for key, counts in (("W", wheel.wins), ("M", wheel.misfires)):
        replies += [f"*{key} {sum(counts)}", f"*{key} " + " ".join(map(str, counts))]
    lines += [CaptureLine(end + timedelta(seconds=1 + i / 10), "RX", text) for i, text in enumerate(replies)]
    path.write_text("".join(line.format() + "\n" for line in lines), "latin-1")
    return log


@pytest.mark.slow  # started first (tests/conftest.py)
def test_a_replayed_session_reconciles_at_close_with_the_log_its_capture_holds(tmp_path: Path) -> None:
    capture = tmp_path / "session.capture"
    log = _capture_of_a_session(capture, 4)
    db = tmp_path / "table.sqlite"
    cmd = ["table", "run", "--headless", "--wheel", f"replay:{capture}", "--rounds", "50", "--seed", "3"]
    cmd += ["--db", str(db), "--table", "T1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "gui.cli", *cmd],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert "wheel log reconciled at close: " in done.stdout, done.stdout
    with open_store(str(db), table="T1") as store:
        [entry] = _reconciled(store)
        heard = journal_games(store.journal.entries("T1"))
    assert entry.occasion == "close" and entry.source == f"replay:{capture}"
    assert entry.pages_used == 1 and entry.wins_total == len([e for e in log if e.kind == "result"])
    assert not entry.differs and entry.matched == len(heard) >= 3


def test_a_manual_result_the_wheel_contradicts_is_the_one_difference(tmp_path: Path) -> None:
    """A round played on the commanded virtual wheel whose result the croupier entered by hand with
    another number than the wheel's: the reconciliation names that round alone, one critical alert."""
    from decimal import Decimal

    from engine.bets import inside_bet
    from engine.table.service import TableService
    from hardware.table_bridge import WheelDriver
    from tests.table.helpers import CROUPIER

    async def until(condition: Any) -> None:
        for _ in range(1500):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("timed out")

    async def go() -> tuple[str, int, WheelLog]:
        store = open_store(str(tmp_path / "t.sqlite"), table="T1")
        svc = TableService(
            store, "T1", rng=SeededRng(5), allow_seeded_rng=True, claim=False, betting_seconds=0.3
        )
        await svc.start()
        async with open_wheel("sim", speed=40, seed=9) as link:

            async def pump() -> None:
                async for ev in table_events(link):
                    await svc.wheel_event(ev)

            task = asyncio.create_task(pump())
            driver = WheelDriver(svc, link)
            driver.attach()
            await svc.open_bets(CROUPIER)
            await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
            await until(lambda: svc.state.pending_result is not None)
            pending = svc.state.pending_result
            assert pending is not None
            typed = (pending.number + 1) % 37
            await svc.manual_result(PITBOSS, typed, "the sensor read it wrong")
            await svc.manual_result(PITBOSS, typed, "the sensor read it wrong")
            round_id = svc.state.round_id
            assert round_id is not None
            await driver.close()
            record = await read_log_at_close(link)
            task.cancel()
        await svc.close()
        with store:
            entry = reconcile_table(store, "T1", record, source="sim", occasion="close")
            AlertScanner().scan(store, ["T1"])
            alerts = [(a.alert_id, a.severity) for a in list_alerts(store) if a.kind == "wheel log differs"]
        assert alerts == [(f"T1:{round_id}:wheel log differs", "critical")]
        [row] = entry.differ
        assert (row.round_id, row.journal, row.wheel) == (round_id, typed, pending.number)
        assert entry.wheel_only == () and entry.journal_only == () and entry.matched == 0
        return round_id, typed, record

    asyncio.run(go())
