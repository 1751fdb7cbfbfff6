"""The table's signing key: one Ed25519 key per (store, table), kept outside the store, owner-only.

Anyone who can write the store can recompute every SHA-256 of the chain, its head and checkpoints; what
they cannot make without this key is the Ed25519 signature over (table, seq, hash) that the head and
every checkpoint carry. The key file lives in the key directory (`DRR_KEY_DIR`, else the user's config
directory beside the settings), one JSON file per store and table, mode 0600 (a looser file is refused:
a key others can read signs nothing). Beside it, the witness file (`.head`, rewritten atomically after
every committed append; the key file itself is written only at creation and rotation) remembers what
the key has signed: `journaled` (its public key is in the chain, so an empty or missing journal is a
loss, not a fresh table), the `high_water` head and the last signed `checkpoint` (a journal cut or
rolled back behind them is caught even when the cut ends on an old signed checkpoint).
See docs/journal-evidence.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from engine.errors import DrrError
from engine.store.canonical import canonical_json, now_text

APP_NAME = "diamond-rush-roulette"
KEY_DIR_ENV = "DRR_KEY_DIR"


def key_dir() -> Path:
    """Where key files live: `$DRR_KEY_DIR`, else `<user config dir>/keys` (not the stores' data dir)."""
    given = os.environ.get(KEY_DIR_ENV)
    if given:
        return Path(given).expanduser().absolute()
    import platformdirs

    return platformdirs.user_config_path(APP_NAME) / "keys"


def store_id(where: str) -> str:
    """A short stable name for a store location (its file path or redacted URL)."""
    return hashlib.sha256(where.encode()).hexdigest()[:16]


def key_path(where: str, table: str) -> Path:
    return key_dir() / f"table-{table}@{store_id(where)}.key"


def signed_message(table: str, seq: int, hash_: str) -> bytes:
    """The exact bytes signed for a head or checkpoint: canonical JSON of table, seq and hash."""
    return canonical_json({"hash": hash_, "seq": int(seq), "table": table}).encode()


def check_signature(public_hex: str, table: str, seq: int, hash_: str, sig_hex: str | None) -> bool:
    if not sig_hex:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex)).verify(
            bytes.fromhex(sig_hex), signed_message(table, seq, hash_)
        )
    except (InvalidSignature, ValueError):
        return False
    return True


def check_raw(public_hex: str, message: bytes, sig_hex: str | None) -> bool:
    if not sig_hex:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex)).verify(bytes.fromhex(sig_hex), message)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class TableKey:
    """A loaded key file."""

    path: Path
    table: str
    store: str
    private: Ed25519PrivateKey
    public: str  # hex of the 32 raw bytes
    created: str
    journaled: bool = False
    high_water: tuple[int, str] | None = None
    checkpoint: int | None = None  # the last signed checkpoint the witness saw

    def sign(self, seq: int, hash_: str) -> str:
        return self.private.sign(signed_message(self.table, seq, hash_)).hex()

    def sign_raw(self, message: bytes) -> str:
        return self.private.sign(message).hex()

    def to_json(self) -> dict[str, Any]:
        from cryptography.hazmat.primitives import serialization

        raw = self.private.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        return {
            "version": 1,
            "table": self.table,
            "store": self.store,
            "private_key": raw.hex(),
            "public_key": self.public,
            "created": self.created,
        }

    def witness_json(self) -> dict[str, Any]:
        return {
            "journaled": self.journaled,
            "high_water": list(self.high_water) if self.high_water else None,
            "checkpoint": self.checkpoint,
        }


def fingerprint(public_hex: str) -> str:
    """What a person compares (the first 16 hex digits of the SHA-256 of the public key)."""
    return hashlib.sha256(bytes.fromhex(public_hex)).hexdigest()[:16]


# path -> (mtime_ns, key): every append asks for the key, so the file is read again only when it changed
_CACHE: dict[Path, tuple[tuple[int, int], TableKey]] = {}


def witness_path(path: Path) -> Path:
    return path.with_suffix(".head")


def load(where: str, table: str) -> TableKey | None:
    """The key file of this store and table, None if there is none; DrrError if unsafe or unreadable."""
    path = key_path(where, table)
    try:
        st = path.stat()
    except FileNotFoundError:
        _CACHE.pop(path, None)
        return None
    except OSError as error:
        raise DrrError(f"cannot read the table key {path}: {error.strerror}") from error
    wpath = witness_path(path)
    try:
        w_mtime = wpath.stat().st_mtime_ns
    except OSError:
        w_mtime = 0
    stamp = (st.st_mtime_ns, w_mtime)
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise DrrError(
            f"the table key {path} is readable by others (mode {stat.S_IMODE(st.st_mode):04o}): "
            f"refused; make it owner-only (chmod 600 {path}) and check who copied it"
        )
    try:
        data = json.loads(path.read_text("utf-8"))
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(data["private_key"]))
        witness = json.loads(wpath.read_text("utf-8")) if w_mtime else {}
        hw = witness.get("high_water")
        key = TableKey(
            path=path,
            table=str(data["table"]),
            store=str(data["store"]),
            private=private,
            public=_public_hex(private),
            created=str(data.get("created", "")),
            journaled=bool(witness.get("journaled", False)),
            high_water=(int(hw[0]), str(hw[1])) if hw else None,
            checkpoint=int(witness["checkpoint"]) if witness.get("checkpoint") is not None else None,
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DrrError(f"the table key {path} is not a readable key file: {error}") from error
    if key.public != data.get("public_key"):
        raise DrrError(f"the table key {path} is damaged: its public key does not match its private key")
    _CACHE[path] = (stamp, key)
    return key


def _public_hex(private: Ed25519PrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    return private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def _write(key: TableKey, *, new: bool) -> TableKey:
    """Write the key file owner-only (a new file exclusively; an update through a temporary file)."""
    key.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text = json.dumps(key.to_json(), indent=2, sort_keys=True) + "\n"
    target = key.path if new else key.path.with_suffix(".tmp")
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if new else os.O_TRUNC)
    try:
        fd = os.open(target, flags, 0o600)
    except FileExistsError:
        raise DrrError(f"the table key {key.path} already exists") from None
    except OSError as error:
        raise DrrError(f"cannot write the table key {key.path}: {error.strerror}") from error
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.chmod(target, 0o600)
    if not new:
        os.replace(target, key.path)
    _CACHE.pop(key.path, None)
    return load(key.store, key.table) or key


def create(where: str, table: str) -> TableKey:
    """A new key for this store and table (refused if one exists: a key is rotated, never replaced)."""
    private = Ed25519PrivateKey.generate()
    key = TableKey(
        path=key_path(where, table),
        table=table,
        store=where,
        private=private,
        public=_public_hex(private),
        created=now_text(),
    )
    return _write(key, new=True)


def copy_to(key: TableKey, where: str) -> TableKey:
    """The same key and witness for a copy of its store at `where` (a benchmark's or a test's copy)."""
    copied = _write(replace(key, path=key_path(where, key.table), store=where), new=True)
    return update(copied, journaled=key.journaled, high_water=key.high_water, checkpoint=key.checkpoint)


def ensure(where: str, table: str) -> tuple[TableKey, bool]:
    """The key of this store and table, created if there is none; (key, created now)."""
    key = load(where, table)
    if key is not None:
        return key, False
    return create(where, table), True


def update(key: TableKey, **changes: Any) -> TableKey:
    """The witness file with `journaled` / `high_water` / `checkpoint` changed (atomic replace; not
    fsynced: it runs after every append, and a witness a power cut leaves one step behind is only
    weaker, never wrong)."""
    new = replace(key, **changes)
    wpath = witness_path(key.path)
    tmp = wpath.with_suffix(f".tmp{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(new.witness_json(), sort_keys=True) + "\n")
        os.replace(tmp, wpath)
    except OSError as error:
        raise DrrError(f"cannot write the table key's witness {wpath}: {error.strerror}") from error
    _CACHE.pop(key.path, None)
    return load(key.store, key.table) or new


def rotated(key: TableKey) -> TableKey:
    """A new private key for the same file (the caller journals the rotation, signed by the old key)."""
    private = Ed25519PrivateKey.generate()
    return replace(key, private=private, public=_public_hex(private), created=now_text())


def save_rotated(key: TableKey) -> TableKey:
    return _write(key, new=False)


# A rename costs a millisecond or two on some file systems: the witness follows the head at most every
# WITNESS_EVERY seconds (and at every checkpoint), so a table appending hundreds of entries a second
# keeps its pace; a crash can leave at most that much of the tail unwitnessed (docs/journal-evidence.md).
WITNESS_EVERY = 0.25
_LAST_NOTE: dict[Path, float] = {}


def note_high_water(where: str, table: str, seq: int, hash_: str, *, checkpoint: bool = False) -> None:
    """Remember a signed head (or checkpoint) in the witness (best effort: a read-only key dir leaves it)."""
    import time

    with contextlib.suppress(DrrError, OSError):
        key = load(where, table)
        if key is None or not key.journaled:
            return  # the first signed start marks the chain journaled (engine.store.evidence.started)
        now = time.monotonic()
        if not checkpoint and now - _LAST_NOTE.get(key.path, -WITNESS_EVERY) < WITNESS_EVERY:
            return
        _LAST_NOTE[key.path] = now
        changes: dict[str, Any] = {}
        if key.high_water is None or key.high_water[0] < seq:
            changes["high_water"] = (seq, hash_)
        if checkpoint and (key.checkpoint is None or key.checkpoint < seq):
            changes["checkpoint"] = seq
        if changes:
            update(key, **changes)


def rotation_message(table: str, old_key: str, new_key: str) -> bytes:
    """The bytes the old key signs when it hands the table over to the new one."""
    return canonical_json({"new_key": new_key, "old_key": old_key, "rotate": table}).encode()


def tables_with_keys(where: str) -> list[str]:
    """The tables that have a key file for this store."""
    found = []
    with contextlib.suppress(OSError):
        for path in key_dir().glob(f"table-*@{store_id(where)}.key"):
            found.append(path.name[len("table-") : -len(f"@{store_id(where)}.key")])
    return sorted(found)
