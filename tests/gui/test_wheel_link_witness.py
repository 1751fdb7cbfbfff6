"""The croupier station asks the wheel what `drr table run --headless` asks it, through the same path
(hardware.wheel_session): its identity at connect, its log reconciled at the table's close, the
outcomes shown to the croupier in words (issue 26). On the virtual wheel in-process and on a pty (the
serial link's own path; a real port and a real wheel are not available here)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.journal_types import read
from engine.round import Phase
from engine.wheel_events import WheelIdentity, WheelReconciled
from gui.wheel_link import WheelFeed
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables, entries, service_of

ROOT = Path(__file__).resolve().parents[2]
SPEED = 40.0


async def until(condition: Callable[[], bool], seconds: float = 30.0, table: Any = None) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    seen = [(e.type, dict(e.payload)) for e in entries(table)][-12:] if table is not None else ""
    raise AssertionError(f"timed out waiting for {condition.__doc__ or condition}: {seen}")


async def play_one_round(table: Any, feed: WheelFeed) -> None:
    """One round from the wheel's start to settled, the commanded wheel started by the table."""
    await until(lambda: E.WHEEL_STARTED in [e.type for e in entries(table)], table=table)
    table.open_bets()
    await until(lambda: table.phase is Phase.OPEN and not table.tasks, table=table)
    table.place_wager("Seat 1", inside_bet([9]), Decimal(1))
    await until(lambda: table.phase is Phase.RESULT, table=table)
    await until(lambda: not table.tasks, table=table)
    table.settle()
    await until(lambda: table.phase is not Phase.RESULT and not table.tasks, table=table)
    table.next_round()
    await until(lambda: not table.tasks and (table.source.state.round is None), table=table)


def _station(tables: LiveTables, qtbot: QtBot, spec: str, speed: float) -> tuple[Any, WheelFeed, Any]:
    table = tables.start(seed=3, players=("Seat 1",), betting_seconds=0.3, auto_confirm_seconds=0.2)
    window = CroupierWindow(table, table.players)
    qtbot.addWidget(window)
    feed = WheelFeed(table, spec, speed=speed, say=window.show_reason)
    return table, feed, window


def _close_and_check(tables: LiveTables, table: Any, feed: WheelFeed, window: Any) -> None:
    service = service_of(table)
    [identity] = [read(e) for e in entries(table, E.WHEEL_IDENTITY)]
    assert isinstance(identity, WheelIdentity) and identity.version == "SS2 virtual wheel 2.52"
    assert feed.said[0].startswith("the wheel connected: firmware 252")
    entry = tables.call(feed.close_table(service.store, service.table, None))
    assert isinstance(entry, WheelReconciled) and (entry.matched, entry.occasion) == (1, "close")
    [journaled] = [read(e) for e in entries(table, E.WHEEL_RECONCILED)]
    assert journaled == entry
    # The croupier reads the outcome on the window's reason line.
    words = "wheel log reconciled at close: the wheel's log and the journal agree — 1 matched, 0 differ"
    assert words in feed.said[-1] and words in window.reason.text()
    assert "the wheel's log and the journal agree" in window.reason.text()
    # The wheel powered down for its log is the close's, not a fault of the round: not journaled.
    assert E.WHEEL_CLOSED not in [e.type for e in entries(table)]
    assert [read(e).occasion for e in entries(table, E.WHEEL_CLOCK)] == ["reconcile"]  # type: ignore[union-attr]


def test_the_croupier_station_asks_identity_and_reconciles_at_close(tables: LiveTables, qtbot: QtBot) -> None:
    table, feed, window = _station(tables, qtbot, "sim", 40.0)

    async def play() -> None:
        feed.start()
        await until(lambda: bool(entries(table, E.WHEEL_IDENTITY)), table=table)
        await play_one_round(table, feed)

    try:
        tables.call(play())
        _close_and_check(tables, table, feed, window)
    finally:
        tables.call(feed.stop())


def test_a_round_in_play_keeps_the_wheel_powered_at_close(tables: LiveTables, qtbot: QtBot) -> None:
    table, feed, window = _station(tables, qtbot, "sim", 40.0)

    async def open_a_round() -> None:
        feed.start()
        await until(lambda: bool(entries(table, E.WHEEL_IDENTITY)), table=table)
        await until(lambda: E.WHEEL_STARTED in [e.type for e in entries(table)], table=table)
        table.open_bets()
        await until(lambda: table.phase is Phase.OPEN and not table.tasks, table=table)

    try:
        tables.call(open_a_round())
        service = service_of(table)
        assert tables.call(feed.close_table(service.store, service.table, None)) is None
        assert entries(table, E.WHEEL_RECONCILED) == []
        assert "is still in play" in window.reason.text() and "drr wheel reconcile" in window.reason.text()
    finally:
        tables.call(feed.stop())


@pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals are POSIX only")
def test_the_same_through_the_serial_link_on_a_pty(tables: LiveTables, qtbot: QtBot, tmp_path: Path) -> None:
    # `drr wheel simulate --pty`: the virtual wheel in user start (mode 1159) on a pseudo-terminal, in
    # a process of its own; the station opens it as a serial port.
    device = tmp_path / "wheel"
    cmd = [sys.executable, "-m", "gui.cli", "wheel", "simulate", "--pty", "--link", str(device)]
    cmd += ["--speed", str(SPEED), "--mode", "1159", "--seed", "5"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    wheel = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(500):
            if device.exists() or wheel.poll() is not None:
                break
            time.sleep(0.02)
        assert device.exists(), wheel.stderr.read() if wheel.stderr else ""
        table, feed, window = _station(tables, qtbot, f"serial:{device}", 1.0)

        async def play() -> None:
            feed.start()
            # The wheel runs SPEED times a real one's pace: the SS2 timing rules shrink with it.
            feed.link.protocol.time_scale = SPEED
            await until(lambda: bool(entries(table, E.WHEEL_IDENTITY)), table=table)
            await play_one_round(table, feed)

        try:
            tables.call(play())
            _close_and_check(tables, table, feed, window)
        finally:
            tables.call(feed.stop())
    finally:
        wheel.terminate()
        wheel.wait(timeout=10)
