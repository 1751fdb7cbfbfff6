"""The Debian package of the bundle: `make deb` (docs/packaging.md, "The Debian package").

    python packaging/build_deb.py BUNDLE OUT_DIR [--revision N]

Stages the one-folder bundle (dist/drr, `make dist`) as /opt/drr/VERSION with the files of
packaging/deb/ around it, writes the control file and builds OUT_DIR/diamond-rush-roulette_VERSION_ARCH.deb
with dpkg-deb. VERSION is the program's (``drr --version`` of the bundle) and the Debian revision:
0.1.0-1; a new revision of the same program is another folder, so an upgrade can keep the previous
one (the maintainer scripts, packaging/deb/preinst).

What it depends on: the system libraries Qt's screen plugin needs and the bundle does not carry,
the one list of them in gui/qt_libs.py (which otherwise gives apt hints), and the C library of the
build machine or newer (a bundle runs on a glibc at least as new as the one it was built on).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEB = ROOT / "packaging" / "deb"
PACKAGE = "diamond-rush-roulette"
MAINTAINER_SCRIPTS = ("preinst", "postinst", "prerm", "postrm")
# (file of packaging/deb, where it goes, mode); /etc files are conffiles (an upgrade keeps edits).
FILES = (
    ("drr", "usr/bin/drr", 0o755),
    ("drr-rollback", "usr/sbin/drr-rollback", 0o755),
    ("kiosk-session", "usr/lib/drr/kiosk-session", 0o755),
    ("drr-station.service", "usr/lib/systemd/system/drr-station.service", 0o644),
    ("drr-forwarder.service", "usr/lib/systemd/system/drr-forwarder.service", 0o644),
    ("settings.toml", "etc/drr/settings.toml", 0o644),
    ("forwarder.env", "etc/drr/forwarder.env", 0o640),
    ("kiosk.env", "etc/drr/kiosk.env", 0o644),
)
# What the kiosk session runs (Recommends: a surveillance PC with a desktop of its own needs none).
RECOMMENDS = ("xserver-xorg", "xinit", "x11-xserver-utils", "xinput")
_VERSION = re.compile(r"^drr (\S+)$")


def program_version(bundle: Path) -> str:
    """The version the bundle's program says it is (`drr --version`: "drr 0.1.0")."""
    done = subprocess.run(
        [str(bundle / "drr"), "--version"],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir(), "LANG": "C.UTF-8"},
    )
    found = _VERSION.match(done.stdout.strip())
    if done.returncode != 0 or found is None:
        raise SystemExit(
            f"build_deb: {bundle}/drr --version said {done.stdout.strip()!r} {done.stderr.strip()!r}"
        )
    return found.group(1)


def qt_packages() -> list[str]:
    """The Debian packages of the libraries Qt's xcb plugin needs (gui/qt_libs.py), sorted."""
    sys.path.insert(0, str(ROOT))
    from gui.qt_libs import DEBIAN_PACKAGES  # imports no Qt

    return sorted(set(DEBIAN_PACKAGES.values()))


def libc_version() -> str:
    """This machine's glibc version, e.g. "2.36" (the bundle needs it or newer)."""
    name, _, version = os.confstr("CS_GNU_LIBC_VERSION").partition(" ")  # "glibc 2.36"
    if name != "glibc" or not version:
        raise SystemExit("build_deb: not a glibc system; build the Debian package on Debian/Ubuntu")
    return version


def architecture() -> str:
    return subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()


def control(version: str, arch: str, installed_kib: int, depends: list[str], libc: str) -> str:
    """The DEBIAN/control file."""
    fields = {
        "Package": PACKAGE,
        "Version": version,
        "Architecture": arch,
        "Maintainer": "Diamond Rush Roulette maintainers <drr@localhost>",
        "Installed-Size": str(installed_kib),
        "Pre-Depends": "dpkg (>= 1.17.14)",
        "Depends": ", ".join([f"libc6 (>= {libc})", "passwd", "util-linux", *depends]),
        "Recommends": ", ".join(RECOMMENDS),
        "Section": "misc",
        "Priority": "optional",
        "Homepage": "https://example.invalid/diamond-rush-roulette",
        "Description": "Diamond Rush Roulette table system (stations, journal, forwarder)\n"
        " The table program of Diamond Rush Roulette as one self-contained folder (Python, Qt and\n"
        " every library inside) in /opt/drr/VERSION, run as /usr/bin/drr by the system user drr:\n"
        " the croupier station as a kiosk on tty7 (drr-station.service), the forwarder to the\n"
        " floor database (drr-forwarder.service), the journal in /var/lib/drr and its signing keys\n"
        " in /etc/drr/keys. drr-rollback runs the version kept from before the last upgrade.",
    }
    return "".join(f"{k}: {v}\n" for k, v in fields.items())


def _size_kib(root: Path) -> int:
    total = 0
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return (total + 1023) // 1024


def stage(bundle: Path, root: Path, version: str, *, arch: str, depends: list[str], libc: str) -> None:
    """Lay the package's files out under `root` (its DEBIAN/ too), ready for dpkg-deb --build."""
    if not (bundle / "drr").is_file():
        raise SystemExit(f"build_deb: no bundle at {bundle} (run make dist)")
    program = root / "opt" / "drr" / version
    program.parent.mkdir(parents=True)
    shutil.copytree(bundle, program, symlinks=True)
    for name, where, mode in FILES:
        target = root / where
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DEB / name, target)
        target.chmod(mode)
    icon = bundle / "_internal" / "resources" / "icons" / "drr.png"
    if icon.is_file():
        target = root / "usr/share/icons/hicolor/256x256/apps/diamond-rush-roulette.png"
        target.parent.mkdir(parents=True)
        shutil.copyfile(icon, target)
    debian = root / "DEBIAN"
    debian.mkdir()
    for name in MAINTAINER_SCRIPTS:
        text = (DEB / name).read_text(encoding="utf-8").replace("@VERSION@", version)
        (debian / name).write_text(text, encoding="utf-8")
        (debian / name).chmod(0o755)
    conffiles = sorted("/" + where for _, where, _ in FILES if where.startswith("etc/"))
    (debian / "conffiles").write_text("".join(f"{c}\n" for c in conffiles), encoding="utf-8")
    (debian / "control").write_text(control(version, arch, _size_kib(root), depends, libc), encoding="utf-8")
    for path in [root, *root.rglob("*")]:  # dpkg-deb refuses group- or world-writable DEBIAN files
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


def build(bundle: Path, out: Path, revision: str = "1", compression: str = "xz") -> Path:
    """Build the .deb of `bundle` into `out`; its path."""
    version = f"{program_version(bundle)}-{revision}"
    arch = architecture()
    out.mkdir(parents=True, exist_ok=True)
    deb = out / f"{PACKAGE}_{version}_{arch}.deb"
    with tempfile.TemporaryDirectory(prefix="drr-deb-", dir=out) as scratch:
        root = Path(scratch) / "root"
        stage(bundle, root, version, arch=arch, depends=qt_packages(), libc=libc_version())
        subprocess.run(
            ["dpkg-deb", "--root-owner-group", f"-Z{compression}", "-z1", "--build", str(root), str(deb)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return deb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="packaging/build_deb.py", description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path, help="the one-folder bundle (dist/drr)")
    parser.add_argument("out", type=Path, help="folder for the .deb")
    parser.add_argument("--revision", default="1", help="the Debian revision (VERSION-REVISION), default 1")
    parser.add_argument("--compression", default="xz", choices=("xz", "gzip", "zstd", "none"))
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[0-9A-Za-z.+~]+", args.revision):
        parser.error(f"--revision {args.revision!r}: letters, digits and . + ~ only")
    print(build(args.bundle, args.out, args.revision, args.compression))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
