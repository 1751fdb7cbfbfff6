"""`drr audit software`: every file's SHA-256 and the digest over them, recomputable by a lab."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.software_id import PACKAGES, program_root, running_digest, software_identity
from gui.cli import main
from tests.table.helpers import drr_env


def _tree(root: Path) -> None:
    (root / "engine" / "__pycache__").mkdir(parents=True)
    (root / "engine" / "a.py").write_text("print('a')\n")
    (root / "engine" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0cache")
    (root / "engine" / "stray.pyc").write_bytes(b"\0cache")
    (root / "gui").mkdir()
    (root / "gui" / "b.py").write_text("b = 1\n")
    (root / "resources" / "rules").mkdir(parents=True)
    (root / "resources" / "rules" / "default.toml").write_bytes(b"name = 'x'\n")
    (root / "tests").mkdir()  # not part of the program
    (root / "tests" / "t.py").write_text("")


def _lab_digest(root: Path, paths: list[str], key: bytes | None = None) -> str:
    """The digest as docs/certification.md tells a lab to compute it, without engine code."""
    lines = sorted(f"{p}\0{hashlib.sha256((root / p).read_bytes()).hexdigest()}\n".encode() for p in paths)
    text = b"".join(lines)
    return hmac.new(key, text, hashlib.sha256).hexdigest() if key else hashlib.sha256(text).hexdigest()


def test_source_tree_files_and_digest_recomputed_independently(tmp_path: Path) -> None:
    _tree(tmp_path)
    ident = software_identity(tmp_path, frozen=False)
    paths = ["engine/a.py", "gui/b.py", "resources/rules/default.toml"]
    assert [f.path for f in ident.files] == paths  # caches and non-program files left out
    assert ident.files[0].sha256 == hashlib.sha256(b"print('a')\n").hexdigest()
    assert ident.digest == _lab_digest(tmp_path, paths)
    keyed = software_identity(tmp_path, frozen=False, hmac_seed="00ff10")
    assert keyed.digest == _lab_digest(tmp_path, paths, bytes.fromhex("00ff10"))
    assert keyed.digest != ident.digest
    (tmp_path / "gui" / "b.py").write_text("b = 2\n")  # one changed byte, another program
    assert software_identity(tmp_path, frozen=False).digest != ident.digest


def test_frozen_bundle_is_every_file_of_the_bundle_folder(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "drr").write_bytes(b"\x7fELF")
    ident = software_identity(tmp_path, frozen=True)
    paths = ["drr", "engine/a.py", "gui/b.py", "resources/rules/default.toml", "tests/t.py"]
    assert [f.path for f in ident.files] == paths
    assert ident.digest == _lab_digest(tmp_path, paths)


def test_running_program_is_the_package_folders() -> None:
    root, frozen = program_root()
    assert not frozen
    ident = software_identity()
    tops = {f.path.split("/")[0] for f in ident.files}
    assert tops == set(PACKAGES)
    assert "engine/software_id.py" in {f.path for f in ident.files}
    assert not any("__pycache__" in f.path or f.path.endswith(".pyc") for f in ident.files)
    assert running_digest() == ident.digest == _lab_digest(root, [f.path for f in ident.files])


def test_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "software", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["digest", "files"]
    assert all(list(f) == ["path", "sha256"] for f in out["files"])
    assert out == software_identity().to_json()
    assert main(["audit", "software", "--json", "--hmac-seed", "0xDEADbeef"]) == 0
    keyed = json.loads(capsys.readouterr().out)
    assert keyed["files"] == out["files"]
    root, _ = program_root()
    assert keyed["digest"] == _lab_digest(root, [f["path"] for f in out["files"]], bytes.fromhex("deadbeef"))


def test_text_output_is_sha256sum_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "software"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ident = software_identity()
    assert lines[:-1] == [f"{f.sha256}  {f.path}" for f in ident.files]
    assert lines[-1].startswith(f"digest: {ident.digest}  ({len(ident.files)} files")
    root, _ = program_root()
    check = subprocess.run(
        ["sha256sum", "-c", "--quiet", "-"], input="\n".join(lines[:-1]) + "\n", text=True, cwd=root
    )
    assert check.returncode == 0


@pytest.mark.parametrize("seed", ["zz", "abc", "", "12 34"])
def test_bad_seed_refused_in_one_line(seed: str, tmp_path: Path) -> None:
    with pytest.raises(DrrError, match="--hmac-seed"):
        software_identity(hmac_seed=seed)
    r = subprocess.run(
        [sys.executable, "-m", "gui.cli", "audit", "software", "--hmac-seed", seed],
        capture_output=True,
        text=True,
        env=drr_env(tmp_path),
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
    )
    assert r.returncode == 2
    assert r.stderr.startswith("drr: --hmac-seed:") and "Traceback" not in r.stderr
