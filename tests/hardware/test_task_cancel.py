"""hardware.task_cancel: a stop cancels until each task has ended, the one helper the wheel session's
stop and the croupier station's wheel feed (gui.wheel_link.WheelFeed.stop) share."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from hardware.task_cancel import cancel_until_done


async def _deaf_once(ended: list[str]) -> None:
    """A task that loses its first cancel, as asyncio.wait_for can (Python 3.11), then waits on."""
    with contextlib.suppress(asyncio.CancelledError):  # the cancel swallowed
        await asyncio.sleep(3600)
    try:
        await asyncio.sleep(3600)
    finally:
        ended.append("ended")


async def _fails() -> None:
    raise RuntimeError("the wheel went away")


def test_a_lost_cancel_is_sent_again_until_the_task_ends() -> None:
    async def go() -> list[str]:
        ended: list[str] = []
        tasks: set[asyncio.Task[Any]] = set()
        for coro in (_deaf_once(ended), _fails()):
            task = asyncio.ensure_future(coro)
            tasks.add(task)
            task.add_done_callback(tasks.discard)  # a live set the tasks leave, as the session's
        await asyncio.sleep(0)
        await asyncio.wait_for(cancel_until_done(tasks, poll_s=0.01), 5)
        return ended

    assert asyncio.run(go()) == ["ended"]


def test_the_wheel_feeds_stop_outlasts_a_lost_cancel() -> None:
    # Before, WheelFeed.stop cancelled once and gathered: a task that lost its cancel held it forever.
    from gui.wheel_link import WheelFeed

    async def go() -> list[str]:
        ended: list[str] = []
        feed = WheelFeed(table=None, spec="sim")
        feed._spawn(_deaf_once(ended))
        await asyncio.sleep(0)
        await asyncio.wait_for(feed.stop(), 5)
        return ended

    assert asyncio.run(go()) == ["ended"]
