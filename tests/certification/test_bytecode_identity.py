"""Byte-code caches and the software identity: a planted cache changes the digest and the start refuses it.

The attack a lab reported: byte-code compiled from a modified source, planted in `engine/__pycache__/`
with the real source's mtime and size in its header, runs in place of the source (Python checks only
those two), while the identity left `__pycache__` out. Each test runs `drr` in a subprocess from a
temporary copy of the program's package folders, so the planted file is the only difference.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path

from engine.software_id import PACKAGES, software_identity
from gui.bytecode_guard import planted_bytecode
from tests.table.helpers import drr_env

ROOT = Path(__file__).resolve().parents[2]
FORGED = "drr 6.6.6-forged"
MAIN = "import sys; from gui.cli import main; sys.argv[0] = 'drr'; sys.exit(main())"
SO = "engine/settlement.cpython-311-x86_64-linux-gnu.so"


def _copy_program(dest: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, dest / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def _plant(source: Path, forged_source: str) -> Path:
    """Byte-code of `forged_source` where Python looks for `source`'s cache, with `source`'s own mtime and
    size in its header: the import system takes it for the source's cache and runs it."""
    st = source.stat()
    code = compile(forged_source, str(source), "exec", dont_inherit=True)
    header = (
        importlib.util.MAGIC_NUMBER
        + (0).to_bytes(4, "little")  # flags 0: a timestamp-based cache (checked by mtime and size)
        + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
        + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    )
    cache = Path(importlib.util.cache_from_source(str(source)))
    cache.parent.mkdir(exist_ok=True)
    cache.write_bytes(header + marshal.dumps(code))
    return cache


def _drr(root: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = drr_env(tmp_path, PYTHONPATH=str(root))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # writing off or on, Python reads a valid cache either way
    return subprocess.run(
        [sys.executable, "-c", MAIN, *args],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=120,
    )


def test_a_planted_cache_changes_the_digest_and_the_start_refuses_it(tmp_path: Path) -> None:
    root = _copy_program(tmp_path / "program")
    clean = software_identity(root, frozen=False)
    init = root / "engine" / "__init__.py"
    forged = init.read_text(encoding="utf-8").replace('__version__ = "0.1.0"', '__version__ = "6.6.6-forged"')
    assert forged != init.read_text(encoding="utf-8")
    cache = _plant(init, forged)
    rel = cache.relative_to(root).as_posix()
    assert rel == f"engine/__pycache__/__init__.{sys.implementation.cache_tag}.pyc"

    planted = software_identity(root, frozen=False)
    assert planted.digest != clean.digest
    assert rel in {f.path for f in planted.files}
    for args in (["--version"], ["audit", "software", "--json"]):
        r = _drr(root, tmp_path, *args)
        assert FORGED not in r.stdout, "the planted byte-code ran"
        assert r.returncode == 2, (r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and rel in lines[0] and "Traceback" not in r.stderr, r.stderr
    cache.unlink()
    r = _drr(root, tmp_path, "--version")
    assert r.returncode == 0 and r.stdout.strip() == "drr 0.1.0", r.stderr


def test_the_lab_digest_counts_every_file_caches_included(tmp_path: Path) -> None:
    """docs/certification.md's recomputation (every file under the four folders) names the planted file."""
    root = _copy_program(tmp_path / "program")
    _plant(root / "engine" / "rules.py", "RULES = 'forged'\n")
    paths = sorted(
        (p.relative_to(root).as_posix() for pkg in PACKAGES for p in (root / pkg).rglob("*") if p.is_file()),
        key=lambda s: s.encode(),
    )
    text = b"".join(f"{p}\0{hashlib.sha256((root / p).read_bytes()).hexdigest()}\n".encode() for p in paths)
    assert software_identity(root, frozen=False).digest == hashlib.sha256(text).hexdigest()


def test_a_cache_compiled_from_its_own_source_runs_but_is_named_in_the_identity(tmp_path: Path) -> None:
    root = _copy_program(tmp_path / "program")
    clean = software_identity(root, frozen=False).digest
    genuine = Path(py_compile.compile(str(root / "engine" / "__init__.py"), doraise=True))
    assert planted_bytecode(root) == []
    r = _drr(root, tmp_path, "--version")
    assert r.returncode == 0 and r.stdout.strip() == "drr 0.1.0", r.stderr
    assert software_identity(root, frozen=False).digest != clean  # still not the approved program
    assert genuine.relative_to(root).as_posix() in {
        f.path for f in software_identity(root, frozen=False).files
    }


def test_a_stale_cache_python_would_not_load_is_not_refused(tmp_path: Path) -> None:
    root = _copy_program(tmp_path / "program")
    source = root / "engine" / "__init__.py"
    cache = _plant(source, "__version__ = 'old'\n")
    os.utime(source, (source.stat().st_atime, source.stat().st_mtime + 10))  # the source changed since
    assert planted_bytecode(root) == []
    r = _drr(root, tmp_path, "--version")
    assert r.returncode == 0 and r.stdout.strip() == "drr 0.1.0", r.stderr
    assert cache.exists()


def test_sourceless_byte_code_and_extension_modules_in_the_packages_are_refused(tmp_path: Path) -> None:
    root = _copy_program(tmp_path / "program")
    (root / "hardware" / "extra.pyc").write_bytes(importlib.util.MAGIC_NUMBER + b"\0" * 12)
    (root / SO).write_bytes(b"\x7fELF")
    found = [(p.relative_to(root).as_posix(), why) for p, why in planted_bytecode(root)]
    assert [p for p, _ in found] == [
        "engine/settlement.cpython-311-x86_64-linux-gnu.so",
        "hardware/extra.pyc",
    ]
    r = _drr(root, tmp_path, "--version")
    assert r.returncode == 2 and SO in r.stderr


def test_the_product_writes_no_byte_code(tmp_path: Path) -> None:
    """`drr` turns writing off before the engine is imported; make run sets PYTHONDONTWRITEBYTECODE too."""
    root = _copy_program(tmp_path / "program")
    r = _drr(root, tmp_path, "audit", "software", "--json")
    assert r.returncode == 0, r.stderr
    written = sorted(
        p.relative_to(root).as_posix()
        for pkg in ("engine", "hardware", "resources")
        for p in (root / pkg).rglob("*.pyc")
    )
    assert written == []
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    run = makefile[makefile.index("\nrun:") :].split("\n\n")[0]
    assert "PYTHONDONTWRITEBYTECODE=1" in run
