"""The PyInstaller spec and its companions refer only to things that exist (the build is `make dist-test`)."""

from __future__ import annotations

import ast
import configparser
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "packaging" / "drr.spec"


def spec_tree() -> ast.Module:
    return ast.parse(SPEC.read_text(encoding="utf-8"))


def root_paths_in_spec() -> list[Path]:
    """Every path the spec builds as ROOT / "a" / "b" ..."""
    paths: list[Path] = []
    for node in ast.walk(spec_tree()):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            parts: list[str] = []
            cur: ast.expr = node
            while isinstance(cur, ast.BinOp) and isinstance(cur.op, ast.Div):
                if not isinstance(cur.right, ast.Constant):
                    break
                parts.insert(0, str(cur.right.value))
                cur = cur.left
            else:
                if isinstance(cur, ast.Name) and cur.id == "ROOT":
                    paths.append(ROOT.joinpath(*parts))
    return paths


def test_the_spec_is_python_and_every_path_it_names_exists_or_is_optional() -> None:
    paths = root_paths_in_spec()
    assert ROOT / "packaging" / "drr_main.py" in paths and ROOT / "gui" / "cli.py" in paths
    optional = {ROOT / "resources" / "icons" / "drr.ico"}  # only used when present, on Windows
    missing = [p for p in paths if not p.exists() and p not in optional]
    assert missing == []


def test_every_dynamically_loaded_command_module_is_imported_by_the_bundle() -> None:
    """The spec reads COMMAND_MODULES itself; check it reads the list the dispatcher really uses."""
    spec_globals: dict[str, object] = {}
    source = SPEC.read_text(encoding="utf-8")
    # Run only the spec's helper functions (not PyInstaller's Analysis) against the real sources.
    helpers = source[source.index("def module_list") : source.index("commands = module_list")]
    exec(compile("import ast\nfrom pathlib import Path\n" + helpers, str(SPEC), "exec"), spec_globals)
    spec_globals["ROOT"] = ROOT
    module_list = spec_globals["module_list"]
    from gui import cli

    assert module_list(ROOT / "gui" / "cli.py", "COMMAND_MODULES") == list(cli.COMMAND_MODULES)  # type: ignore[operator]


def spec_list(name: str) -> list[str]:
    """A list of strings the spec assigns to `name` (read, not run: the spec needs PyInstaller)."""
    for node in ast.walk(spec_tree()):
        if not isinstance(node, ast.Assign):
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{name} not assigned in the spec")


def test_the_benchmarks_stay_out_of_the_bundle_and_the_installed_package() -> None:
    """The benchmarks and synthetic journals (bench/) are not the program a lab certifies (issue 22):
    the bundle neither collects nor follows them, pip does not install them, no command loads them."""
    import tomllib

    from gui import cli

    assert "bench" not in spec_list("APP_PACKAGES")
    assert spec_list("BENCH") == ["bench"]
    assert "excludes=UNUSED_QT + DEV_ONLY + BENCH" in SPEC.read_text(encoding="utf-8")
    assert not any(m.split(".")[0] == "bench" for m in cli.COMMAND_MODULES)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    assert include and not any(pattern.startswith("bench") for pattern in include)


def test_excluded_qt_modules_are_not_imported_by_the_program() -> None:
    """Importing every app module must not pull in a Qt module the spec leaves out of the bundle, nor
    the benchmarks (bench/, left out too)."""
    tree = spec_tree()
    excluded: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "UNUSED_QT" for t in node.targets
        ):
            excluded = list(ast.literal_eval(node.value))
    assert "PySide6.QtWebEngineCore" in excluded and "PySide6.QtWidgets" not in excluded
    code = (
        "import importlib, pkgutil, sys, json\n"
        "import pyqtgraph, qasync\n"
        "for pkg in ('engine', 'hardware', 'gui', 'resources'):\n"
        "    mod = importlib.import_module(pkg)\n"
        "    for info in pkgutil.walk_packages(mod.__path__, pkg + '.'):\n"
        "        if '.migrations.' in info.name: continue\n"
        "        try: importlib.import_module(info.name)\n"
        "        except ImportError: pass\n"
        "assert not [m for m in sys.modules if m.partition('.')[0] == 'bench']\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('PySide6.Qt'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    imported = set(json.loads(out.stdout.splitlines()[-1]))
    assert {"PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets"} <= imported
    assert imported & set(excluded) == set()


def test_desktop_entry_is_well_formed() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(ROOT / "packaging" / "drr.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Terminal"] == "false"
    assert section["Exec"].split()[0].endswith("/drr")
    assert re.fullmatch(r"[a-z-]+", section["Icon"])
    assert section["Categories"].endswith(";")


def test_icon_files_exist_and_the_png_is_square() -> None:
    svg = (ROOT / "resources" / "icons" / "drr.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and 'viewBox="0 0 256 256"' in svg
    png = (ROOT / "resources" / "icons" / "drr.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width == height >= 128


def test_the_shipped_example_round_settles(tmp_path: Path) -> None:
    from gui.cli import main

    example = ROOT / "packaging" / "examples" / "round.json"
    json.loads(example.read_text(encoding="utf-8"))
    assert main(["settle", str(example)]) == 0


def test_makefile_has_dist_targets_and_ci_does_not_run_the_bundle_test() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^dist: ", makefile, re.M) and re.search(r"^dist-test: dist$", makefile, re.M)
    assert "packaging/drr.spec" in makefile
    assert "dist-test" not in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_systemd_unit_stops_the_station_with_sigterm_and_counts_its_exit_as_clean() -> None:
    import signal

    from gui.stopping import FORCE_AFTER_S

    unit = configparser.ConfigParser(interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "packaging" / "drr-station.service", encoding="utf-8")
    service = unit["Service"]
    assert service["ExecStart"].split()[0].endswith("/drr")
    assert service["KillSignal"] == "SIGTERM"
    # The station exits 128 + SIGTERM after a clean stop (gui.stopping): systemd must not call it a failure.
    assert str(128 + signal.SIGTERM) in service["SuccessExitStatus"].split()
    # SIGKILL comes only after the station's own forced exit would have.
    assert float(service["TimeoutStopSec"]) > FORCE_AFTER_S
    assert "drr-station.service" in (ROOT / "packaging" / "drr.spec").read_text(encoding="utf-8")
    assert "drr-station.service" in (ROOT / "packaging" / "install-linux.sh").read_text(encoding="utf-8")
