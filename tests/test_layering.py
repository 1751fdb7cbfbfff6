"""The layer rules hold at run time too: the engine imports with Qt and serial absent."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = ("PySide6", "shiboken6", "pyqtgraph", "qasync", "serial")


def _run_with_blocked(code: str, blocked: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    prelude = textwrap.dedent(
        f"""
        import importlib.abc, sys
        BLOCKED = {blocked!r}
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in BLOCKED:
                    raise ImportError(f'{{name}} is blocked for this test')
                return None
        sys.meta_path.insert(0, Block())
        """
    )
    return subprocess.run(
        [sys.executable, "-c", prelude + code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def _modules(package: str) -> list[str]:
    names = []
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        if "migrations" in parts and parts[-1] != "migrations":
            continue  # alembic revision scripts are loaded by alembic, not imported
        names.append(".".join(parts))
    return names


def _import_all(package: str) -> str:
    return f"import importlib\nfor m in {_modules(package)!r}:\n    importlib.import_module(m)\nprint('ok')"


def test_every_engine_module_imports_without_qt_or_serial() -> None:
    proc = _run_with_blocked(_import_all("engine"), BLOCKED)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_every_hardware_module_imports_without_qt() -> None:
    proc = _run_with_blocked(_import_all("hardware"), BLOCKED[:4])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_the_blocker_really_blocks() -> None:
    proc = _run_with_blocked("import PySide6", BLOCKED)
    assert proc.returncode != 0
    assert "blocked for this test" in proc.stderr


def test_import_contracts_hold() -> None:
    exe = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(exe)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "broken" not in proc.stdout.lower() or " 0 broken" in proc.stdout.lower()


def test_version_command() -> None:
    from engine import __version__

    exe = Path(sys.executable).with_name("drr")
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"drr {__version__}"


def test_each_engine_module_imports_first_in_a_fresh_interpreter() -> None:
    # An import cycle shows only when a module is the first one loaded (`drr history show` loaded
    # engine.journal_types first and failed on engine.store.users_journal): each is tried so.
    # The registry, the payloads and the store: the modules that import one another.
    modules = [
        "engine.entry_types",
        "engine.journal_types",
        "engine.floor_events",
        "engine.table_events",
        "engine.wheel_events",
        *sorted(
            f"engine.store.{p.stem}" for p in (ROOT / "engine" / "store").glob("*.py") if p.stem != "__init__"
        ),
    ]
    code = textwrap.dedent(
        f"""
        import subprocess, sys
        bad = []
        for m in {modules!r}:
            r = subprocess.run([sys.executable, "-c", "import " + m], capture_output=True, text=True)
            if r.returncode:
                bad.append(m + ": " + r.stderr.strip().splitlines()[-1])
        print("\\n".join(bad))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.stdout.strip() == "", done.stdout
