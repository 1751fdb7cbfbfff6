"""GUI test fixtures: a qasync event loop on the test's QApplication, live tables (the real table
service on scratch stores, tests/gui/live.py) driven on it, and a real X server with a window manager
for the real-screen tests."""

from __future__ import annotations

import asyncio
import os
import select
import shutil
import subprocess
import time
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


def _tool(name: str) -> str:
    exe = shutil.which(name)
    assert exe is not None, (
        f"{name} is missing: `make test` installs it (python -m gui.qt_libs --install --xvfb)"
    )
    return exe


@pytest.fixture
def desktop(request: pytest.FixtureRequest) -> Iterator[tuple[str, tuple[int, int]]]:
    """A real X server (Xvfb) on a free display number with a window manager (openbox: title bars
    and frames, as on a table PC) managing its windows; (DISPLAY, (width, height)). The size is the
    test's `indirect` parameter, 1920x1080 without one. The real-screen tests share it
    (test_real_display.py, test_real_shift.py)."""
    width, height = getattr(request, "param", (1920, 1080))
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        [_tool("Xvfb"), "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    wm = None
    try:
        ready, _, _ = select.select([read], [], [], 30)
        assert ready, "Xvfb did not start within 30 s"
        number = os.read(read, 64).decode().strip()
        assert number.isdigit(), f"Xvfb said {number!r}"
        display = f":{number}"
        env = {**os.environ, "DISPLAY": display}
        wm = subprocess.Popen(
            [_tool("openbox"), "--sm-disable"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # openbox is up once it names itself on the root window
            done = subprocess.run(
                ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env, capture_output=True, text=True
            )
            if "window id" in done.stdout:
                break
            time.sleep(0.2)
        else:
            pytest.fail("openbox did not start within 30 s")
        yield display, (width, height)
    finally:
        os.close(read)
        for proc in (wm, xvfb):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=10)
