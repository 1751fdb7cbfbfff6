"""SS2 host commands as typed calls: `await WheelCommands(link).power(True)` and friends.

Each call sends one command of the vendor guide (§ 6 of `shared/docs/wheel-protocol-ss2.md`),
waits for its reply with a timeout suited to it, and raises `WheelRefused` when the wheel says
`NO` or `BUSY` (e.g. `*o` while a game runs: send `*P 0` first). `link.command(text)` remains
available for anything not wrapped here.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from engine.errors import DrrError
from hardware.events import CommandReply, LinkEvent, SelfTest
from hardware.link import WheelLink, WheelTimeout

REPLY_TIMEOUT = 2.0  # the wheel answers within ~50 ms (captures); 2 s covers a busy line
SELF_TEST_TIMEOUT = 330.0  # guide: the self-test "takes up to 5 min"
SETTING_LETTERS = frozenset("dcpqkijrstnmhzgowDCPQKIJRSTNMHZGOW")


class WheelRefused(DrrError):
    """The wheel answered NO or BUSY."""


class WheelCommands:
    """Typed SS2 commands over a link (serial, virtual wheel)."""

    def __init__(self, link: WheelLink, timeout: float = REPLY_TIMEOUT) -> None:
        self.link = link
        self.timeout = timeout

    async def send(self, text: str, timeout: float | None = None) -> CommandReply:
        reply = await self.link.command(text, timeout=self.timeout if timeout is None else timeout)
        if not isinstance(reply, CommandReply):
            raise DrrError(f"unexpected answer to {text!r}: {reply!r}")
        if reply.status in ("no", "busy"):
            raise WheelRefused(f"the wheel refused {text!r}: {reply.text}")
        return reply

    async def start_game(self, direction: Literal["cw", "ccw"] = "cw") -> CommandReply:
        """The protocol's start command (SS2: `*u 1` clockwise, `*u 3` anticlockwise in user-start mode)."""
        return await self.send(self.link.protocol.start_command(direction))

    async def power(self, on: bool) -> CommandReply:
        """`*P 1` / `*P 0`: leave / enter state 6 (close table)."""
        return await self.send("*P 1" if on else "*P 0")

    async def set_mode(self, mode: int) -> CommandReply:
        """`*o <sum>` (only while idle, else BUSY); e.g. 1159 for a host-started table."""
        if not 0 <= mode <= 65535:
            raise DrrError(f"wheel mode {mode} is not 0..65535", 2)
        return await self.send(f"*o {mode}")

    async def setup(self) -> tuple[int, int, int, int]:
        """`*O`: (state, protocol on, games per hour, mode)."""
        reply = await self.send("*O")
        parts = reply.text.split()
        if len(parts) != 4 or not all(p.isdigit() for p in parts):
            raise DrrError(f"unexpected *O reply {reply.text!r}")
        state, protocol, rate, mode = (int(p) for p in parts)
        return state, protocol, rate, mode

    async def status(self) -> str:
        """`*X`: the raw status line (its events arrive through `events()` as usual)."""
        return (await self.send("*X")).text

    async def reset(self) -> CommandReply:
        """`*R`: back to state 1; also acknowledges a void game (after a miss-spin)."""
        return await self.send("*R")

    async def self_test(self, timeout: float = SELF_TEST_TIMEOUT) -> list[SelfTest]:
        """`*F` (state 6 only): the `*F <code>` lines of the test (code "0" alone means all good)."""
        results: list[SelfTest] = []
        done = asyncio.Event()

        def watch(event: LinkEvent) -> None:
            if isinstance(event, SelfTest):
                results.append(event)
                done.set()

        unsubscribe = self.link.subscribe(watch)
        try:
            first = await self.link.command("*F", timeout=timeout)
            if isinstance(first, CommandReply) and first.status == "busy":
                raise WheelRefused("the wheel refused '*F': BUSY (the self-test runs only in state 6)")
            try:
                await asyncio.wait_for(done.wait(), timeout)
            except TimeoutError:
                raise WheelTimeout(f"no self-test result within {timeout:g} s") from None
            await asyncio.sleep(0.2)  # faults come one line each, back to back
            return results
        finally:
            unsubscribe()

    async def read_setting(self, letter: str) -> str:
        """`*T <LETTER>`: the setting's value text, e.g. "14.0 17.50000" for S."""
        if len(letter) != 1 or letter.upper() not in SETTING_LETTERS:
            raise DrrError(f"*T setting {letter!r} is not one of the guide's letters", 2)
        reply = await self.send(f"*T {letter.upper()}")
        head, _, value = reply.text.partition(" ")
        return value if head.lower() == letter.lower() else reply.text

    async def set_setting(self, letter: str, *values: str) -> CommandReply:
        """`*T <letter> <values>` (RAM only until `*T f`)."""
        if len(letter) != 1 or letter.lower() not in SETTING_LETTERS:
            raise DrrError(f"*T setting {letter!r} is not one of the guide's letters", 2)
        return await self.send(" ".join(["*T", letter.lower(), *values]))

    async def save_settings(self) -> CommandReply:
        return await self.send("*T f")

    async def statistics(self) -> tuple[str, str]:
        """`*w` (states 5 and 6): (chi-squared, percent) as the wheel prints them."""
        reply = await self.send("*w")
        parts = reply.text.split()
        if len(parts) != 2:
            raise DrrError(f"unexpected *w reply {reply.text!r}")
        return parts[0], parts[1]
