"""The system libraries Qt's X11 screen plugin needs: which are missing, and installing them.

PySide6 from PyPI carries Qt but not the desktop's own libraries (xcb, xkbcommon, EGL, fontconfig…).
When one is missing, Qt aborts at the first window with a hint that names only one of them. So
before a station starts on a real display we ask the dynamic loader (`ldd` on the xcb platform
plugin and Qt's GUI libraries) what it cannot find — the loader is the only authority on that —
and map each missing file to its Debian/Ubuntu package.

`python -m gui.qt_libs --install` is what `make run` (and, with `--xvfb`, `make test`) runs first:
nothing missing → exit 0; missing and root with apt-get → installs them; otherwise it prints the
one command that installs them and exits 1, so make stops before starting anything. `drr` itself
calls `check_before_start` so a missing library is one line, not Qt's abort. The Debian package
(`make deb`, packaging/build_deb.py) depends on every package of `DEBIAN_PACKAGES`: a table PC
installed from it has them all.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from engine.errors import DrrError

# The shared-object names the loader reports and the Debian package that ships each.
DEBIAN_PACKAGES: Final[dict[str, str]] = {
    "libxcb.so.1": "libxcb1",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libGLX.so.0": "libglx0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
}
# What the tests add: a real X server for the test that opens the station on a real display.
XVFB_PACKAGE: Final = "xvfb"
# ... and for the shift played on it (tests/gui/test_real_shift.py): a window manager (title bars and
# frames, as on a table PC), the keyboard and window queries, and screenshots. Program -> package.
DISPLAY_TOOLS: Final[dict[str, str]] = {"openbox": "openbox", "xdotool": "xdotool", "scrot": "scrot"}

Runner = Callable[[Sequence[str]], str]


def _ldd(args: Sequence[str]) -> str:
    done = subprocess.run(["ldd", *args], capture_output=True, text=True, check=False)
    return done.stdout


def qt_binaries() -> list[Path]:
    """The xcb platform plugin and the Qt libraries a station loads, as installed in this Python."""
    from PySide6.QtCore import QLibraryInfo  # QtCore itself needs no desktop library

    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    libs = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.LibrariesPath))
    found = [plugins / "platforms" / "libqxcb.so"]
    found += [libs / name for name in ("libQt6XcbQpa.so.6", "libQt6Gui.so.6", "libQt6Widgets.so.6")]
    return [p for p in found if p.exists()]


def parse_ldd(text: str) -> list[str]:
    """The library names `ldd` output reports as "not found", each once, in order."""
    missing: list[str] = []
    for line in text.splitlines():
        name, sep, where = line.strip().partition("=>")
        if sep and where.strip() == "not found" and name.strip() not in missing:
            missing.append(name.strip())
    return missing


def missing_libraries(run: Runner = _ldd, binaries: Sequence[Path] | None = None) -> list[str]:
    """The shared libraries Qt's xcb plugin needs that the loader cannot find (Linux only)."""
    if not sys.platform.startswith("linux") or shutil.which("ldd") is None:
        return []
    targets = list(binaries) if binaries is not None else qt_binaries()
    return parse_ldd(run([str(p) for p in targets])) if targets else []


def packages_for(missing: Sequence[str]) -> tuple[list[str], list[str]]:
    """(Debian packages that provide `missing`, names no known package provides)."""
    packages: list[str] = []
    unknown: list[str] = []
    for name in missing:
        pkg = DEBIAN_PACKAGES.get(name)
        if pkg is None:
            unknown.append(name)
        elif pkg not in packages:
            packages.append(pkg)
    return packages, unknown


def install_command(packages: Sequence[str]) -> str:
    return "sudo apt-get install -y " + " ".join(packages)


def _can_install() -> bool:
    return os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get") is not None


def _apt_install(packages: Sequence[str]) -> bool:
    print(f"drr: installing with apt-get: {' '.join(packages)}", file=sys.stderr)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["update", "-qq"], ["install", "-y", "-qq", *packages]):
        done = subprocess.run(["apt-get", *step], env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            print(f"drr: apt-get {step[0]} failed: {last}", file=sys.stderr)
            return False
    return True


def missing_tools() -> list[str]:
    """The packages of the tests' display tools (`DISPLAY_TOOLS`) whose program is not installed."""
    return [package for program, package in DISPLAY_TOOLS.items() if shutil.which(program) is None]


def problem(missing: Sequence[str], need_xvfb: bool = False, tools: Sequence[str] = ()) -> str | None:
    """One line naming what is missing and the one command that installs it, or None."""
    packages, unknown = packages_for(missing)
    if need_xvfb and XVFB_PACKAGE not in packages:
        packages.append(XVFB_PACKAGE)
    packages += [t for t in tools if t not in packages]
    if not packages and not unknown:
        return None
    tools = [p for p in packages if p in DISPLAY_TOOLS.values()]
    what = ", ".join([*missing, *(["Xvfb"] if need_xvfb else []), *tools])
    line = f"Qt's screen plugin cannot start: missing {what}"
    if packages:
        line += f"; install with: {install_command(packages)}"
    if unknown:
        line += f" (install the package that provides {', '.join(unknown)})"
    return line


def ensure(install: bool, need_xvfb: bool = False, run: Runner = _ldd) -> str | None:
    """Install what is missing where we can (root with apt, and `install`); the remaining problem."""
    missing = missing_libraries(run)
    xvfb_missing = need_xvfb and shutil.which("Xvfb") is None
    tools = missing_tools() if need_xvfb else []
    if not missing and not xvfb_missing and not tools:
        return None
    packages = packages_for(missing)[0]
    if xvfb_missing:
        packages.append(XVFB_PACKAGE)
    packages += tools
    allowed = install and _can_install() and not os.environ.get("DRR_NO_APT")
    if allowed and packages and _apt_install(packages):
        missing = missing_libraries(run)
        xvfb_missing = need_xvfb and shutil.which("Xvfb") is None
        tools = missing_tools() if need_xvfb else []
    return problem(missing, xvfb_missing, tools)


def check_before_start() -> None:
    """Raise DrrError (one line) when a station would open on X11 without the libraries it needs."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    on_screen = platform in ("", "xcb")
    if (
        sys.platform.startswith("linux")
        and on_screen
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    ):
        # Qt would abort blaming a library (libxcb-cursor0) when the fault is that there is no screen.
        raise DrrError(
            "no display: the stations need a desktop session (DISPLAY is not set; on a table PC start drr "
            "from its desktop or its kiosk session, over ssh use `ssh -X`; `drr screenshots` needs none)"
        )
    on_x11 = on_screen and bool(os.environ.get("DISPLAY"))
    if sys.platform.startswith("linux") and on_x11:
        line = problem(missing_libraries())
        if line is not None:
            raise DrrError(line)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui.qt_libs", description=__doc__.splitlines()[0])
    parser.add_argument("--install", action="store_true", help="install what is missing (root with apt)")
    parser.add_argument(
        "--xvfb",
        action="store_true",
        help="the tests' X server (Xvfb), window manager, xdotool and scrot are needed too",
    )
    args = parser.parse_args(argv)
    line = ensure(args.install, args.xvfb)
    if line is None:
        return 0
    print(f"drr: {line}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
