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
    (root / "bench").mkdir()  # the benchmarks beside the packages: not part of the program either
    (root / "bench" / "b.py").write_text("")


def _lab_digest(root: Path, paths: list[str], key: bytes | None = None) -> str:
    """The digest as docs/certification.md tells a lab to compute it, without engine code: over the
    files' SHA-256 values, or with a seed over each file's HMAC of its path and bytes."""
    if key is None:
        lines = sorted(
            f"{p}\0{hashlib.sha256((root / p).read_bytes()).hexdigest()}\n".encode() for p in paths
        )
        return hashlib.sha256(b"".join(lines)).hexdigest()
    macs = {
        p: hmac.new(key, p.encode() + b"\0" + (root / p).read_bytes(), hashlib.sha256).hexdigest()
        for p in paths
    }
    text = b"".join(sorted(f"{p}\0{m}\n".encode() for p, m in macs.items()))
    return hmac.new(key, text, hashlib.sha256).hexdigest()


def test_source_tree_files_and_digest_recomputed_independently(tmp_path: Path) -> None:
    _tree(tmp_path)
    ident = software_identity(tmp_path, frozen=False)
    paths = [
        "engine/__pycache__/a.cpython-311.pyc",  # byte-code runs: part of the program
        "engine/a.py",
        "engine/stray.pyc",
        "gui/b.py",
        "resources/rules/default.toml",
    ]
    assert [f.path for f in ident.files] == paths  # tests/ and bench/ are not the program
    assert ident.files[1].sha256 == hashlib.sha256(b"print('a')\n").hexdigest()
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
    paths = [
        "bench/b.py",
        "drr",
        "engine/__pycache__/a.cpython-311.pyc",
        "engine/a.py",
        "engine/stray.pyc",
        "gui/b.py",
        "resources/rules/default.toml",
        "tests/t.py",
    ]
    assert [f.path for f in ident.files] == paths
    assert ident.digest == _lab_digest(tmp_path, paths)


def test_running_program_is_the_package_folders() -> None:
    root, frozen = program_root()
    assert not frozen
    ident = software_identity()
    tops = {f.path.split("/")[0] for f in ident.files}
    assert tops == set(PACKAGES)
    assert "engine/software_id.py" in {f.path for f in ident.files}
    every = {
        p.relative_to(root).as_posix() for pkg in PACKAGES for p in (root / pkg).rglob("*") if p.is_file()
    }
    assert {f.path for f in ident.files} == every  # every file, byte-code too
    assert running_digest() == ident.digest == _lab_digest(root, [f.path for f in ident.files])


def test_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "software", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["digest", "files"]
    assert all(list(f) == ["path", "sha256"] for f in out["files"])
    assert out == software_identity().to_json()
    assert main(["audit", "software", "--json", "--hmac-seed", "0xDEADbeef"]) == 0
    keyed = json.loads(capsys.readouterr().out)
    assert list(keyed) == ["digest", "files"]
    assert all(list(f) == ["path", "sha256", "hmac_sha256"] for f in keyed["files"])
    assert [{"path": f["path"], "sha256": f["sha256"]} for f in keyed["files"]] == out["files"]
    root, _ = program_root()
    key = bytes.fromhex("deadbeef")
    assert keyed["digest"] == _lab_digest(root, [f["path"] for f in out["files"]], key)
    for f in keyed["files"][:5]:
        message = f["path"].encode() + b"\0" + (root / f["path"]).read_bytes()
        assert f["hmac_sha256"] == hmac.new(key, message, hashlib.sha256).hexdigest()


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


def test_a_seeded_answer_needs_every_file_s_bytes_not_the_approved_hashes(tmp_path: Path) -> None:
    """GAT-style: the keyed digest is over each file's bytes with the seed, so a modified program that
    carries the approved SHA-256 list (and answers from it) gives a different answer."""
    approved_root, forged_root = tmp_path / "approved", tmp_path / "forged"
    _tree(approved_root)
    _tree(forged_root)
    (forged_root / "gui" / "b.py").write_text("b = 2\n")  # the forged program's own bytes differ
    approved = software_identity(approved_root, frozen=False)
    seed = "5eed0123456789abcdef"
    key = bytes.fromhex(seed)
    answer = software_identity(approved_root, frozen=False, hmac_seed=seed).digest
    # What a program knowing only the approved hashes can compute (the old construction, keyed over
    # the `path NUL sha256` lines), and what the forged program computes over its own files:
    from_hashes = hmac.new(
        key, b"".join(f"{f.path}\0{f.sha256}\n".encode() for f in approved.files), "sha256"
    )
    assert answer != from_hashes.hexdigest()
    assert software_identity(forged_root, frozen=False, hmac_seed=seed).digest != answer
    assert answer == _lab_digest(approved_root, [f.path for f in approved.files], key)


def test_the_seeded_digest_changes_with_the_seed_and_with_every_byte(tmp_path: Path) -> None:
    _tree(tmp_path)
    seed = "00ff10"
    base = software_identity(tmp_path, frozen=False, hmac_seed=seed)
    assert software_identity(tmp_path, frozen=False, hmac_seed="00ff11").digest != base.digest
    assert software_identity(tmp_path, frozen=False, hmac_seed="a0ff10").digest != base.digest
    seen = {base.digest}
    for f in base.files:
        path = tmp_path / f.path
        data = path.read_bytes()
        for i in range(len(data)):
            path.write_bytes(data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1 :])
            seen.add(software_identity(tmp_path, frozen=False, hmac_seed=seed).digest)
        path.write_bytes(data)
    flips = sum(len((tmp_path / f.path).read_bytes()) for f in base.files)
    assert len(seen) == flips + 1  # every one-bit change of every byte gives its own answer
    assert software_identity(tmp_path, frozen=False, hmac_seed=seed).digest == base.digest
    (tmp_path / "gui" / "b.py").rename(tmp_path / "gui" / "c.py")  # same bytes under another name
    assert software_identity(tmp_path, frozen=False, hmac_seed=seed).digest != base.digest


def _doc_commands() -> list[str]:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "certification.md").read_text(encoding="utf-8")
    part = doc[doc.index("Recomputing both independently") :]
    blocks = [b.split("```", 1)[0].strip() for b in part.split("```sh\n")[1:3]]
    return [b.removeprefix("cd approved-copy && ") for b in blocks]


def test_the_docs_shell_commands_give_both_digests(tmp_path: Path) -> None:
    _tree(tmp_path)
    plain, keyed = _doc_commands()
    seed = keyed.split("SEED=", 1)[1].split(" ", 1)[0]
    run = {"cwd": tmp_path, "capture_output": True, "text": True, "check": True}
    out = subprocess.run(["bash", "-c", plain], **run).stdout.split()[0]  # type: ignore[call-overload]
    assert out == software_identity(tmp_path, frozen=False).digest
    out = subprocess.run(["bash", "-c", keyed], **run).stdout.strip()  # type: ignore[call-overload]
    assert out == software_identity(tmp_path, frozen=False, hmac_seed=seed).digest
