"""The layer rules hold at run time too: the engine imports with Qt and serial absent."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
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
    # One interpreter forks a child per module, which imports that module first; before, it loads the
    # libraries the engine uses (what a first child importing them all loaded, never an engine module:
    # each child checks it has none), so the interpreter's start and the libraries' imports are paid
    # once instead of once per module (about a second of CPU each).
    cache = tempfile.mkdtemp(prefix="drr-layering-pyc-")
    code = textwrap.dedent(
        f"""
        import importlib, os, sys, traceback

        def forked(work):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read)
                status = 0
                try:
                    os.write(write, work().encode())
                except BaseException:
                    os.write(write, traceback.format_exc().strip().splitlines()[-1].encode())
                    status = 1
                os._exit(status)
            os.close(write)
            with os.fdopen(read, "rb") as pipe:
                said = pipe.read().decode()
            return os.waitpid(pid, 0)[1] == 0, said

        def engine_loaded():
            return [n for n in sys.modules if n == "engine" or n.startswith("engine.")]

        modules = {modules!r}

        def libraries():
            for m in modules:
                try:
                    importlib.import_module(m)
                except Exception:
                    pass  # (its own child below says why)
            return " ".join(n for n in sys.modules if n != "__main__" and n not in engine_loaded())

        ok, names = forked(libraries)
        assert ok, names
        for name in names.split():
            try:
                importlib.import_module(name)
            except Exception:
                pass  # (only a head start: the child imports what is missing)
        assert not engine_loaded(), engine_loaded()
        # From here the engine's sources are compiled once, by the first child that imports each,
        # into a scratch cache that the later children read (the tree's own __pycache__ stays empty:
        # the product refuses caches there, gui/bytecode_guard.py); without it every child compiled
        # every engine module it imported again. The libraries loaded above keep their own caches.
        sys.pycache_prefix = {cache!r}
        sys.dont_write_bytecode = False

        def first(m):
            def work():
                assert not engine_loaded(), f"an engine module was loaded before {{m}}: {{engine_loaded()}}"
                importlib.import_module(m)
                return ""
            return work

        bad = []
        for m in modules:
            ok, said = forked(first(m))
            if not ok:
                bad.append(m + ": " + said)
        print("\\n".join(bad))
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", done.stdout
