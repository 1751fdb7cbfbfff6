"""Every commit of a short live floor reaches the surveillance wall (counted, not timed; issue 28)."""

from __future__ import annotations

import asyncio
import itertools
import threading
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.floor.demo import START, play_rounds, play_rounds_async
from engine.store import Store, open_store
from gui.windows import surveillance
from gui.windows.surveillance import SurveillanceWindow
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures

TABLES = ("T1", "T2", "T3", "T4")
ROUNDS = 2  # per table, every table playing at once: ~20 commits a table


def test_every_commit_reaches_its_wall_tile(
    qtbot: QtBot,
    store: Store,  # noqa: F811 - the fixture
    store_url: str,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four tables play at once on the floor (PostgreSQL: each commit NOTIFYs; SQLite: the poll) while the
    station watches its wall: every commit is followed, later, by a view of its table's tile holding
    it (a view's seq at or past the commit's). A commit whose tile was never shown again fails."""
    for table in TABLES:  # every table on the floor before the station opens
        play_rounds(store, table, 1, seed="open")
    order = itertools.count()  # one sequence for commits and views: "later" without a clock
    lock = threading.Lock()
    shown: list[tuple[str, int, int]] = []  # (table, seq of the view, order)
    commits: list[tuple[str, int, int]] = []  # (table, seq of the commit's last entry, order)
    show_view = surveillance.WallTile.show_view

    def recorded(tile: Any, view: Any, *rest: Any) -> None:
        show_view(tile, view, *rest)
        with lock:
            shown.append((tile.table, view.seq, next(order)))

    monkeypatch.setattr(surveillance.WallTile, "show_view", recorded)
    window = SurveillanceWindow(store)
    qtbot.addWidget(window)
    for i in range(window.tables.count()):
        window.tables.item(i).setCheckState(Qt.CheckState.Checked)
    window.tabs.setCurrentWidget(window.wall)
    assert set(window.wall_tiles) == set(TABLES)
    if window.watch.listener is not None:
        assert window.watch.listener.ready.wait(5)
    qtbot.wait(100)  # the poll after connecting

    failed: list[BaseException] = []

    def play() -> None:  # the tables' side: its own store, every table's rounds interleaved
        async def one(table: str, writer: Store) -> None:
            def note(entries: list[Any], t: str = table) -> None:
                if entries:
                    with lock:
                        commits.append((t, entries[-1].seq, next(order)))

            await play_rounds_async(writer, table, ROUNDS, seed="live", start=START, on_batch=note)

        async def every() -> None:
            with open_store(store_url, durable=False) as writer:
                await asyncio.gather(*(one(t, writer) for t in TABLES))

        try:
            asyncio.run(every())
        except BaseException as exc:  # handed to the test's thread
            failed.append(exc)

    writer = threading.Thread(target=play)
    writer.start()
    qtbot.waitUntil(lambda: not writer.is_alive(), timeout=60_000)
    assert not failed, failed
    heads = {t: max(seq for table, seq, _ in commits if table == t) for t in TABLES}

    def caught_up() -> bool:
        with lock:
            return all(any(t == table and s >= heads[t] for table, s, _ in shown) for t in TABLES)

    qtbot.waitUntil(caught_up, timeout=10_000)
    window.close()
    assert len(commits) >= len(TABLES) * ROUNDS * 5  # a round is several commits
    missed = [
        (t, seq)
        for t, seq, at in commits
        if not any(table == t and s >= seq and o > at for table, s, o in shown)
    ]
    assert missed == []
