"""Software identity: the SHA-256 of every file of the running program and one digest over them.

A test lab verifies the program a table runs by recomputing this digest from the files it
approved (`drr audit software`, docs/certification.md). The construction is public and simple
enough to redo with coreutils:

- the files: from a source tree or pip install, every file under the package folders
  `engine/`, `hardware/`, `gui/` and `resources/` beside each other (the program that runs);
  from the PyInstaller one-folder bundle (`sys.frozen`), every file of the bundle folder that
  holds the executable (dist/drr/: the program, Python, Qt, the data). Byte-code caches are
  left out (`__pycache__/` folders, `*.pyc`, `*.pyo`): Python writes them itself, so they differ
  from machine to machine without the program differing;
- each file's `path` is relative to that root, with `/` separators; `sha256` is lowercase hex;
- the lines `path + "\\0" + sha256 + "\\n"` (UTF-8), sorted by path (byte order of the UTF-8
  path), concatenated: the *identity text*;
- `digest` = SHA-256 of the identity text; the keyed digest a lab asks for with a seed is
  HMAC-SHA256(key = the seed's bytes, message = the identity text).

The digest a process starts with is computed once (`running_digest`) and journaled in its
`table.started` entry.
"""

from __future__ import annotations

import hashlib
import hmac
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.errors import DrrError

PACKAGES = ("engine", "hardware", "gui", "resources")
SKIP_DIRS = frozenset({"__pycache__"})
SKIP_SUFFIXES = (".pyc", ".pyo")
_CHUNK = 1 << 20


@dataclass(frozen=True)
class FileDigest:
    path: str  # relative to the root, "/" separators
    sha256: str


@dataclass(frozen=True)
class SoftwareIdentity:
    """Every file's SHA-256 and the digest over them (keyed when `hmac_seed` was given)."""

    root: Path
    frozen: bool
    files: tuple[FileDigest, ...]  # sorted by path
    digest: str
    hmac_seed: str | None = None  # the seed as given (hex), when `digest` is the keyed one

    def to_json(self) -> dict[str, Any]:
        """The public `drr audit software --json` shape: {"digest", "files": [{"path", "sha256"}]}."""
        return {"digest": self.digest, "files": [{"path": f.path, "sha256": f.sha256} for f in self.files]}


def identity_text(files: list[FileDigest] | tuple[FileDigest, ...]) -> bytes:
    """The bytes the digest is taken over: sorted `path\\0sha256\\n` lines."""
    lines = sorted((f.path.encode("utf-8"), f.sha256.encode("ascii")) for f in files)
    return b"".join(p + b"\0" + h + b"\n" for p, h in lines)


def digest_of(files: list[FileDigest] | tuple[FileDigest, ...], hmac_key: bytes | None = None) -> str:
    text = identity_text(files)
    if hmac_key is None:
        return hashlib.sha256(text).hexdigest()
    return hmac.new(hmac_key, text, hashlib.sha256).hexdigest()


def parse_seed(seed: str) -> bytes:
    """An HMAC seed given in hex (as a lab hands it over), or DrrError naming what is wrong."""
    s = seed.strip()
    if s[:2].lower() == "0x":
        s = s[2:]
    if not s or len(s) % 2 or any(c not in "0123456789abcdefABCDEF" for c in s):
        raise DrrError(f"--hmac-seed: {seed!r} is not an even number of hex digits", exit_code=2)
    return bytes.fromhex(s)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def program_root() -> tuple[Path, bool]:
    """(the folder the program's files are under, whether it is a frozen bundle)."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve().parent, True
    return Path(__file__).resolve().parent.parent, False


def _wanted(rel: Path) -> bool:
    return not any(part in SKIP_DIRS for part in rel.parts[:-1]) and not rel.name.endswith(SKIP_SUFFIXES)


def program_files(root: Path, frozen: bool) -> list[Path]:
    """The program's files under `root` (see the module docstring), sorted."""
    tops = [root] if frozen else [root / p for p in PACKAGES if (root / p).is_dir()]
    found: list[Path] = []
    for top in tops:
        for path in top.rglob("*"):
            if path.is_file() and _wanted(path.relative_to(root)):
                found.append(path)
    return sorted(found)


def software_identity(
    root: Path | None = None, *, frozen: bool | None = None, hmac_seed: str | None = None
) -> SoftwareIdentity:
    """The identity of the running program (or of the tree at `root`)."""
    key = parse_seed(hmac_seed) if hmac_seed is not None else None
    if root is None:
        root, is_frozen = program_root()
        frozen = is_frozen if frozen is None else frozen
    frozen = bool(frozen)
    files = tuple(
        FileDigest(p.relative_to(root).as_posix(), file_sha256(p)) for p in program_files(root, frozen)
    )
    files = tuple(sorted(files, key=lambda f: f.path.encode("utf-8")))
    return SoftwareIdentity(root, frozen, files, digest_of(files, key), hmac_seed)


@lru_cache(maxsize=1)
def running_digest() -> str:
    """The (unkeyed) digest of the program this process runs, computed once: the files it
    started from are the ones it is running."""
    return software_identity().digest
