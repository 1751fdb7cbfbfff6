"""Live tables for the GUI tests: the real table service (gui.demo.start_table: a scratch SQLite
store, a seeded generator, a pit boss with a PIN) behind the adapter, driven on the test's qasync loop.

The service is async and the screens' commands become tasks on the loop; `run()` runs the loop until
every one of them has been journaled (or refused) and its signals have reached the screens. Nothing
waits a fixed time: a test waits on the commands it sent, or on a condition (`until`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from engine import wheel_events as ev
from engine.store.records import Entry
from gui import demo
from gui.table_model import TableModel

T = TypeVar("T")
PIT_BOSS, PIN = demo.DEMO_PIT_BOSS, demo.DEMO_PIN
service_of = demo.service_of


class LiveTables:
    def __init__(self, loop: asyncio.AbstractEventLoop, directory: Path) -> None:
        self.loop = loop
        self.directory = directory
        self.started: list[TableModel] = []

    def start(self, **options: Any) -> TableModel:
        """A started table (options as gui.demo.start_table: seed, players, table_id, rules_text, ...)."""
        return self.keep(self.call(demo.start_table(self.directory, **options)))

    def demo(self, make: Callable[[Path], Awaitable[TableModel]]) -> TableModel:
        """One of gui.demo's tables (`demo.croupier_after_lucky_win`, ...), played up to its state."""
        return self.keep(self.call(make(self.directory)))

    def keep(self, table: TableModel) -> TableModel:
        self.started.append(table)
        return table

    def call(self, work: Awaitable[T]) -> T:
        """Run the loop until `work` (a coroutine: a service command, a wait) is done; its result."""
        return self.loop.run_until_complete(work)

    def run(self) -> None:
        """Until every command sent to any started table has come back from the service."""

        async def drain() -> None:
            for table in self.started:
                await demo.idle(table)

        self.call(drain())

    def wheel(self, table: TableModel, event: ev.WheelEvent) -> None:
        """A wheel message through the adapter, as the wheel feed delivers it, acted on."""
        table.wheel_event(event)
        self.run()

    def until(self, condition: Callable[[], bool], seconds: float = 20.0) -> None:
        """Run the loop until `condition()` holds (a timeout fails the test)."""

        async def wait() -> None:
            deadline = self.loop.time() + seconds
            while not condition():
                if self.loop.time() > deadline:
                    raise AssertionError(f"timed out after {seconds} s waiting for {condition}")
                await asyncio.sleep(0.01)

        self.call(wait())

    def close(self) -> None:
        for table in self.started:
            self.call(demo.close_table(table))
        self.started.clear()


def journaled(table: TableModel) -> list[str]:
    """The types of the table's journal entries, in chain order."""
    return [e.type for e in entries(table)]


def entries(table: TableModel, kind: str | None = None) -> list[Entry]:
    """The table's journal entries (of type `kind`), in chain order."""
    service = demo.service_of(table)
    found = service.store.journal.entries(service.table)
    return [e for e in found if kind is None or e.type == kind]


def now() -> datetime:
    return datetime.now(UTC)
