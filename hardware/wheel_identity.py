"""Who the wheel is and what its clock says, asked at connect (issue 26): `wheel.identity`; the clock
alone (`ask_clock`) again later, hardware.wheel_session's `wheel.clock`.

SS2 (guide § 6): `*S` the firmware number, `*V` the full version, `*v` the FPGA and COPRO versions,
`*d g` the clock (`HH:MM:SS - DD/MM/YY`, the wheel's own local time), `*K` the maker code — but only
while the wheel is idle (state 6): otherwise `*K` starts a game, so it is asked only when the caller
knows the wheel is idle. A command the wheel does not answer (or refuses) leaves its field empty; the
offset is the wheel's clock minus the table PC's local clock, to the second (the wheel's resolution),
measured when the reply came. The event goes to the table like the wheel's own messages
(`TableService.wheel_event`), so it is journaled through the registry like them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal

from engine.errors import DrrError
from engine.wheel_events import WheelIdentity
from hardware.events import CommandReply
from hardware.link import WheelLink
from hardware.protocol.ss2_log import parse_clock


async def _ask(link: WheelLink, command: str, timeout: float) -> str | None:
    try:
        reply = await link.command(command, timeout)
    except DrrError:  # no reply, not connected, or a protocol that takes no commands
        return None
    if not isinstance(reply, CommandReply) or reply.status in ("no", "busy"):
        return None
    return reply.text.strip() or None


async def ask_identity(
    link: WheelLink,
    *,
    idle: bool = False,
    timeout: float = 2.0,
    now: Callable[[], datetime] = datetime.now,
) -> WheelIdentity:
    """The wheel's identity and clock offset (`now`: the PC's local time, naive)."""
    maker = await _ask(link, "*K", timeout) if idle else None
    firmware = await _ask(link, "*S", timeout)
    version = await _ask(link, "*V", timeout)
    fpga = await _ask(link, "*v", timeout)
    said = await ask_clock(link, timeout=timeout, now=now)
    return WheelIdentity(
        maker=maker,
        firmware=firmware,
        version=version,
        fpga=fpga,
        clock=None if said is None else said[0].isoformat(),
        offset=None if said is None else said[1],
    )


async def ask_clock(
    link: WheelLink, *, timeout: float = 2.0, now: Callable[[], datetime] = datetime.now
) -> tuple[datetime, Decimal] | None:
    """The wheel's clock (`*d g`) and its offset from the PC's local time `now()` when the reply came,
    in whole seconds (None: no reply, or one that is not a clock). Asked at connect and again later
    (hardware.wheel_session: `wheel.clock`), in any state: the guide restricts only the statistics."""
    said = await _ask(link, "*d g", timeout)
    pc = now()
    clock = parse_clock(said) if said is not None else None
    if clock is None:
        return None
    return clock, Decimal(round((clock - pc.replace(microsecond=0)).total_seconds()))
