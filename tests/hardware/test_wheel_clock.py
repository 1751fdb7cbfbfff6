"""The wheel's clock is read again after the connect (issue 26): every `wheel.clock_check_minutes` and
at each reconciliation (`wheel.clock`), so a clock drifting from the table PC's raises the clock alarm
while the table runs, not only at the next connect. The virtual wheel's `gain=S` fault: its clock
gains S seconds with every game it starts."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from engine.config import load_settings
from engine.entry_types import EntryType
from engine.floor.alerts import list_alerts, scanner_from_settings
from engine.floor.wheel_alarms import TableWatch, WatchSettings
from engine.journal_types import read
from engine.store import open_store
from engine.wheel_events import WheelClock, WheelEvent, WheelIdentity
from hardware.wheel_session import WheelSession
from hardware.wheel_source import open_wheel

ROOT = Path(__file__).resolve().parents[2]


def test_the_clock_is_read_again_and_its_drift_raises_the_alarm() -> None:
    journaled: list[WheelEvent] = []

    async def journal(event: WheelEvent) -> None:
        journaled.append(event)

    async def session() -> WheelSession:
        async with open_wheel("sim:free,gain=40", speed=50, seed=1) as link:
            s = WheelSession(link, journal, spec="sim", clock_every_s=0.3)
            s.start()
            try:
                for _ in range(1500):
                    if len(s.clocks) >= 4 and s.clocks[-1].offset and s.clocks[-1].offset > 60:
                        break
                    await asyncio.sleep(0.02)
            finally:
                await s.stop()
            return s

    s = asyncio.run(session())
    assert isinstance(journaled[0], WheelIdentity) and journaled[0].offset is not None
    assert journaled[0].offset <= 60  # in step at connect
    clocks = [e for e in journaled if isinstance(e, WheelClock)]
    assert clocks == s.clocks and {c.occasion for c in clocks} == {"periodic"}
    offsets = [c.offset for c in clocks]
    assert offsets == sorted(offsets) and offsets[-1] is not None and offsets[-1] > 60  # it drifts
    watch = TableWatch(WatchSettings())
    said = [a for e in journaled for a in watch.feed(e, "2026-12-03T10:00:00.000+00:00")]
    assert said and {a.kind for a in said} == {"wheel_clock"}
    assert "ahead of the table PC's" in said[0].detail


def test_the_reconciliation_reads_the_clock_again(tmp_path: Path) -> None:
    # No periodic re-read: the connect finds the clock in step, the close finds it drifted.
    db, config = tmp_path / "t.sqlite", tmp_path / "t.toml"
    config.write_text("[wheel]\nclock_check_minutes = 0\n", encoding="utf-8")
    cmd = ["table", "run", "--headless", "--wheel", "sim:gain=25", "--speed", "60", "--rounds", "4"]
    cmd += ["--seed", "3", "--db", str(db), "--table", "T1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DRR_CONFIG": str(config)}
    done = subprocess.run(
        [sys.executable, "-m", "gui.cli", *cmd],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "the journal agree — 4 matched" in done.stdout
    assert "the wheel connected" not in done.stdout  # one line per round, the close, the summary
    with open_store(str(db), table="T1") as store:
        entries = list(store.journal.entries("T1"))
        [identity] = [read(e) for e in entries if e.type == EntryType.WHEEL_IDENTITY]
        [clock] = [read(e) for e in entries if e.type == EntryType.WHEEL_CLOCK]
        assert isinstance(identity, WheelIdentity) and identity.offset is not None and identity.offset <= 60
        assert isinstance(clock, WheelClock) and clock.occasion == "reconcile"
        assert clock.offset is not None and clock.offset >= 100
        # The clock entry comes before the reconciliation it was read with.
        kinds = [e.type for e in entries]
        assert kinds.index(EntryType.WHEEL_CLOCK) < kinds.index(EntryType.WHEEL_RECONCILED)
        scanner_from_settings(load_settings(config)).scan(store, ["T1"])
        [alert] = [a for a in list_alerts(store) if a.kind == "wheel clock"]
        assert "ahead of the table PC's" in alert.message
