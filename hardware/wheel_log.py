"""Ask a live wheel (in state 6) for its own record: `*s t`, every `*s r` page, `*W` and `*M` (issue 26).

The replies go through the link's protocol like every other line (so a page is checked to have the
reply's shape) and are read by hardware.protocol.ss2_log.WheelLog, the same reader a capture's RX
lines go through: `drr wheel log --wheel serial:PORT` and `drr wheel log CAPTURE` print alike.

At the table's close (`read_log_at_close`) the wheel is powered down (`*P 0`: the log is given in
state 6 only), then asked; a replayed capture cannot be asked, so the replies it holds are what a
`LogRecorder` subscribed to its link from the start heard (the capture of a session that read the log).
"""

from __future__ import annotations

import asyncio
import contextlib

from engine.errors import DrrError
from engine.wheel_events import WheelClosed
from hardware.events import CommandReply, LinkEvent
from hardware.link import WheelLink
from hardware.protocol.ss2_log import WheelLog

TABLE_SETTLE_S = 0.5  # `*W`/`*M` answer in two lines; the second follows the first within ms


async def ask_wheel_log(link: WheelLink, *, timeout: float = 3.0) -> WheelLog:
    """The wheel's log and tables, asked over `link` (started). DrrError when the wheel refuses."""
    record = WheelLog()

    def on_event(event: LinkEvent) -> None:
        if isinstance(event, CommandReply) and event.command in ("s", "W", "M"):
            record.feed(f"*{event.command} {event.text}")

    unsubscribe = link.subscribe(on_event)
    try:
        reply = await link.command("*s t", timeout)
        if record.pages_used is None:
            text = reply.text if isinstance(reply, CommandReply) else "no reply"
            raise DrrError(f"the wheel did not give its log's page count (*s t): {text}")
        for page in range(record.pages_used):
            reply = await link.command(f"*s r {page}", timeout)
            if isinstance(reply, CommandReply) and reply.status == "no":
                raise DrrError(
                    f"the wheel refused *s r {page} ({reply.text}): it gives its log in state 6 only"
                )
        for command in ("*W", "*M"):
            reply = await link.command(command, timeout)
            if isinstance(reply, CommandReply) and reply.status == "busy":
                raise DrrError(f"the wheel is busy ({command} BUSY): its tables are read in states 5 and 6")
        await asyncio.sleep(TABLE_SETTLE_S)
    finally:
        unsubscribe()
    return record


class LogRecorder:
    """The log replies a link carries, whoever asked (a replayed capture's `*s`, `*W`, `*M` lines)."""

    def __init__(self, link: WheelLink) -> None:
        self.record = WheelLog()

        def on_event(event: LinkEvent) -> None:
            if isinstance(event, CommandReply) and event.command in ("s", "W", "M"):
                self.record.feed(f"*{event.command} {event.text}")

        self.stop = link.subscribe(on_event)


CLOSE_TIMEOUT_S = 30.0  # the rotor winds down before state 6 (the virtual wheel: 3 s at speed 1)


async def read_log_at_close(link: WheelLink, *, timeout: float = CLOSE_TIMEOUT_S) -> WheelLog:
    """Power the wheel down (`*P 0`), wait (at most `timeout` s) for state 6 unless the wheel reported
    it already, and ask its log and tables (`ask_wheel_log`). DrrError when the wheel refuses or does not
    give its log."""
    closed = asyncio.Event()

    def on_event(event: LinkEvent) -> None:
        if isinstance(event, WheelClosed):
            closed.set()

    unsubscribe = link.subscribe(on_event)
    try:
        reply = await link.command("*P 0", 3.0)
        if isinstance(reply, CommandReply) and reply.status == "no":
            raise DrrError(f"the wheel refused to power down (*P 0: {reply.text})")
        # A wheel that last reported state 6 (idle, never powered up, or after a fault) reports no
        # closing: it is asked at once. One that reports none in `timeout` is asked anyway (`*s r` says
        # so if it is not idle).
        if link.wheel_state != 6:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(closed.wait(), timeout)
    finally:
        unsubscribe()
    return await ask_wheel_log(link)
