"""End to end: the virtual wheel on a pty, the serial link and SS2 decoder on the other side.

Every fault kind of the virtual wheel is played through a real pseudo-terminal and must come out
as the right events; the link must come back by itself after the pty disappears and reappears.
Speeds are high so the whole file runs in well under a minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.wheel_events import (
    WheelBallNotDetected,
    WheelClosed,
    WheelLaunchFailed,
    WheelLinkState,
    WheelMissSpin,
    WheelResult,
    WheelStarted,
    WheelWarning,
)
from hardware.capture import read_capture
from hardware.decode import decode_capture
from hardware.events import CommandReply, LinkEvent, SelfTest, UnreadableLine
from hardware.link import WheelLink, WheelTimeout, utc_now
from hardware.pty_server import PtyServer
from hardware.serial_link import SerialLink, SerialSettings
from hardware.virtual_wheel import FaultPlan, VirtualWheel
from hardware.wheel_source import open_wheel

# Only the tests that open a pseudo-terminal need POSIX; the others run everywhere.
needs_pty = pytest.mark.skipif(os.name != "posix", reason="pseudo-terminals are POSIX only")

DATA = Path(__file__).parent.parent / "data"


async def pump(wheel: VirtualWheel, server: PtyServer) -> None:
    async for chunk in wheel.output():
        server.write(chunk.encode("latin-1"))


@contextlib.asynccontextmanager
async def wheel_on_pty(wheel: VirtualWheel, link: Path | None = None) -> AsyncIterator[PtyServer]:
    server = PtyServer(on_input=wheel.receive, link=link)
    server.start()
    task = asyncio.create_task(pump(wheel, server))
    try:
        yield server
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        server.close()


class Tap:
    """Every event of a link from subscription on, so none falls between two waits."""

    def __init__(self, link: WheelLink) -> None:
        self.queue: asyncio.Queue[LinkEvent] = asyncio.Queue()
        link.subscribe(self.queue.put_nowait)

    async def until(self, stop: Callable[[LinkEvent], bool], timeout: float = 30.0) -> list[LinkEvent]:
        seen: list[LinkEvent] = []

        async def collect() -> None:
            while True:
                event = await self.queue.get()
                seen.append(event)
                if stop(event):
                    return

        await asyncio.wait_for(collect(), timeout)
        return seen


async def command_retrying(
    link: WheelLink, text: str, good: Callable[[LinkEvent | None], bool] = lambda reply: True
) -> LinkEvent | None:
    """Torn lines may eat or maim a reply, as on a real line: the host asks again."""
    for _ in range(6):
        with contextlib.suppress(WheelTimeout):
            reply = await link.command(text, timeout=0.5)
            if good(reply):
                return reply
    raise AssertionError(f"no good reply to {text}")


@pytest.mark.slow  # started first (tests/conftest.py)
@needs_pty
def test_every_fault_through_a_pty(tmp_path: Path) -> None:
    faults = FaultPlan.parse("miss@2,launch@3,noball@4,silence=1.2@5,fault@6,torn=0.03")
    wheel = VirtualWheel(speed=25, faults=faults, seed=11, mode=1157 | 256)

    async def scenario() -> list[LinkEvent]:
        async with wheel_on_pty(wheel) as server:
            link = SerialLink(server.path, capture_dir=tmp_path / "capture", silence_after=0.6)
            link.protocol.time_scale = wheel.speed
            events: list[LinkEvent] = []
            acks: set[asyncio.Task[LinkEvent | None]] = set()
            async with link:

                def react(event: LinkEvent) -> None:
                    if isinstance(event, WheelMissSpin):
                        ack = command_retrying(
                            link, "*R", lambda r: isinstance(r, CommandReply) and r.text == "OK"
                        )
                        acks.add(
                            asyncio.get_running_loop().create_task(ack)
                        )  # held: the loop keeps weak refs

                link.subscribe(react)
                tap = Tap(link)
                events += await tap.until(lambda e: isinstance(e, WheelClosed) and e.game == 6, timeout=60)
                assert link.health.connected and link.health.unreadable > 0
                # After the component fault the wheel is powered down: the host runs *F, then powers on.
                self_test = await command_retrying(link, "*F", lambda r: isinstance(r, SelfTest))
                assert isinstance(self_test, SelfTest) and self_test.meaning == "motor fault"
                # A torn "*P OK" makes the host ask again, and a wheel already on answers NO.
                reply = await command_retrying(
                    link, "*P 1", lambda r: isinstance(r, CommandReply) and r.text in ("OK", "NO")
                )
                assert isinstance(reply, CommandReply)
                events += await tap.until(lambda e: isinstance(e, WheelResult) and e.game == 7)
            return events

    events = asyncio.run(scenario())
    results = [(e.game, e.number) for e in events if isinstance(e, WheelResult)]
    # Exactly one result per game the wheel played, whatever was torn; none for game 6 (fault).
    assert results == list(wheel.history)
    assert [g for g, _ in results] == [1, 2, 3, 4, 5, 7]
    assert [e.game for e in events if isinstance(e, WheelMissSpin)] == [2]
    assert [e.game for e in events if isinstance(e, WheelLaunchFailed)] == [3]
    assert [(e.game, e.reason) for e in events if isinstance(e, WheelBallNotDetected)] == [
        (4, "no-ball-flag")
    ]
    states = [(e.state, e.game) for e in events if isinstance(e, WheelLinkState) and e.state != "connected"]
    assert ("silent", None) in states
    faults_seen = [e.game for e in events if isinstance(e, WheelWarning) and "component_fault" in e.added]
    assert faults_seen == [6]
    assert any(isinstance(e, UnreadableLine) for e in events)
    # The capture file holds both directions and replays to the same results.
    (capture,) = (tmp_path / "capture").iterdir()
    text = capture.read_text(encoding="latin-1")
    assert "\tTX\t*R" in text and "\tRX\t*R OK" in text
    replayed = [(e.game, e.number) for e in decode_capture(capture, "ss2") if isinstance(e, WheelResult)]
    assert replayed == results


@needs_pty
def test_reconnect_after_the_pty_closes_and_reopens(tmp_path: Path) -> None:
    device = tmp_path / "wheel"

    async def scenario() -> tuple[list[LinkEvent], int]:
        wheel = VirtualWheel(speed=30, seed=3)
        link = SerialLink(str(device), reconnect_min=0.05, reconnect_max=0.2, silence_after=None)
        tap = Tap(link)
        async with wheel_on_pty(wheel, device):
            await link.start()
            first = await tap.until(lambda e: isinstance(e, WheelResult))
        # The pty is gone (cable unplugged): the link notices and keeps retrying.
        lost = await tap.until(
            lambda e: isinstance(e, WheelLinkState) and e.state == "disconnected", timeout=5
        )
        assert not link.health.connected
        await asyncio.sleep(0.3)
        async with wheel_on_pty(VirtualWheel(speed=30, seed=4, start_game=50), device):
            back = await tap.until(lambda e: isinstance(e, WheelResult), timeout=10)
        reconnects = link.health.reconnects
        await link.close()
        return first + lost + back, reconnects

    events, reconnects = asyncio.run(scenario())
    assert reconnects == 1
    links = [e.state for e in events if isinstance(e, WheelLinkState)]
    assert links[:1] == ["connected"] and "disconnected" in links and links[-1] == "connected"
    results = [e.game for e in events if isinstance(e, WheelResult)]
    assert results[0] == 1 and results[-1] == 50


@needs_pty
def test_commands_replies_and_timeouts(tmp_path: Path) -> None:
    async def scenario() -> None:
        wheel = VirtualWheel(speed=10, seed=5)
        async with wheel_on_pty(wheel) as server, SerialLink(server.path, silence_after=None) as link:
            tap = Tap(link)
            await tap.until(lambda e: isinstance(e, WheelLinkState) and e.state == "connected", timeout=5)
            reply = await link.command("*T S")
            assert isinstance(reply, CommandReply) and reply.text == "s 14.0 17.5"
            busy = await link.command("*o 1159")
            assert isinstance(busy, CommandReply) and busy.status == "busy"
            status = await link.command("*X")
            assert isinstance(status, CommandReply) and status.text.startswith("*X;")
            refused = await link.command("*P 1")
            assert isinstance(refused, CommandReply) and refused.status == "no"
            off = await link.command("*P 0")
            assert isinstance(off, CommandReply) and off.status == "ok"
            await tap.until(lambda e: isinstance(e, WheelClosed), timeout=5)
            mode = await link.command("*o 1159")
            assert isinstance(mode, CommandReply) and mode.text == "1159"
            with pytest.raises(WheelTimeout, match=r"no reply from the wheel to '\*F'"):
                await link.command("*F", timeout=0.05)  # a self-test answers only later
            with pytest.raises(DrrError, match="printable"):
                await link.command("*P 1\r\n*P 0")

    asyncio.run(scenario())


def test_in_process_sim_and_user_start(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with open_wheel("sim:free", speed=40, seed=9, capture_dir=tmp_path) as wheel:
            events = await Tap(wheel).until(lambda e: isinstance(e, WheelResult) and e.game == 2)
            assert len([e for e in events if isinstance(e, WheelResult)]) == 2
            assert wheel.health.ok and wheel.health.lines > 0
        user = VirtualWheel(speed=40, seed=1, mode=1159)
        from hardware.sim_link import SimLink

        async with SimLink(user) as link:
            tap = Tap(link)
            # Its start-up states take ~0.2 s at x40, longer on a loaded machine: wait for state 2, then
            # see that it stays there, waiting for the host.
            for _ in range(200):
                if user.state == 2:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            assert user.state == 2 and user.results_played == 0  # waits for the host
            reply = await link.command("*u 3")
            assert isinstance(reply, CommandReply) and reply.status == "ok"
            events = await tap.until(lambda e: isinstance(e, WheelResult))
            (result,) = [e for e in events if isinstance(e, WheelResult)]
            assert (result.game, result.number) == user.history[0]

    asyncio.run(scenario())


def test_replay_source_uses_capture_time() -> None:
    async def scenario() -> list[LinkEvent]:
        wheel = open_wheel(f"replay:{DATA / 'ss2-capture-b.log'}", speed=0)
        tap = Tap(wheel)
        async with wheel:
            return await tap.until(lambda e: isinstance(e, WheelLinkState) and e.state == "disconnected")

    events = asyncio.run(scenario())
    results = [e for e in events if isinstance(e, WheelResult)]
    assert len(results) == 136
    assert results[0].to_json()["time"] == "2025-09-16T06:45:24.582"


def test_bad_specs_and_settings() -> None:
    with pytest.raises(DrrError, match="not understood"):
        open_wheel("usb:3")
    with pytest.raises(DrrError, match="unknown fault"):
        FaultPlan.parse("earthquake")
    assert SerialSettings.parse("19200,7E2,rtscts") == SerialSettings(19200, 7, "E", "2", rtscts=True)
    with pytest.raises(DrrError, match="not understood"):
        SerialSettings.parse("fast")


@needs_pty
def test_cli_simulate_on_pty_and_ports(tmp_path: Path) -> None:
    device = tmp_path / "wheel"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gui.cli", "wheel", "simulate", "--pty", "--speed", "40", "--seed", "2",
         "--games", "2", "--link", str(device)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("virtual SS2 wheel on /dev/")

        async def listen() -> list[LinkEvent]:
            link = SerialLink(str(device), silence_after=None)
            tap = Tap(link)
            async with link:
                return await tap.until(lambda e: isinstance(e, WheelResult) and e.game == 2)

        events = asyncio.run(listen())
        assert [e.game for e in events if isinstance(e, WheelResult)][-1] == 2
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()
        proc.wait()
    ports = subprocess.run(
        [sys.executable, "-m", "gui.cli", "wheel", "ports", "--json"], capture_output=True, text=True
    )
    assert ports.returncode == 0
    from hardware.serial_link import list_ports

    assert json.loads(ports.stdout) == list_ports()  # whatever the machine has, as the library sees it


def test_typed_commands_on_the_virtual_wheel() -> None:
    from hardware.commands import WheelCommands, WheelRefused
    from hardware.sim_link import SimLink

    async def scenario() -> None:
        wheel = VirtualWheel(speed=20, seed=8, mode=1159)
        async with SimLink(wheel) as link:
            tap = Tap(link)
            cmd = WheelCommands(link)
            assert await cmd.read_setting("s") == "14.0 17.5"
            assert (await cmd.setup())[3] == 1159
            with pytest.raises(WheelRefused, match="BUSY"):
                await cmd.set_mode(1157)
            with pytest.raises(WheelRefused, match="BUSY"):
                await cmd.self_test()
            await tap.until(lambda e: isinstance(e, WheelStarted))
            while wheel.state != 2:  # state 1 (power-up) then 2, where it waits for the host
                await asyncio.sleep(0.01)
            assert (await cmd.start_game("ccw")).status == "ok"
            await tap.until(lambda e: isinstance(e, WheelResult))
            while wheel.state != 2:  # the next game waits for the host again; *K starts it too
                await asyncio.sleep(0.01)
            assert (await cmd.send("*K")).text == "OK"
            await tap.until(lambda e: isinstance(e, WheelResult))
            chi, percent = await cmd.statistics()
            assert chi and percent
            assert (await cmd.power(False)).status == "ok"
            await tap.until(lambda e: isinstance(e, WheelClosed))
            with pytest.raises(WheelRefused):
                await cmd.start_game()
            assert [t.code for t in await cmd.self_test(timeout=5)] == ["0"]
            assert (await cmd.set_mode(1157)).text == "1157"
            assert (await cmd.power(True)).status == "ok"
            assert (await cmd.set_setting("h", "161")).status == "ok"
            assert await cmd.read_setting("H") == "161"
            assert (await cmd.status()).startswith("*X;")

    asyncio.run(scenario())


@needs_pty
def test_exclusive_open_refuses_a_second_reader() -> None:
    async def scenario() -> str:
        server = PtyServer()
        try:
            async with SerialLink(server.path, silence_after=None) as first:
                second = SerialLink(server.path, silence_after=None, reconnect_min=0.05)
                tap = Tap(first)
                await tap.until(lambda e: isinstance(e, WheelLinkState) and e.state == "connected", timeout=5)
                async with second:
                    await asyncio.sleep(0.3)
                    assert first.health.connected
                    return second.health.detail if not second.health.connected else "second reader connected"
        finally:
            server.close()

    detail = asyncio.run(scenario())
    assert detail.startswith("cannot open") and "busy" in detail, detail  # not a cable problem


@needs_pty
def test_cli_replay_on_pty_loses_no_line(tmp_path: Path) -> None:
    device = tmp_path / "wheel"
    capture = DATA / "ss2-capture-b.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gui.cli", "wheel", "replay", "--pty", "--speed", "0",
         "--link", str(device), str(capture)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("replaying ")
        # The table connects late: playback must wait for it, not start on a timer.
        time.sleep(1.5)
        assert proc.poll() is None

        async def listen() -> list[LinkEvent]:
            link = SerialLink(str(device), silence_after=None)
            tap = Tap(link)
            async with link:
                return await tap.until(lambda e: isinstance(e, WheelLinkState) and e.state == "disconnected")

        events = asyncio.run(listen())
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()
        proc.wait()
    results = [(e.game, e.number) for e in events if isinstance(e, WheelResult)]
    expected = [(e.game, e.number) for e in decode_capture(capture) if isinstance(e, WheelResult)]
    assert len(results) == 136 and results == expected


class _WiredLink(WheelLink):
    """A link whose wire is the test: written bytes are recorded, received lines injected."""

    def __init__(self) -> None:
        super().__init__("ss2", source="test", silence_after=None)
        self.sent: list[bytes] = []

    async def _open(self) -> None:
        self._set_connected(True, "test wire")

    async def _close(self) -> None:
        pass

    async def _write(self, data: bytes) -> None:
        self.sent.append(data)


def test_a_torn_reply_does_not_resolve_the_command() -> None:
    async def scenario() -> None:
        link = _WiredLink()
        async with link:
            tap = Tap(link)
            pending = asyncio.create_task(link.command("*P 1", timeout=2))
            await asyncio.sleep(0.01)
            assert link.sent == [b"*P 1\r\n"]
            link._line_received("*P O", utc_now())
            await asyncio.sleep(0.01)
            assert not pending.done()
            link._line_received("*P OK", utc_now())
            reply = await pending
            assert isinstance(reply, CommandReply) and (reply.text, reply.status) == ("OK", "ok")
            events = await tap.until(lambda e: isinstance(e, CommandReply), timeout=1)
            torn = [e for e in events if isinstance(e, UnreadableLine)]
            assert [e.raw for e in torn] == ["*P O"] and link.health.unreadable == 1
            # A reply that never comes whole: the command times out instead of taking "*T s 1".
            link_task = asyncio.create_task(link.command("*T S", timeout=0.2))
            await asyncio.sleep(0.01)
            link._line_received("*T s 1", utc_now())
            with pytest.raises(WheelTimeout):
                await link_task

    asyncio.run(scenario())


def test_serial_settings_reach_pyserial() -> None:
    import serial

    kwargs = SerialSettings.parse("19200,7E2,rtscts").serial_kwargs()
    assert kwargs == {
        "baudrate": 19200,
        "bytesize": 7,
        "parity": serial.PARITY_EVEN,
        "stopbits": serial.STOPBITS_TWO,
        "rtscts": True,
        "xonxoff": False,
        "dsrdtr": False,
        "exclusive": True,
    }
    default = SerialSettings.parse("").serial_kwargs()
    assert (default["baudrate"], default["bytesize"], default["parity"], default["rtscts"]) == (
        9600, 8, serial.PARITY_NONE, False,
    )  # fmt: skip
    link = open_wheel("serial:/dev/ttyUSB7@4800,8N1,xonxoff,shared")
    assert isinstance(link, SerialLink) and link.port == "/dev/ttyUSB7"
    assert link.settings == SerialSettings(4800, xonxoff=True, exclusive=False)


def test_virtual_wheel_counter_wraps_and_each_result_comes_once() -> None:
    from hardware.events import GameCounterWrapped
    from hardware.sim_link import SimLink

    async def scenario() -> tuple[list[LinkEvent], list[tuple[int, int]]]:
        wheel = VirtualWheel(speed=60, seed=21, start_game=255)
        async with SimLink(wheel, silence_after=None) as link:
            events = await Tap(link).until(lambda e: isinstance(e, WheelResult) and e.game == 2)
        return events, list(wheel.history)

    events, history = asyncio.run(scenario())
    assert [(e.game, e.number) for e in events if isinstance(e, WheelResult)] == history
    assert [e.game for e in events if isinstance(e, WheelResult)] == [255, 256, 1, 2]
    assert [(e.previous, e.game) for e in events if isinstance(e, GameCounterWrapped)] == [(256, 1)]


@needs_pty
def test_the_half_line_cut_off_by_an_unplug_is_counted_and_captured(tmp_path: Path) -> None:
    async def scenario() -> list[LinkEvent]:
        server = PtyServer()
        link = SerialLink(server.path, silence_after=None, capture_dir=tmp_path, reconnect_min=5.0)
        tap = Tap(link)
        async with link:
            await tap.until(lambda e: isinstance(e, WheelLinkState) and e.state == "connected", timeout=5)
            server.write(b"*X;4;012;24;0;171;0\r\n*X;5;01")
            await asyncio.sleep(0.3)
            server.close()
            return await tap.until(lambda e: isinstance(e, WheelLinkState) and e.state == "disconnected", 5)

    events = asyncio.run(scenario())
    assert [e.raw for e in events if isinstance(e, UnreadableLine)] == ["*X;5;01"]
    (capture,) = tmp_path.iterdir()
    assert [line.raw for line in read_capture(capture)] == ["*X;4;012;24;0;171;0", "*X;5;01"]


def test_two_open_commands_of_one_key_each_get_their_own_reply() -> None:
    async def scenario() -> None:
        link = _WiredLink()
        async with link:
            speeds = asyncio.create_task(link.command("*T S", timeout=2))
            jets = asyncio.create_task(link.command("*T R", timeout=2))
            await asyncio.sleep(0.01)
            link._line_received("*T r 28000 32000", utc_now())
            link._line_received("*T s 14.0 17.5", utc_now())
            replies = await asyncio.gather(speeds, jets)
            assert [r.text for r in replies if isinstance(r, CommandReply)] == [
                "s 14.0 17.5",
                "r 28000 32000",
            ]

    asyncio.run(scenario())


def test_a_port_that_does_not_open_says_why_in_words_and_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 29: a port the user may not open read as a cable problem, with nothing in the log."""

    async def scenario(port: str) -> str:
        link = SerialLink(port, silence_after=None, reconnect_min=0.05)
        async with link:
            await asyncio.sleep(0.3)
            assert not link.health.connected
            return link.health.detail

    with caplog.at_level("WARNING", logger="hardware.link"):
        detail = asyncio.run(scenario("/dev/drr-no-such-port"))
    assert "no such port" in detail and "drr wheel ports" in detail, detail
    assert any("no such port" in r.getMessage() for r in caplog.records), caplog.records


@pytest.mark.parametrize(
    ("code", "words"),
    [(13, "permission denied"), (1, "permission denied"), (16, "busy"), (11, "busy"), (2, "no such port")],
)
def test_why_a_port_would_not_open(code: int, words: str) -> None:
    import serial

    from hardware.serial_link import why_not_open

    exc = serial.SerialException(code, f"could not open port /dev/ttyUSB0: [Errno {code}] ...")
    text = why_not_open("/dev/ttyUSB0", exc)
    assert words in text and "/dev/ttyUSB0" in text
    if words == "permission denied":
        assert "dialout" in text  # what to do about it
