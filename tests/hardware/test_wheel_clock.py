"""The wheel's clock is read again after the connect (issue 26): every `wheel.clock_check_minutes` and
at each reconciliation (`wheel.clock`), so a clock drifting from the table PC's raises the clock alarm
while the table runs, not only at the next connect. The virtual wheel's `gain=S` fault: its clock
gains S seconds with every game it starts."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
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
from tests.table.helpers import VirtualTimeLoop, headless_shift


def test_the_clock_is_read_again_and_its_drift_raises_the_alarm() -> None:
    journaled: list[WheelEvent] = []

    async def journal(event: WheelEvent) -> None:
        journaled.append(event)

    # On the loop's own clock (tests/table/helpers.py): the wheel's clock and the PC's are the loop's,
    # so each offset is the gain exactly, whatever the machine's load.
    loop = VirtualTimeLoop(datetime(2026, 12, 3, 10, 0, tzinfo=UTC).timestamp())

    async def session() -> WheelSession:
        async with open_wheel("sim:free,gain=40", speed=50, seed=1, clock=loop.wall) as link:
            s = WheelSession(
                link, journal, spec="sim", clock_every_s=0.3, now=lambda: datetime.fromtimestamp(loop.wall())
            )
            s.start()
            try:
                while not (len(s.clocks) >= 4 and s.clocks[-1].offset and s.clocks[-1].offset > 60):
                    await asyncio.sleep(0.02)
            finally:
                await s.stop()
            return s

    with asyncio.Runner(loop_factory=lambda: loop) as runner:
        s = runner.run(asyncio.wait_for(session(), 600))
    assert isinstance(journaled[0], WheelIdentity) and journaled[0].offset == 0  # in step at connect
    clocks = [e for e in journaled if isinstance(e, WheelClock)]
    assert clocks == s.clocks and {c.occasion for c in clocks} == {"periodic"}
    offsets = [c.offset for c in clocks]
    assert offsets == sorted(offsets) and offsets[-1] is not None and offsets[-1] > 60  # it drifts
    assert all(o is not None and o % 40 == 0 for o in offsets)  # 40 s with every game started
    watch = TableWatch(WatchSettings())
    said = [a for e in journaled for a in watch.feed(e, "2026-12-03T10:00:00.000+00:00")]
    assert said and {a.kind for a in said} == {"wheel_clock"}
    assert "ahead of the table PC's" in said[0].detail


def test_the_reconciliation_reads_the_clock_again(tmp_path: Path) -> None:
    # No periodic re-read: the connect finds the clock in step, the close finds it drifted.
    db, config, printed = headless_shift(
        tmp_path, "t", "sim:gain=25", 4, "[wheel]\nclock_check_minutes = 0\n"
    )
    assert "the journal agree — 4 matched" in printed
    assert "the wheel connected" not in printed  # one line per round, the close, the summary
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
