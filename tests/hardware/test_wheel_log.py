"""Issue 26 item 1: the wheel's own record decoded exactly (guide § 6), and `drr wheel log`.

The expected checksums below were worked out by hand from the guide's rule (the sum of the 256 data
bytes mod 256), not by the decoder: `;` is 0x3B = 59, `K` (misfire in pocket 4: 38+4+0x21) 0x4B =
75, `~` 0x7E = 126, and 126 * 255 = 32130.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.protocol.ss2_log import (
    LogEntry,
    LogPage,
    WheelLog,
    calibration,
    calibration_step,
    decode_byte,
    decode_page,
    encode_page,
    parse_chi_square,
    parse_clock,
    parse_pages_used,
)

DATA = Path(__file__).parent.parent / "data"
UNUSED_255 = "~" * 255


def page(text: str) -> LogPage:
    decoded = decode_page(text)
    assert not isinstance(decoded, str), decoded
    return decoded


def test_bytes_as_the_guide_gives_them() -> None:
    assert decode_byte("!") == LogEntry("result", 0)  # r + 0x21
    assert decode_byte(";") == LogEntry("result", 26)
    assert decode_byte("*") == LogEntry("result", 9)
    assert decode_byte("F") == LogEntry("result", 37)  # 0x46: the double zero
    assert decode_byte("G") == LogEntry("misfire", 0)  # 38 + 0 + 0x21 = 0x47
    assert decode_byte("l") == LogEntry("misfire", 37)  # 0x6C
    assert decode_byte("~") is None
    assert isinstance(decode_byte("m"), str) and isinstance(decode_byte(" "), str)


def test_pages_and_their_checksums_worked_by_hand() -> None:
    # 59 + 32130 = 32189 = 0xBD mod 256; 75 + 32130 = 32205 = 0xCD mod 256.
    assert page("*s r 5 ;" + UNUSED_255 + "BD") == LogPage(5, True, (LogEntry("result", 26),))
    assert page("*s r 0 K" + UNUSED_255 + "cd").entries == (LogEntry("misfire", 4),)
    bad = page("*s r 5 ;" + UNUSED_255 + "BE")
    assert not bad.checksum_ok and bad.entries == () and "BE on the line, BD computed" in (bad.problem or "")
    short = page("*s r 5 ;;;BD")
    assert not short.checksum_ok and "bytes after the page number" in (short.problem or "")
    assert isinstance(decode_page("*s r x ;" + UNUSED_255 + "BD"), str)
    # A checksum that fits over a byte the guide gives no meaning: not trusted either.
    assert not page("*s r 1 m" + UNUSED_255 + f"{(0x6D + 32130) % 256:02X}").checksum_ok


def test_encode_page_round_trips_through_decode() -> None:
    entries = [LogEntry("result", n) for n in range(38)] + [LogEntry("misfire", p) for p in range(38)]
    assert page(encode_page(7, entries)).entries == tuple(entries)


def test_other_replies() -> None:
    assert parse_pages_used("*s t 3") == 3 and parse_pages_used("*s t x") is None
    from decimal import Decimal

    assert parse_chi_square("31.57 54.2") == (Decimal("31.57"), Decimal("54.2"))
    assert parse_chi_square("BUSY") is None
    from datetime import datetime

    assert parse_clock("g 06:00:19 \u2013 30/11/26") == datetime(2026, 11, 30, 6, 0, 19)  # the guide's dash
    assert parse_clock("g 06:00:19 - 30/11/26") == datetime(2026, 11, 30, 6, 0, 19)
    assert parse_clock("g 25:00:19 - 30/11/26") is None


def test_calibration_outcomes_as_the_guide_gives_them() -> None:
    start = "OK : Calibrate Sensor Positions (Ball In Middle '0')"
    done = calibration([start, "BALL : OK Anti-Clockwise", "OK : Completed (12, 140, 268)"])
    assert done.ok and done.ball_direction == "anticlockwise" and done.sensors == (12, 140, 268)
    no_dir = calibration([start, "BALL : No ball direction found"])
    assert not no_dir.ok and no_dir.reason == "No ball direction found"
    broken = calibration([start, "BALL : OK Clockwise", "FAIL : Sensor(s) 2 Broken"])
    assert not broken.ok and broken.reason == "Sensor(s) 2 Broken"
    assert calibration_step("BALL : No ball direction found")[0] == "fail"


def test_a_log_session_capture_decodes_exactly() -> None:
    record = WheelLog()
    for line in (DATA / "ss2-log-session.log").read_text("latin-1").splitlines():
        _stamp, direction, raw = line.split("\t", 2)
        if direction == "RX":
            record.feed(raw)
    out = record.to_json()
    assert out["pages_used"] == 3
    assert [(p["page"], p["checksum_ok"], len(p["entries"])) for p in out["pages"]] == [
        (0, True, 256),
        (1, True, 40),
        (2, False, 0),  # one byte damaged on the line: listed, its entries not used
    ]
    assert out["pages"][0]["entries"][:5] == [
        {"result": 26},
        {"result": 9},
        {"misfire": 4},
        {"result": 0},
        {"result": 36},
    ]
    assert sum(out["wins"]) == 290 and sum(out["misfires"]) == 6 and len(out["wins"]) == 37
    # The tables agree with the trusted pages, pocket by pocket.
    wins, misfires = [0] * 37, [0] * 37
    for e in record.entries():
        (wins if e.kind == "result" else misfires)[e.pocket] += 1
    assert (wins, misfires) == (out["wins"], out["misfires"])


def test_drr_wheel_log_json_is_the_issue_s_contract() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gui.cli", "wheel", "log", str(DATA / "ss2-log-session.log"), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert list(out) == ["pages_used", "pages", "wins", "misfires"]
    assert list(out["pages"][0]) == ["page", "checksum_ok", "entries"]
    assert out["pages"][2] == {"page": 2, "checksum_ok": False, "entries": []}
    text = subprocess.run(
        [sys.executable, "-m", "gui.cli", "wheel", "log", str(DATA / "ss2-log-session.log")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert text.returncode == 0 and "page 2: NOT TRUSTED" in text.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "gui.cli", "wheel", "log", "/nonexistent.log"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith("drr: cannot read capture")


def test_the_virtual_wheel_keeps_a_log_and_answers_the_log_commands() -> None:
    from hardware.sim_link import SimLink
    from hardware.virtual_wheel import MODE_FREE, VirtualWheel
    from hardware.wheel_log import ask_wheel_log

    async def go() -> tuple[WheelLog, VirtualWheel]:
        wheel = VirtualWheel(speed=200, seed=3, mode=MODE_FREE)
        link = SimLink(wheel)
        async with link:
            await link.command("*P 1")
            while wheel.results_played < 3:
                await asyncio.sleep(0.01)
            await link.command("*P 0")
            while wheel.state != 6:
                await asyncio.sleep(0.01)
            return await ask_wheel_log(link), wheel

    record, wheel = asyncio.run(go())
    assert record.pages_used == 1
    [only] = record.pages.values()
    assert only.checksum_ok
    assert [e.pocket for e in only.entries if e.kind == "result"] == [n for _, n in wheel.history]
    assert record.wins == wheel.wins and record.misfires == [0] * 37


def test_the_close_reads_a_wheel_already_idle_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wheel whose last status line said state 6 (a restart that never powered it up) reports no
    closing after `*P 0`: the close asks for its log at once, not after CLOSE_TIMEOUT_S. The wire is the
    test: each command is answered by a virtual wheel that stays in state 6, on the spot, and the loop
    is stepped a bounded number of times (no time passes on any clock)."""
    from hardware import wheel_log
    from hardware.link import WheelLink, utc_now
    from hardware.virtual_wheel import VirtualWheel

    monkeypatch.setattr(wheel_log, "TABLE_SETTLE_S", 0)  # the `*W`/`*M` lines are all answered already
    wheel = VirtualWheel(seed=1)  # never powered up: state 6
    for pocket in (17, 4, 32):
        wheel._record(LogEntry("result", pocket))

    class IdleWheelLink(WheelLink):
        def __init__(self) -> None:
            super().__init__("ss2", source="test", silence_after=None)
            self.sent: list[str] = []

        async def _open(self) -> None:
            self._set_connected(True, "test wire")

        async def _close(self) -> None:
            pass

        async def _write(self, data: bytes) -> None:
            self.sent.append(data.decode().strip())
            wheel.receive(data)
            while not wheel._out.empty():
                self._line_received(wheel._out.get_nowait().rstrip("\r\n"), utc_now())

    async def go() -> tuple[WheelLog | None, list[str]]:
        link = IdleWheelLink()
        async with link:
            link.subscribe(lambda _e: None)  # the table listens from the start (no backlog left)
            link._line_received(wheel.status_line(), utc_now())  # the wheel's last report: state 6
            assert link.wheel_state == 6
            task = asyncio.create_task(wheel_log.read_log_at_close(link))
            for _ in range(200):
                if task.done():
                    break
                await asyncio.sleep(0)
            if not task.done():
                task.cancel()
                return None, link.sent
            return task.result(), link.sent

    record, sent = asyncio.run(go())
    assert record is not None, f"still waiting for a closing after {sent}"
    assert sent == ["*P 0", "*s t", "*s r 0", "*W", "*M"]
    assert [e.pocket for e in record.entries()] == [17, 4, 32] and wheel.state == 6
