"""The Debian package (packaging/build_deb.py, packaging/deb/): built from a small fake bundle, its layout,
control file and maintainer scripts, run against a scratch root (DPKG_ROOT) with stand-ins for
useradd, runuser, systemctl... The full package of the real bundle, installed in a Debian root, is
`make deb-test` (packaging/deb_test.sh)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from engine.config import load_settings
from gui.qt_libs import DEBIAN_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
DEB = ROOT / "packaging" / "deb"


def build_deb() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_deb", ROOT / "packaging" / "build_deb.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_bundle(where: Path, version: str = "0.1.0") -> Path:
    """A bundle whose drr says its version and otherwise records how it was run."""
    bundle = where / "bundle"
    (bundle / "_internal" / "resources" / "icons").mkdir(parents=True)
    (bundle / "_internal" / "resources" / "icons" / "drr.png").write_bytes(b"\x89PNG fake")
    (bundle / "_internal" / "lib.so").write_bytes(b"library")
    drr = bundle / "drr"
    drr.write_text(
        "#!/bin/sh\n"
        f'[ "$1" = --version ] && {{ echo "drr {version}"; exit 0; }}\n'
        'echo "drr $* DRR_CONFIG=$DRR_CONFIG DRR_KEY_DIR=$DRR_KEY_DIR"\n',
        encoding="utf-8",
    )
    drr.chmod(0o755)
    return bundle


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Revision 1 and 2 of the fake bundle's package."""
    where = tmp_path_factory.mktemp("deb")
    bundle = fake_bundle(where)
    module = build_deb()
    return {rev: module.build(bundle, where / "out", rev, "gzip") for rev in ("1", "2")}


def deb_field(deb: Path, name: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_control_file_depends_on_every_qt_library_qt_libs_knows(packages: dict[str, Path]) -> None:
    deb = packages["1"]
    assert deb.name.startswith("diamond-rush-roulette_0.1.0-1_")
    assert deb_field(deb, "Package") == "diamond-rush-roulette"
    assert deb_field(deb, "Version") == "0.1.0-1"
    assert deb_field(packages["2"], "Version") == "0.1.0-2"
    depends = [d.strip() for d in deb_field(deb, "Depends").split(",")]
    names = {d.split()[0] for d in depends}
    assert set(DEBIAN_PACKAGES.values()) <= names  # the apt hints' list is the package's Depends
    assert {"passwd", "util-linux"} <= names  # useradd, runuser
    libc = next(d for d in depends if d.startswith("libc6 "))
    assert libc == f"libc6 (>= {os.confstr('CS_GNU_LIBC_VERSION').split()[1]})"
    assert "xinit" in deb_field(deb, "Recommends")
    assert int(deb_field(deb, "Installed-Size")) >= 1


def contents(deb: Path) -> dict[str, tuple[str, str]]:
    """{path: (mode string, owner/group)} of the package's files."""
    out = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    found: dict[str, tuple[str, str]] = {}
    for line in out.splitlines():
        mode, owner, _size, _day, _time, path, *_ = line.split()
        found[path.removeprefix(".")] = (mode, owner)
    return found


def test_the_layout_puts_the_bundle_in_a_folder_of_its_version_and_every_file_is_roots(
    packages: dict[str, Path],
) -> None:
    files = contents(packages["1"])
    expected = {
        "/opt/drr/0.1.0-1/drr": "-rwxr-xr-x",
        "/opt/drr/0.1.0-1/_internal/lib.so": "-rw-r--r--",
        "/usr/bin/drr": "-rwxr-xr-x",
        "/usr/sbin/drr-rollback": "-rwxr-xr-x",
        "/usr/lib/drr/kiosk-session": "-rwxr-xr-x",
        "/usr/lib/systemd/system/drr-station.service": "-rw-r--r--",
        "/usr/lib/systemd/system/drr-forwarder.service": "-rw-r--r--",
        "/etc/drr/settings.toml": "-rw-r--r--",
        "/etc/drr/forwarder.env": "-rw-r-----",
        "/etc/drr/kiosk.env": "-rw-r--r--",
        "/usr/share/icons/hicolor/256x256/apps/diamond-rush-roulette.png": "-rw-r--r--",
    }
    for path, mode in expected.items():
        assert files[path][0] == mode, path
    assert {owner for _, owner in files.values()} == {"root/root"}
    # Not in the package: /opt/drr/current, the keys, the journal (the maintainer scripts make them).
    assert not [p for p in files if p.startswith(("/opt/drr/current", "/etc/drr/keys", "/var/"))]
    assert "/opt/drr/0.1.0-2/drr" in contents(packages["2"])


def test_the_conffiles_are_the_files_under_etc_and_the_scripts_carry_the_version(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    subprocess.run(["dpkg-deb", "-e", str(packages["2"]), str(tmp_path)], check=True)
    assert (tmp_path / "conffiles").read_text().split() == [
        "/etc/drr/forwarder.env",
        "/etc/drr/kiosk.env",
        "/etc/drr/settings.toml",
    ]
    for name in ("preinst", "postinst", "prerm", "postrm"):
        text = (tmp_path / name).read_text()
        assert "@VERSION@" not in text and os.access(tmp_path / name, os.X_OK)
    assert 'VERSION="0.1.0-2"' in (tmp_path / "postinst").read_text()


def test_the_shipped_settings_put_the_journal_and_logs_under_var() -> None:
    settings = load_settings(DEB / "settings.toml")
    assert settings.database_url == "sqlite:////var/lib/drr/journal.sqlite"
    assert settings.log_dir == Path("/var/log/drr")
    assert settings.station == "croupier" and settings.wheel == "sim"


def unit(name: str) -> dict[str, dict[str, str]]:
    """A unit file's sections as {section: {key: value}} (the last value of a key)."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in (DEB / name).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
        elif line and not line.startswith("#"):
            key, _, value = line.partition("=")
            current[key] = value
    return sections


def test_both_units_run_as_drr_with_the_packages_settings_and_keys() -> None:
    packaged = {"/" + where for _, where, _ in build_deb().FILES}
    for name in ("drr-station.service", "drr-forwarder.service"):
        service = unit(name)["Service"]
        assert (service["User"], service["Group"]) == ("drr", "drr")
        assert service["Environment"] == "DRR_CONFIG=/etc/drr/settings.toml DRR_KEY_DIR=/etc/drr/keys"
        assert unit(name)["Install"]["WantedBy"] == "multi-user.target"
    station = unit("drr-station.service")["Service"]
    assert station["ExecStart"].split()[:2] == ["/usr/bin/xinit", "/usr/lib/drr/kiosk-session"]
    assert "-s 0 -dpms" in station["ExecStart"]  # no screen saver, no display power management
    assert station["PAMName"] == "login" and station["TTYPath"] == "/dev/tty7"
    assert "/usr/lib/drr/kiosk-session" in packaged
    forward = unit("drr-forwarder.service")["Service"]
    assert forward["ExecStart"] == "/usr/bin/drr db forward --to ${DRR_FLOOR_URL} --table ${DRR_TABLE}"
    assert forward["EnvironmentFile"] == "/etc/drr/forwarder.env"
    env = dict(
        line.split("=", 1)
        for line in (DEB / "forwarder.env").read_text().splitlines()
        if line and line[0] != "#"
    )
    assert set(env) == {"DRR_FLOOR_URL", "DRR_TABLE"}


def test_the_forwarder_units_command_line_parses() -> None:
    from gui.cli import build_parser

    args = build_parser().parse_args(
        ["db", "forward", "--to", "postgresql://drr@floor/casino", "--table", "1"]
    )
    assert (args.to, args.only_table, args.once) == ("postgresql://drr@floor/casino", "1", False)


# --- the maintainer scripts against a scratch root -------------------------------------------


STAND_INS = {
    # Each records its arguments in $LOG; state lives in $STATE.
    "getent": 'echo "getent $*" >>"$LOG"; grep -q "^$2:" "$STATE/passwd" 2>/dev/null',
    "useradd": 'echo "useradd $*" >>"$LOG"; for a; do u=$a; done; echo "$u:x:999:999" >>"$STATE/passwd"',
    "usermod": 'echo "usermod $*" >>"$LOG"',
    "chown": 'echo "chown $*" >>"$LOG"',
    "id": '[ "$1" = -u ] && echo "${FAKE_UID:-0}"',
    "runuser": 'echo "runuser $*" >>"$LOG"; case "$*" in *" db upgrade") exit "${DB_UPGRADE_EXIT:-0}";; esac',
    "systemctl": """echo "systemctl $*" >>"$LOG"
case "$1" in
  is-active) grep -qx "$3" "$STATE/active" 2>/dev/null ;;
  stop) grep -vx "$2" "$STATE/active" >"$STATE/active.new" || true; mv "$STATE/active.new" "$STATE/active" ;;
  start) echo "$2" >>"$STATE/active" ;;
esac""",
}


class Scratch:
    """A scratch root, the stand-ins on PATH, and dpkg's steps done by hand on it."""

    def __init__(self, base: Path) -> None:
        self.root = base / "root"
        self.state = base / "state"
        self.bin = base / "bin"
        self.log = base / "calls.log"
        for folder in (self.root, self.state, self.bin):
            folder.mkdir(parents=True)
        for name, body in STAND_INS.items():
            (self.bin / name).write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
            (self.bin / name).chmod(0o755)
        self.env = {
            "PATH": f"{self.bin}:/usr/bin:/bin",
            "DPKG_ROOT": str(self.root),
            "LOG": str(self.log),
            "STATE": str(self.state),
        }
        self.control: dict[str, Path] = {}

    def systemd_runs(self) -> None:
        (self.root / "run" / "systemd" / "system").mkdir(parents=True)

    def active(self, *units: str) -> None:
        (self.state / "active").write_text("".join(f"{u}\n" for u in units))

    def now_active(self) -> list[str]:
        path = self.state / "active"
        return path.read_text().split() if path.exists() else []

    def calls(self) -> list[str]:
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        self.log.unlink(missing_ok=True)
        return [line for line in lines if not line.startswith("getent")]

    def script(self, deb: Path, name: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        if deb not in self.control:
            self.control[deb] = self.state / f"control-{deb.name}"
            subprocess.run(["dpkg-deb", "-e", str(deb), str(self.control[deb])], check=True)
        return subprocess.run(
            [str(self.control[deb] / name), *args], env={**self.env, **env}, capture_output=True, text=True
        )

    def ok(self, deb: Path, name: str, *args: str, **env: str) -> str:
        done = self.script(deb, name, *args, **env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def unpack(self, deb: Path, replacing: Path | None = None) -> None:
        """dpkg's unpack: the new files in place, then the old package's files it does not have removed."""
        old = self.files(replacing) if replacing else set()
        subprocess.run(["dpkg-deb", "-x", str(deb), str(self.root)], check=True)
        for path in sorted(old - self.files(deb), reverse=True):
            target = Path(str(self.root) + path)
            if target.is_dir() and not target.is_symlink():
                if not any(target.iterdir()):
                    target.rmdir()
            else:
                target.unlink(missing_ok=True)

    @staticmethod
    def files(deb: Path) -> set[str]:
        return set(contents(deb)) - {"/"}

    def install(self, deb: Path) -> str:
        self.ok(deb, "preinst", "install")
        self.unpack(deb)
        return self.ok(deb, "postinst", "configure", "")

    def upgrade(self, old: Path, new: Path, **env: str) -> subprocess.CompletedProcess[str]:
        old_version, new_version = deb_field(old, "Version"), deb_field(new, "Version")
        self.ok(old, "prerm", "upgrade", new_version)
        self.ok(new, "preinst", "upgrade", old_version)
        self.unpack(new, replacing=old)
        self.ok(old, "postrm", "upgrade", new_version)
        return self.script(new, "postinst", "configure", old_version, **env)

    def rollback(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.root / "usr/sbin/drr-rollback"), *args],
            env={**self.env, **env},
            capture_output=True,
            text=True,
        )

    def path(self, where: str) -> Path:
        return self.root / where.lstrip("/")


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Scratch]:
    yield Scratch(tmp_path)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def test_a_first_install_makes_the_user_its_folders_and_the_schema_and_starts_nothing(
    scratch: Scratch, packages: dict[str, Path]
) -> None:
    scratch.systemd_runs()
    scratch.path("/etc/drr/keys").mkdir(parents=True)
    restored = scratch.path("/etc/drr/keys/table-1@abc.key")
    restored.write_text("{}")
    restored.chmod(0o644)  # e.g. copied back by root: the program would refuse it
    out = scratch.install(packages["1"])
    calls = scratch.calls()
    assert calls[0] == (
        "useradd --system --user-group --home-dir /var/lib/drr --no-create-home "
        "--shell /usr/sbin/nologin --comment Diamond Rush Roulette drr"
    )
    assert calls[1] == "usermod -a -G dialout drr"
    root = scratch.root
    assert f"chown drr:drr {root}/var/lib/drr {root}/var/log/drr {root}/etc/drr/keys" in calls
    assert f"chown drr:drr {restored}" in calls and mode(restored) == 0o600
    assert f"chown root:drr {root}/etc/drr/forwarder.env" in calls
    assert mode(scratch.path("/etc/drr/keys")) == 0o700
    assert mode(scratch.path("/var/lib/drr")) == 0o750 and mode(scratch.path("/var/log/drr")) == 0o750
    assert os.readlink(scratch.path("/opt/drr/current")) == "0.1.0-1"
    assert "runuser -u drr -- /usr/bin/drr db upgrade" in calls
    assert not [c for c in calls if "backup" in c]  # nothing to back up on a first install
    assert not [c for c in calls if c.startswith(("systemctl start", "systemctl enable"))]
    assert "systemctl enable --now drr-station" in out
    scratch.install(packages["1"])  # a reinstall: the user exists, no second useradd
    assert not [c for c in scratch.calls() if c.startswith("useradd")]


def test_an_upgrade_stops_the_station_keeps_the_previous_version_backs_up_and_upgrades_the_schema(
    scratch: Scratch, packages: dict[str, Path]
) -> None:
    scratch.install(packages["1"])
    scratch.systemd_runs()
    scratch.active("drr-station.service")  # the forwarder is not running: it stays stopped
    scratch.calls()
    done = scratch.upgrade(packages["1"], packages["2"])
    assert done.returncode == 0, done.stderr
    calls = scratch.calls()
    stop = calls.index("systemctl stop drr-station.service")
    backup = calls.index("runuser -u drr -- /usr/bin/drr backup /var/lib/drr/backups/before-0.1.0-2")
    upgrade = calls.index("runuser -u drr -- /usr/bin/drr db upgrade")
    start = calls.index("systemctl start drr-station.service")
    assert stop < backup < upgrade < start
    assert not [c for c in calls if c.endswith("start drr-forwarder.service")]
    assert scratch.now_active() == ["drr-station.service"]
    assert os.readlink(scratch.path("/opt/drr/current")) == "0.1.0-2"
    assert not scratch.path("/opt/drr/0.1.0-1").exists()  # dpkg removed it...
    kept = scratch.path("/opt/drr/previous/0.1.0-1/drr")  # ...and the copy is whole
    assert subprocess.run([str(kept), "--version"], capture_output=True, text=True).stdout == "drr 0.1.0\n"
    assert scratch.path("/opt/drr/previous/0.1.0-1/_internal/lib.so").read_bytes() == b"library"
    assert not scratch.path("/run/diamond-rush-roulette.restart").exists()


def test_a_failed_schema_upgrade_fails_the_configuration_and_leaves_the_station_stopped(
    scratch: Scratch, packages: dict[str, Path]
) -> None:
    scratch.install(packages["1"])
    scratch.systemd_runs()
    scratch.active("drr-station.service", "drr-forwarder.service")
    done = scratch.upgrade(packages["1"], packages["2"], DB_UPGRADE_EXIT="2")
    assert done.returncode == 1
    assert "drr db upgrade failed; the station stays stopped" in done.stderr
    assert scratch.now_active() == []
    assert not [c for c in scratch.calls() if c.startswith("systemctl start")]
    # dpkg --configure -a later (the cause fixed) starts both again
    assert scratch.script(packages["2"], "postinst", "configure", "0.1.0-1").returncode == 0
    assert sorted(scratch.now_active()) == ["drr-forwarder.service", "drr-station.service"]


def test_drr_rollback_runs_the_kept_version_and_back(scratch: Scratch, packages: dict[str, Path]) -> None:
    scratch.install(packages["1"])
    refused = scratch.rollback()
    assert refused.returncode == 1 and "no previous version is kept" in refused.stderr
    scratch.upgrade(packages["1"], packages["2"])
    scratch.systemd_runs()
    scratch.active("drr-station.service")
    scratch.calls()
    assert scratch.rollback("--list").stdout == "installed: 0.1.0-2  (runs)\nprevious:  0.1.0-1\n"
    assert scratch.rollback(FAKE_UID="1000").stderr == "drr-rollback: run me as root (sudo drr-rollback)\n"
    done = scratch.rollback()
    assert done.returncode == 0, done.stderr
    assert os.readlink(scratch.path("/opt/drr/current")) == "previous/0.1.0-1"
    assert "now runs drr 0.1.0 from /opt/drr/previous/0.1.0-1" in done.stdout
    assert "drr restore" in done.stdout  # the journal's schema may be the newer one's
    assert scratch.calls() == [
        "systemctl is-active --quiet drr-station.service",
        "systemctl stop drr-station.service",
        "systemctl is-active --quiet drr-forwarder.service",
        "systemctl start drr-station.service",
    ]
    assert "previous:  0.1.0-1  (runs)" in scratch.rollback("--list").stdout
    unknown = scratch.rollback("9.9-1")
    assert unknown.returncode == 1 and "version 9.9-1 is not on this PC" in unknown.stderr
    back = scratch.rollback("0.1.0-2")
    assert back.returncode == 0 and os.readlink(scratch.path("/opt/drr/current")) == "0.1.0-2"


def test_remove_and_purge_take_the_program_and_keep_the_evidence(
    scratch: Scratch, packages: dict[str, Path]
) -> None:
    scratch.install(packages["1"])
    scratch.upgrade(packages["1"], packages["2"])
    scratch.path("/var/lib/drr/journal.sqlite").write_text("journal")
    scratch.systemd_runs()
    scratch.active("drr-station.service", "drr-forwarder.service")
    scratch.calls()
    scratch.ok(packages["2"], "prerm", "remove")
    assert scratch.now_active() == []
    assert "systemctl disable --quiet drr-station.service drr-forwarder.service" in scratch.calls()
    scratch.ok(packages["2"], "postrm", "remove")
    assert (
        not scratch.path("/opt/drr/current").is_symlink() and not scratch.path("/opt/drr/previous").exists()
    )
    out = scratch.ok(packages["2"], "postrm", "purge")
    assert "kept /var/lib/drr (the journal), /etc/drr/keys" in out
    assert scratch.path("/var/lib/drr/journal.sqlite").read_text() == "journal"
    assert scratch.path("/etc/drr/keys").is_dir()


def test_the_wrapper_names_the_packages_settings_and_keys_and_runs_as_drr_for_root(tmp_path: Path) -> None:
    bundle = fake_bundle(tmp_path)
    (tmp_path / "opt").mkdir()
    (tmp_path / "opt" / "current").symlink_to(bundle)
    wrapper = tmp_path / "drr"
    wrapper.write_text(
        (DEB / "drr").read_text().replace("/opt/drr/current", str(tmp_path / "opt" / "current"))
    )
    wrapper.chmod(0o755)
    scratch = Scratch(tmp_path / "s")
    env = {**scratch.env, "FAKE_UID": "999"}
    out = subprocess.run([str(wrapper), "db", "upgrade"], env=env, capture_output=True, text=True).stdout
    assert out == "drr db upgrade DRR_CONFIG=/etc/drr/settings.toml DRR_KEY_DIR=/etc/drr/keys\n"
    env["DRR_KEY_DIR"] = "/elsewhere"  # the caller's own choice wins
    out = subprocess.run([str(wrapper), "db", "upgrade"], env=env, capture_output=True, text=True).stdout
    assert out.endswith("DRR_KEY_DIR=/elsewhere\n")
    subprocess.run([str(wrapper), "db", "upgrade"], env={**scratch.env, "FAKE_UID": "0"}, check=True)
    assert scratch.calls() == [f"runuser -u drr -- {wrapper} db upgrade"]


def test_the_kiosk_settings_name_what_the_kiosk_session_reads() -> None:
    session = (DEB / "kiosk-session").read_text()
    names = [
        line.split("=", 1)[0]
        for line in (DEB / "kiosk.env").read_text().splitlines()
        if line and line[0] != "#"
    ]
    assert len(names) == 6
    for name in names:
        assert "${" + name in session, name
    assert "xset s off s noblank -dpms" in session and "exec /usr/bin/drr" in session
    tomllib.loads((DEB / "settings.toml").read_text())  # the shipped settings are TOML
