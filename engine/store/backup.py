"""A table store's backup and its restore: SQLite's online backup, the key file and witness, a manifest.

`backup(path, table, directory)` writes a consistent copy of a SQLite table store while the table may
keep writing (SQLite's online backup API), the table's key file and witness as they were just before
(so the copy's chain reaches at least as far as the witness it carries), and `manifest.json` with the
SHA-256 of every file. The copy is verified against the key before the manifest is written: a backup
whose manifest exists is one that verified.

`restore(directory, path, table)` checks every digest of the manifest, moves a store already at the
target aside untouched (never deleted), puts the copy back, the key and witness only where the table
has none (a key on the PC knows at least as much as the backup's), and verifies the result with the
key in force. A restore is a rollback whenever the table wrote after the backup: that verification
then fails the way the table's start would, and the report says so and names the quarantine
procedure (docs/journal-evidence.md), which records the gap in the chain.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import __version__
from engine.errors import DrrError
from engine.store import keys
from engine.store.canonical import now_text
from engine.store.db import open_store, stopped_table
from engine.store.evidence import PROCEDURE, report_time
from engine.store.verify import VerifyReport, verify

FORMAT = "drr-backup/1"
MANIFEST = "manifest.json"
STORE_FILE = "store.sqlite"
KEY_FILE = "table.key"
WITNESS_FILE = "table.head"


@dataclass(frozen=True)
class BackupReport:
    directory: Path
    table: str
    entries: int
    head: str
    key_fingerprint: str
    files: dict[str, str] = field(default_factory=dict)  # name -> sha256


@dataclass(frozen=True)
class RestoreReport:
    path: Path
    table: str
    verified: VerifyReport
    moved_aside: Path | None  # the store that was at the target, kept untouched
    key_restored: bool  # the table had no key file: the backup's was put back

    @property
    def problem(self) -> str | None:
        """None when the restored store verifies; else what the table's start would refuse, in words."""
        if self.verified.ok:
            return None
        return (
            f"restored, but the journal does not verify: {self.verified.problem}. The table refuses to "
            f"start on it; if this is the rollback to the backup's moment, record the gap with the "
            f"quarantine procedure ({PROCEDURE})"
        )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_private(path: Path, data: bytes) -> None:
    """A file only the owner reads, written whole (a temporary name, fsynced, then renamed)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def _sqlite_path(path: Path) -> Path:
    path = path.expanduser().absolute()
    if not path.is_file():
        raise DrrError(f"no table store at {path}: nothing to back up")
    if path.stat().st_size == 0:
        raise DrrError(f"the table store {path} is empty (0 bytes): it is not a backup's source")
    return path


def _online_copy(source: Path, target: Path) -> None:
    """SQLite's online backup: one consistent snapshot while other connections keep writing."""
    try:
        with (
            contextlib.closing(sqlite3.connect(source, timeout=10)) as src,
            contextlib.closing(sqlite3.connect(target)) as dst,
        ):
            src.backup(dst)
    except sqlite3.Error as error:
        raise DrrError(f"cannot copy {source}: {error}") from error
    os.chmod(target, 0o600)
    with target.open("rb") as f:
        os.fsync(f.fileno())


@contextlib.contextmanager
def _pinned_key_dir(directory: Path) -> Iterator[None]:
    """Verification of the copy must not read or move the table's own witness: the copy is checked
    against the public key alone, with an empty key folder in force while it runs."""
    before = os.environ.get(keys.KEY_DIR_ENV)
    os.environ[keys.KEY_DIR_ENV] = str(directory)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(keys.KEY_DIR_ENV, None)
        else:
            os.environ[keys.KEY_DIR_ENV] = before


def backup(store_path: Path, table: str, directory: Path) -> BackupReport:
    """Back up one table's SQLite store, key and witness into `directory` (new or empty); see above."""
    path = _sqlite_path(store_path)
    directory = directory.expanduser().absolute()
    if directory.exists() and any(directory.iterdir()):
        raise DrrError(f"the backup folder {directory} is not empty: give a new folder for each backup")
    where = str(path)
    key = keys.load(where, table)
    if key is None:
        raise DrrError(
            f"table {table} has no key file for {where} (looked in {keys.key_dir()}): a backup without "
            f"it could not be verified; see `drr config show` for the key folder"
        )
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    # The key and witness first: the snapshot taken after reaches at least as far as this witness.
    key_bytes = key.path.read_bytes()
    witness = keys.witness_path(key.path)
    witness_bytes = witness.read_bytes() if witness.exists() else None
    _write_private(directory / KEY_FILE, key_bytes)
    if witness_bytes is not None:
        _write_private(directory / WITNESS_FILE, witness_bytes)
    copy = directory / STORE_FILE
    _online_copy(path, copy)
    scratch = directory / ".verify-keys"
    scratch.mkdir(mode=0o700)
    try:
        with _pinned_key_dir(scratch), open_store(str(copy), table=table, migrate=False) as store:
            report = verify(store, table, public_key=key.public, remember=False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not report.ok:
        raise DrrError(
            f"the copy of table {table} does not verify ({report.problem}): the source store is damaged; "
            f"no manifest was written, so {directory} is not a backup ({PROCEDURE})"
        )
    seq, head = report.tables.get(table, (0, ""))
    if key.high_water is not None and key.high_water[0] > seq:
        raise DrrError(
            f"the copy of table {table} ends at entry {seq} but the table's witness saw entry "
            f"{key.high_water[0]}: the store was cut back before this backup ({PROCEDURE})"
        )
    files = {name: _sha256(directory / name) for name in (STORE_FILE, KEY_FILE, WITNESS_FILE)}
    if witness_bytes is None:
        files.pop(WITNESS_FILE)
    manifest = {
        "format": FORMAT,
        "table": table,
        "store": where,
        "created": now_text(),
        "program": __version__,
        "head": {"seq": seq, "hash": head},
        "key_fingerprint": keys.fingerprint(key.public),
        "files": files,
    }
    _write_private(directory / MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
    return BackupReport(directory, table, seq, head, keys.fingerprint(key.public), files)


def read_manifest(directory: Path) -> dict[str, Any]:
    """The backup's manifest after every file's digest matched; DrrError naming what does not."""
    directory = directory.expanduser().absolute()
    try:
        manifest = json.loads((directory / MANIFEST).read_text("utf-8"))
    except FileNotFoundError:
        raise DrrError(
            f"{directory} holds no {MANIFEST}: not a backup (or one that did not finish)"
        ) from None
    except (OSError, ValueError) as error:
        raise DrrError(f"the backup manifest {directory / MANIFEST} is not readable: {error}") from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DrrError(f"{directory / MANIFEST} is not a {FORMAT} manifest")
    files = manifest.get("files")
    if not isinstance(files, dict) or STORE_FILE not in files or KEY_FILE not in files:
        raise DrrError(f"{directory / MANIFEST} lists no store and key file")
    present = {p.name for p in directory.iterdir() if p.is_file()} - {MANIFEST}
    for extra in sorted(present - set(files)):
        raise DrrError(f"backup {directory}: {extra} is not in the manifest (added since): not restored")
    for name, digest in files.items():
        if name not in (STORE_FILE, KEY_FILE, WITNESS_FILE):
            raise DrrError(f"backup {directory}: the manifest names an unknown file {name!r}")
        target = directory / name
        if not target.is_file():
            raise DrrError(f"backup {directory}: {name} is missing")
        if _sha256(target) != digest:
            raise DrrError(
                f"backup {directory}: {name} does not match its digest in the manifest (changed or "
                f"damaged since the backup): not restored"
            )
    return manifest


def restore(directory: Path, store_path: Path, table: str) -> RestoreReport:
    """Put a backup back as `table`'s store at `store_path` and verify it; see the module docstring."""
    directory = directory.expanduser().absolute()
    manifest = read_manifest(directory)
    if str(manifest.get("table")) != table:
        raise DrrError(
            f"backup {directory} is of table {manifest.get('table')}, not table {table}: not restored"
        )
    path = store_path.expanduser().absolute()
    where = str(path)
    moved: Path | None = None
    path.parent.mkdir(parents=True, exist_ok=True)
    # Refused while a station holds the table (its owner lock): it would write on under the copy.
    with stopped_table(path):
        if path.exists() or Path(f"{path}-wal").exists():
            # Moved aside with its -wal/-shm, untouched: an old -wal beside the copy would be applied to it.
            moved = path.with_name(f"{path.name}.before-restore-{report_time()}")
            for suffix in ("", "-wal", "-shm"):
                src = Path(f"{path}{suffix}")
                if src.exists():
                    os.replace(src, Path(f"{moved}{suffix}"))
        tmp = path.with_name(path.name + ".restoring")
        shutil.copyfile(directory / STORE_FILE, tmp)
        with tmp.open("rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    key_restored = False
    if keys.load(where, table) is None:
        _restore_key(directory, manifest, where, table)
        key_restored = True
    with open_store(where, table=table, migrate=False, allow_older=True) as store:
        report = verify(store, table)
    return RestoreReport(path, table, report, moved, key_restored)


def _restore_key(directory: Path, manifest: dict[str, Any], where: str, table: str) -> None:
    """The backup's key file and witness under the target store's name (a store restored to another
    path keeps its key; the witness's verified mark is dropped, so the first start verifies it all)."""
    data = json.loads((directory / KEY_FILE).read_text("utf-8"))
    data["store"] = where
    target = keys.key_path(where, table)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    _write_private(target, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
    keys.witness_path(target).unlink(missing_ok=True)  # (written by `update` below, MAC'd for `where`)
    key = keys.load(where, table)
    if key is None or keys.fingerprint(key.public) != manifest.get("key_fingerprint"):
        raise DrrError(f"the key file restored to {target} is not the backup's key: restore stopped")
    if WITNESS_FILE in manifest["files"]:
        witness = json.loads((directory / WITNESS_FILE).read_text("utf-8"))
        keys.adopt_witness(key, witness, str(manifest.get("store", where)))
