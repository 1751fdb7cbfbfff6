"""Software identity: the SHA-256 of every file of the running program and one digest over them.

A test lab verifies the program a table runs by recomputing this digest from the files it
approved (`drr audit software`, docs/certification.md). The construction is public and simple
enough to redo with coreutils (and openssl for the keyed one):

- the files: from a source tree or pip install, every file under the package folders
  `engine/`, `hardware/`, `gui/` and `resources/` beside each other (the program that runs; an
  explicit list, so a folder beside them such as the benchmarks' `bench/` is not part of it);
  from the PyInstaller one-folder bundle (`sys.frozen`), every file of the bundle folder that
  holds the executable (dist/drr/: the program with its archive of byte-code, Python, Qt, the
  data). Nothing is left out, byte-code included (`__pycache__/`, `*.pyc`): Python runs a cache
  in place of its source when the cache's header carries the source's mtime and size, so a cache
  is program. The product writes none (gui/cli.py, the Makefile, the bundle's bootloader) and
  refuses to start with one that is not its source's compilation (gui/bytecode_guard.py);
- each file's `path` is relative to that root, with `/` separators; `sha256` is lowercase hex;
- the lines `path + "\\0" + sha256 + "\\n"` (UTF-8), sorted by path (byte order of the UTF-8
  path), concatenated: the *identity text*; `digest` = SHA-256 of the identity text;
- the keyed digest a lab asks for with a seed hashes every file's bytes with the seed (as a GAT
  check does), so a program that only knows the approved hashes cannot answer it: for each file
  `hmac_sha256` = HMAC-SHA256(key = the seed's bytes, message = path + "\\0" + the file's bytes);
  the lines `path + "\\0" + hmac_sha256 + "\\n"`, sorted as above, are the *keyed identity text*;
  the keyed digest = HMAC-SHA256(key = the seed's bytes, message = the keyed identity text).

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

PACKAGES = ("engine", "hardware", "gui", "resources")  # the product's packages, and only these
_CHUNK = 1 << 20


@dataclass(frozen=True)
class FileDigest:
    path: str  # relative to the root, "/" separators
    sha256: str
    hmac_sha256: str | None = None  # HMAC-SHA256(seed, path NUL bytes), when a seed was given


@dataclass(frozen=True)
class SoftwareIdentity:
    """Every file's SHA-256 and the digest over them (keyed when `hmac_seed` was given)."""

    root: Path
    frozen: bool
    files: tuple[FileDigest, ...]  # sorted by path
    digest: str
    hmac_seed: str | None = None  # the seed as given (hex), when `digest` is the keyed one

    def to_json(self) -> dict[str, Any]:
        """The public `drr audit software --json` shape: {"digest", "files": [{"path", "sha256"}]};
        with a seed each file also has its `hmac_sha256`."""
        return {"digest": self.digest, "files": [_file_json(f) for f in self.files]}


def _file_json(f: FileDigest) -> dict[str, str]:
    out = {"path": f.path, "sha256": f.sha256}
    if f.hmac_sha256 is not None:
        out["hmac_sha256"] = f.hmac_sha256
    return out


def identity_text(files: list[FileDigest] | tuple[FileDigest, ...]) -> bytes:
    """The bytes the digest is taken over: sorted `path\\0sha256\\n` lines."""
    lines = sorted((f.path.encode("utf-8"), f.sha256.encode("ascii")) for f in files)
    return b"".join(p + b"\0" + h + b"\n" for p, h in lines)


def keyed_identity_text(files: list[FileDigest] | tuple[FileDigest, ...]) -> bytes:
    """The bytes the keyed digest is taken over: sorted `path\\0hmac_sha256\\n` lines."""
    if any(f.hmac_sha256 is None for f in files):
        raise ValueError("the keyed identity needs every file's HMAC (software_identity with a seed)")
    lines = sorted((f.path.encode("utf-8"), str(f.hmac_sha256).encode("ascii")) for f in files)
    return b"".join(p + b"\0" + h + b"\n" for p, h in lines)


def digest_of(files: list[FileDigest] | tuple[FileDigest, ...], hmac_key: bytes | None = None) -> str:
    """The digest over the files' hashes; with `hmac_key`, the keyed digest over their per-file HMACs
    (which only a reading of every file's bytes with that key gives: `software_identity`)."""
    if hmac_key is None:
        return hashlib.sha256(identity_text(files)).hexdigest()
    return hmac.new(hmac_key, keyed_identity_text(files), hashlib.sha256).hexdigest()


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


def file_digest(path: Path, rel: str, hmac_key: bytes | None = None) -> FileDigest:
    """One file's SHA-256 and, with a key, its HMAC over `rel` NUL bytes: both from one read."""
    h = hashlib.sha256()
    mac = hmac.new(hmac_key, rel.encode("utf-8") + b"\0", hashlib.sha256) if hmac_key is not None else None
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
            if mac is not None:
                mac.update(chunk)
    return FileDigest(rel, h.hexdigest(), mac.hexdigest() if mac is not None else None)


def program_root() -> tuple[Path, bool]:
    """(the folder the program's files are under, whether it is a frozen bundle)."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve().parent, True
    return Path(__file__).resolve().parent.parent, False


def program_tops(root: Path, frozen: bool) -> list[Path]:
    """The folders whose every file is the program: the bundle folder, or the four package folders."""
    return [root] if frozen else [root / p for p in PACKAGES if (root / p).is_dir()]


def program_files(root: Path, frozen: bool) -> list[Path]:
    """The program's files under `root` (see the module docstring), sorted: every file, byte-code too."""
    found = [path for top in program_tops(root, frozen) for path in top.rglob("*") if path.is_file()]
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
    files = tuple(file_digest(p, p.relative_to(root).as_posix(), key) for p in program_files(root, frozen))
    files = tuple(sorted(files, key=lambda f: f.path.encode("utf-8")))
    return SoftwareIdentity(root, frozen, files, digest_of(files, key), hmac_seed)


@lru_cache(maxsize=1)
def running_digest() -> str:
    """The (unkeyed) digest of the program this process runs, computed once: the files it
    started from are the ones it is running."""
    return software_identity().digest
