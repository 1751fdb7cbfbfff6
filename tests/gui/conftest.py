"""GUI test fixtures: a qasync event loop on the test's QApplication, and live tables (the real table
service on scratch stores, tests/gui/live.py) driven on it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from tests.gui.live import LiveTables


@pytest.fixture
def loop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(event_loop)
    yield event_loop
    event_loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def tables(loop: asyncio.AbstractEventLoop, tmp_path: Path) -> Iterator[LiveTables]:
    """`tables.start(...)` a real table service behind the adapter; closed (service and store) after."""
    live = LiveTables(loop, tmp_path / "tables")
    live.directory.mkdir()
    yield live
    live.close()
