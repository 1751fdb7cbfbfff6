"""Stopping a station's background tasks: cancelled again and again until each has ended (no Qt)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

STOP_POLL_S = 0.2  # how long a stop waits before cancelling a task again


async def cancel_until_done(tasks: Collection[asyncio.Task[Any]], *, poll_s: float = STOP_POLL_S) -> None:
    """Cancel `tasks` and wait until every one has ended, cancelling the ones still running again every
    `poll_s`. One cancel is not enough: Python 3.11's asyncio.wait_for can swallow a cancel that lands
    as the awaited reply arrives, and a task that lost its cancel goes on (a wheel question waiting
    an hour for the next clock reading) while the stop waits for it. `tasks` may be a live set the
    tasks remove themselves from; a task's failure at the stop is retrieved (no news then)."""
    seen: set[asyncio.Task[Any]] = set()
    while pending := [task for task in list(tasks) if not task.done()]:
        seen.update(pending)
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=poll_s)
    for task in seen | set(tasks):
        if not task.cancelled():
            task.exception()
