"""Ask a live wheel (in state 6) for its own record: `*s t`, every `*s r` page, `*W` and `*M` (issue 26).

The replies go through the link's protocol like every other line (so a page is checked to have the
reply's shape) and are read by hardware.protocol.ss2_log.WheelLog, the same reader a capture's RX
lines go through: `drr wheel log --wheel serial:PORT` and `drr wheel log CAPTURE` print alike.
"""

from __future__ import annotations

import asyncio

from engine.errors import DrrError
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
