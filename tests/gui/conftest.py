"""GUI test fixtures: a qasync event loop on the test's QApplication, for screens driven by the async
table service."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtWidgets import QApplication


@pytest.fixture
def loop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(event_loop)
    yield event_loop
    event_loop.close()
    asyncio.set_event_loop(None)
