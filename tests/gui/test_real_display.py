"""Issue 12, point 1: two commands on a fresh desktop.

Plain `drr` (what `make run` starts) opens its windows on a real X server — Xvfb with openbox
(tests/gui/conftest.py's `desktop`) —
with Qt's xcb plugin, not the offscreen one every other GUI test uses; and where a library that
plugin needs is missing, `make run` stops before starting with the one command that installs it
(gui/qt_libs.py), and `drr` says so in one line instead of Qt's abort.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gui import qt_libs
from tests.table.helpers import drr_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 and apt are Linux's")

ROOT = Path(__file__).parents[2]
DRIVER = Path(__file__).with_name("stop_driver.py")
START_S = 90.0  # generous on a loaded 2-core machine; what is tested is that it opens at all


def _settings(tmp_path: Path) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(
        f'[table]\nid = "T1"\n\n[database]\nurl = "{tmp_path / "table.sqlite"}"\n\n'
        f'[paths]\nlog_dir = "{tmp_path / "logs"}"\n',
        encoding="utf-8",
    )
    return path


def test_plain_drr_opens_its_windows_on_a_real_x_server(
    tmp_path: Path, desktop: tuple[str, tuple[int, int]]
) -> None:
    xvfb, _size = desktop  # (tests/gui/conftest.py: Xvfb with openbox)
    assert qt_libs.missing_libraries() == [], qt_libs.problem(qt_libs.missing_libraries())
    # PYTHONPATH: this checkout's code in the subprocess (the venv may hold another checkout's).
    settings = str(_settings(tmp_path))
    env = drr_env(tmp_path, DRR_CONFIG=settings, DISPLAY=xvfb, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), "window", "--"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    shows = ""
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and proc.poll() is None and not shows:
        if select.select([proc.stdout], [], [], 0.5)[0]:
            line = proc.stdout.readline()
            shows = line[len("READY ") :].strip() if line.startswith("READY ") else shows
    if not shows:
        proc.kill()
        pytest.fail(f"the croupier station did not open on {xvfb}: {proc.communicate()[1][-2000:]}")
    assert shows.startswith("CroupierWindow") and "READY" in shows, shows
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 128 + signal.SIGTERM, err[-2000:]
    assert "Traceback" not in err and "xcb" not in err.lower(), err[-2000:]


def _fake_ldd(tmp_path: Path) -> str:
    """A PATH on which `ldd` reports the library the issue's fresh desktop lacked as not found."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ldd = bin_dir / "ldd"
    ldd.write_text("#!/bin/sh\nprintf '\\tlibxcb-cursor.so.0 => not found\\n'\n", encoding="utf-8")
    ldd.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def test_make_run_stops_before_starting_and_names_the_command(tmp_path: Path) -> None:
    # DRR_NO_APT: behave as a user who cannot install (the tests may run as root with apt).
    env = drr_env(tmp_path, PATH=_fake_ldd(tmp_path), DRR_NO_APT="1", DRR_CONFIG=str(_settings(tmp_path)))
    done = subprocess.run(
        ["make", "-s", "run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode != 0
    assert "sudo apt-get install -y libxcb-cursor0" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "table.sqlite").exists(), "the station started although a library is missing"


def test_drr_names_the_missing_library_in_one_line(tmp_path: Path) -> None:
    env = drr_env(
        tmp_path,
        PATH=_fake_ldd(tmp_path),
        DISPLAY=":99",
        QT_QPA_PLATFORM="xcb",
        DRR_CONFIG=str(_settings(tmp_path)),
    )
    env.pop("QT_QPA_PLATFORM")  # unset: Qt would pick xcb on a desktop
    done = subprocess.run(
        [sys.executable, "-m", "gui.cli"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "libxcb-cursor.so.0" in lines[0], done.stderr
    assert "sudo apt-get install -y libxcb-cursor0" in lines[0]


def test_ldd_output_maps_to_debian_packages() -> None:
    text = (
        "\tlinux-vdso.so.1 (0x00007ffd)\n"
        "\tlibxcb-icccm.so.4 => not found\n"
        "\tlibxcb-keysyms.so.1 => not found\n"
        "\tlibQt6Gui.so.6 => /x/libQt6Gui.so.6 (0x7f)\n"
        "\tlibxcb-icccm.so.4 => not found\n"
        "\tlibweird.so.9 => not found\n"
    )
    missing = qt_libs.parse_ldd(text)
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libweird.so.9"]
    assert qt_libs.packages_for(missing) == (["libxcb-icccm4", "libxcb-keysyms1"], ["libweird.so.9"])
    line = qt_libs.problem(missing)
    assert line is not None and "sudo apt-get install -y libxcb-icccm4 libxcb-keysyms1" in line
    assert "libweird.so.9" in line
    assert qt_libs.problem([]) is None


def test_with_no_display_drr_says_so_in_one_line(tmp_path: Path) -> None:
    """Issue 29: with no display Qt aborted blaming libxcb-cursor0 (the check ran only with DISPLAY)."""
    env = drr_env(tmp_path, DRR_CONFIG=str(_settings(tmp_path)))
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        env.pop(var, None)
    done = subprocess.run(
        [sys.executable, "-m", "gui.cli"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("drr: no display"), done.stderr
    assert not (tmp_path / "table.sqlite").exists(), "the station started with no display"
