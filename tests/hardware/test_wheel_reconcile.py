"""Issue 26 item 2: the wheel's own log held against the journal, game by game."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine.rng import SeededRng
from engine.store import open_store
from engine.store.records import Entry
from engine.table.headless import HeadlessTable
from hardware.protocol.ss2_log import LogEntry, encode_page
from hardware.table_bridge import table_events
from hardware.wheel_reconcile import JournalGame, journal_games, reconcile
from hardware.wheel_source import open_wheel
from tests.table.helpers import make_service


def test_reconcile_in_order_with_gaps_wraps_and_differences() -> None:
    games = [
        JournalGame(255, 7, "T1-1", 7),
        JournalGame(256, 8, "T1-2", 8),
        JournalGame(1, 9, "T1-3", 10),  # the counter wrapped; a manual result said 10
        JournalGame(3, 4, "T1-4", 4),  # game 2 was never heard by the table
    ]
    log = [LogEntry("result", n) for n in (30, 7, 8)] + [LogEntry("misfire", 5)]
    log += [LogEntry("result", n) for n in (9, 21, 4)]
    out = reconcile(games, log)
    assert out == {
        "matched": 3,
        "journal_only": [],
        "wheel_only": [{"game": 2, "wheel": 21}],
        "differ": [{"round_id": "T1-3", "game": 1, "journal": 10, "wheel": 9}],
        "misfires": 1,
    }
    short = reconcile(games, [LogEntry("result", 4)])
    assert [row["game"] for row in short["journal_only"]] == [255, 256, 1]


def test_a_store_played_on_the_virtual_wheel_reconciles_then_one_changed_game_differs(tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"

    async def go() -> list[LogEntry]:
        with open_store(str(db), table="T1") as store:
            svc = make_service(store, seed=5)
            await svc.start()
            headless = HeadlessTable(svc, rounds=4, choices=SeededRng(3))
            async with open_wheel("sim:free", speed=250, seed=4) as link:

                async def events() -> Any:
                    async for ev in table_events(link):
                        yield ev

                await asyncio.wait_for(headless.run(events()), timeout=60)
                log = list(link.wheel.log)  # type: ignore[attr-defined]
            await svc.close()
        return log

    log = asyncio.run(go())
    with open_store(str(db), table="T1") as store:
        games = journal_games(store.journal.entries("T1"))
    assert len(games) >= 4
    out = reconcile(games, log)
    assert out["matched"] == len(games) and out["differ"] == [] and out["wheel_only"] == []

    def capture(entries: list[LogEntry]) -> Path:
        path = tmp_path / "log.capture"
        lines = ["*s t 1", encode_page(0, entries)]
        path.write_text(
            "".join(f"2026-12-02T06:00:0{i}.000\tRX\t{t}\n" for i, t in enumerate(lines)), "latin-1"
        )
        return path

    def drr(path: Path) -> subprocess.CompletedProcess[str]:
        cmd = ["wheel", "reconcile", "--db", str(db), "--table", "T1", "--log", str(path), "--json"]
        return subprocess.run(
            [sys.executable, "-m", "gui.cli", *cmd], capture_output=True, text=True, check=False
        )

    ok = drr(capture(log))
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["matched"] == len(games)
    # The wheel's log says another number for one game than the journal recorded.
    last = log[-1]
    changed = [*log[:-1], LogEntry("result", (last.pocket + 1) % 37)]
    bad = drr(capture(changed))
    assert bad.returncode == 1
    figures = json.loads(bad.stdout)
    assert figures["matched"] == len(games) - 1
    [row] = figures["differ"]
    assert row["game"] == games[-1].game and row["wheel"] == (last.pocket + 1) % 37
    assert row["journal"] == last.pocket


def _stored(seq: int, kind: str, payload: dict[str, object], round_id: str | None = None) -> Entry:
    return Entry(
        "T1", seq, "2026-12-03T10:00:00.000+00:00", "wheel", round_id, kind, json.dumps(payload), "", ""
    )


def test_an_old_journals_restart_spelling_is_a_restart_not_a_gap() -> None:
    # `wheel.wheel_restart` is how older journals spell `wheel.restart` (engine.entry_types.LEGACY): the
    # counter went back to 1 because the wheel was power-cycled, so no game between is the wheel's only.
    entries = [
        _stored(1, "wheel.result", {"game": 7, "number": 3, "accepted": True}, "T1-000001"),
        _stored(2, "wheel.wheel_restart", {"game": 1, "previous": 7}),
        _stored(3, "wheel.result", {"game": 1, "number": 5, "accepted": True}, "T1-000002"),
    ]
    games = journal_games(entries)
    assert [(g.game, g.restart) for g in games] == [(7, False), (1, True)]
    figures = reconcile(games, [LogEntry("result", 3), LogEntry("result", 5)])
    assert (figures["matched"], figures["wheel_only"]) == (2, [])
