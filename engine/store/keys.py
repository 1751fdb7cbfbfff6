"""The table's signing key: one Ed25519 key per (store, table), kept outside the store, owner-only.

Anyone who can write the store can recompute every SHA-256 of the chain, its head and checkpoints; what
they cannot make without this key is the Ed25519 signature over (table, seq, hash) that the head and
every checkpoint carry. The key file lives in the key directory (`DRR_KEY_DIR`, else the user's config
directory beside the settings), one JSON file per store and table, mode 0600 (a looser file is refused:
a key others can read signs nothing). Beside it, the witness file (`.head`, rewritten atomically after
every committed append; the key file itself is written only at creation and rotation) remembers what
the key has signed: `journaled` (its public key is in the chain, so an empty or missing journal is a
loss, not a fresh table), the `high_water` head and the last signed `checkpoint` (a journal cut or
rolled back behind them is caught even when the cut ends on an old signed checkpoint), `mac_from`
(the first entry that must carry its MAC) and `verified` (the last position a verification with this
key found good, itself MAC'd: a restart verifies only what came after it, engine.store.evidence).

Every entry also carries a MAC (`journal.mac`): HMAC-SHA256 over its hash, with a key derived from the
private key by HKDF-SHA256 (`TableKey.mac_key`). Whoever holds the key file can check each entry on its
own, so a forger who recomputed every hash is named at the exact first entry they changed. A rotation
keeps the retired keys' MAC keys (not their signing keys) in the key file, to check the entries they
MAC'd. See docs/journal-evidence.md.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import stat
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from engine.errors import DrrError
from engine.store.canonical import canonical_json, now_text

APP_NAME = "diamond-rush-roulette"
KEY_DIR_ENV = "DRR_KEY_DIR"


def key_dir() -> Path:
    """Where key files live: `$DRR_KEY_DIR`, else `<user config dir>/keys` (not the stores' data dir)."""
    given = os.environ.get(KEY_DIR_ENV)
    if given:
        # The working directory matters only to a relative setting (a station started in a folder
        # since removed has none: os.getcwd() fails there, and every append asks for its key).
        absolute = os.path.isabs(os.path.expanduser(given))
        return _given_dir(given, "" if absolute else os.getcwd())
    return _config_dir(os.environ.get("XDG_CONFIG_HOME"), os.environ.get("HOME"))


# Every append looks its table's key up (`load`): the directory and the file's path are worked out once
# per setting (the environment and working directory they depend on are part of the cache's key).
@functools.lru_cache(maxsize=64)
def _given_dir(given: str, cwd: str) -> Path:
    return Path(given).expanduser().absolute()


@functools.lru_cache(maxsize=64)
def _config_dir(xdg_config_home: str | None, home: str | None) -> Path:
    import platformdirs

    return platformdirs.user_config_path(APP_NAME) / "keys"


def store_id(where: str) -> str:
    """A short stable name for a store location (its file path or redacted URL)."""
    return hashlib.sha256(where.encode()).hexdigest()[:16]


def key_path(where: str, table: str) -> Path:
    return _key_path(key_dir(), where, table)


@functools.lru_cache(maxsize=1024)
def _key_path(directory: Path, where: str, table: str) -> Path:
    return directory / f"table-{table}@{store_id(where)}.key"


def signed_message(table: str, seq: int, hash_: str) -> bytes:
    """The exact bytes signed for a head or checkpoint: canonical JSON of table, seq and hash."""
    return canonical_json({"hash": hash_, "seq": int(seq), "table": table}).encode()


@functools.lru_cache(maxsize=64)
def _public_key(public_hex: str) -> Ed25519PublicKey:
    """The key object of a public key (made once: a verify checks thousands of checkpoints with it)."""
    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))


def check_signature(public_hex: str, table: str, seq: int, hash_: str, sig_hex: str | None) -> bool:
    if not sig_hex:
        return False
    try:
        _public_key(public_hex).verify(bytes.fromhex(sig_hex), signed_message(table, seq, hash_))
    except (InvalidSignature, ValueError):
        return False
    return True


def check_raw(public_hex: str, message: bytes, sig_hex: str | None) -> bool:
    if not sig_hex:
        return False
    try:
        _public_key(public_hex).verify(bytes.fromhex(sig_hex), message)
    except (InvalidSignature, ValueError):
        return False
    return True


MAC_INFO = b"diamond-rush-roulette journal entry MAC v1"
# Key files from this version on: their witness is MAC'd whole (a version-1 key file's witness may be
# one written before that, and is read as it is until its next update MACs it).
WITNESS_MAC_VERSION = 2


def derive_mac_key(private: Ed25519PrivateKey, table: str) -> bytes:
    """The entry MAC key: HKDF-SHA256 over the raw private key, bound to the table (32 bytes)."""
    raw = private.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=MAC_INFO + b" " + table.encode()
    ).derive(raw)


def entry_mac(mac_key: bytes, hash_: str) -> str:
    """An entry's MAC (hex): HMAC-SHA256 over its hash's hex text (the hash covers every field)."""
    return hmac.digest(mac_key, hash_.encode("ascii"), "sha256").hex()


@dataclass(frozen=True)
class VerifiedMark:
    """The last position a verification with the key found good (the witness's `verified`)."""

    seq: int
    hash: str
    key: str  # the public key in force at `seq`
    macs: bool  # entries up to `seq` carried MACs (every later entry must)
    checkpoints: int  # checkpoint rows at or before `seq`
    rounds: int  # distinct round ids at or before `seq`

    def fields(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "hash": self.hash,
            "key": self.key,
            "macs": self.macs,
            "checkpoints": self.checkpoints,
            "rounds": self.rounds,
        }


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
    mac_from: int | None = None  # every entry from this seq on carries its MAC
    verified: VerifiedMark | None = None
    retired: tuple[tuple[str, str], ...] = ()  # (public key, MAC key hex) of keys rotated out
    # A rotation under way (written ahead, engine.store.key_rotation): the new private key kept beside
    # this one until its `table.key_rotated` entry commits.
    pending: Ed25519PrivateKey | None = None
    rounds: int = 0  # the highest round number the witness saw opened (round ids are never reused)
    # The witness file: "ok" (its MAC holds), "none" (no file), "legacy" (written before witnesses
    # were MAC'd whole, by a version-1 key file), "forged" (its MAC fails: its fields are not used).
    witness_state: str = "none"
    version: int = WITNESS_MAC_VERSION

    @functools.cached_property
    def mac_key(self) -> bytes:  # once per loaded key: every append MACs its entry with it
        return _mac_key_cached(self.private, self.table)

    def mac_key_for(self, public_hex: str) -> bytes | None:
        """The MAC key of the key `public_hex` (this one or a retired one), None if unknown."""
        if public_hex == self.public:
            return self.mac_key
        for public, mac in self.retired:
            if public == public_hex:
                return bytes.fromhex(mac)
        return None

    def mac(self, hash_: str) -> str:
        return entry_mac(self.mac_key, hash_)

    def mark(self, mark: VerifiedMark) -> dict[str, Any]:
        """The witness's `verified` object: the mark's fields and their MAC (a mark edited by hand,
        or copied from another table's witness, is ignored)."""
        fields = mark.fields()
        return {**fields, "mac": self._mark_mac(fields)}

    def _mark_mac(self, fields: dict[str, Any]) -> str:
        text = canonical_json({"verified": fields, "table": self.table, "store": self.store}).encode()
        return hmac.digest(self.mac_key, text, "sha256").hex()

    def read_mark(self, data: Any) -> VerifiedMark | None:
        if not isinstance(data, dict):
            return None
        fields = {k: v for k, v in data.items() if k != "mac"}
        if not hmac.compare_digest(str(data.get("mac", "")), self._mark_mac(fields)):
            return None
        try:
            return VerifiedMark(
                seq=int(fields["seq"]),
                hash=str(fields["hash"]),
                key=str(fields["key"]),
                macs=bool(fields["macs"]),
                checkpoints=int(fields["checkpoints"]),
                rounds=int(fields["rounds"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def sign(self, seq: int, hash_: str) -> str:
        return self.private.sign(signed_message(self.table, seq, hash_)).hex()

    def sign_raw(self, message: bytes) -> str:
        return self.private.sign(message).hex()

    def to_json(self) -> dict[str, Any]:
        data = {
            "version": self.version,
            "table": self.table,
            "store": self.store,
            "private_key": _raw_hex(self.private),
            "public_key": self.public,
            "created": self.created,
            "retired": [{"public_key": p, "mac_key": m} for p, m in self.retired],
        }
        if self.pending is not None:
            data["pending_key"] = _raw_hex(self.pending)
        return data

    def witness_json(self) -> dict[str, Any]:
        fields = {
            "journaled": self.journaled,
            "high_water": list(self.high_water) if self.high_water else None,
            "checkpoint": self.checkpoint,
            "mac_from": self.mac_from,
            "rounds": self.rounds,
            "verified": self.mark(self.verified) if self.verified is not None else None,
        }
        return {**fields, "mac": self._witness_mac(fields, self.mac_key)}

    def _witness_mac(self, fields: dict[str, Any], mac_key: bytes) -> str:
        text = canonical_json({"witness": fields, "table": self.table, "store": self.store}).encode()
        return hmac.digest(mac_key, text, "sha256").hex()

    def witness_holds(self, witness: dict[str, Any]) -> bool:
        """The witness's MAC holds under this key's MAC key, or a retired one's (a rotation killed
        after its new key took over, before the witness was rewritten under it)."""
        fields = {k: v for k, v in witness.items() if k != "mac"}
        given = str(witness.get("mac", ""))
        macs = [self.mac_key, *(bytes.fromhex(m) for _, m in self.retired)]
        return any(hmac.compare_digest(given, self._witness_mac(fields, m)) for m in macs)


_MAC_KEYS: dict[tuple[bytes, str], bytes] = {}


def _mac_key_cached(private: Ed25519PrivateKey, table: str) -> bytes:
    raw = private.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    found = _MAC_KEYS.get((raw, table))
    if found is None:
        found = _MAC_KEYS[(raw, table)] = derive_mac_key(private, table)
    return found


def fingerprint(public_hex: str) -> str:
    """What a person compares (the first 16 hex digits of the SHA-256 of the public key)."""
    return hashlib.sha256(bytes.fromhex(public_hex)).hexdigest()[:16]


# A process's witness updates one at a time (threads of one station), each its own temporary file.
_WITNESS_LOCK = threading.Lock()

# path -> (mtime_ns, key): every append asks for the key, so the file is read again only when it changed
_CACHE: dict[Path, tuple[tuple[int, int], TableKey]] = {}


@functools.lru_cache(maxsize=1024)
def witness_path(path: Path) -> Path:
    return path.with_suffix(".head")


def load(where: str, table: str, *, path: Path | None = None) -> TableKey | None:
    """The key file of this store and table, None if there is none; DrrError if unsafe or unreadable.
    `path`: a key file under another name (a floor writer's, engine.store.floor_sign)."""
    path = path if path is not None else key_path(where, table)
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
        pending = data.get("pending_key")
        key = TableKey(
            path=path,
            table=str(data["table"]),
            store=str(data["store"]),
            private=private,
            public=_public_hex(private),
            created=str(data.get("created", "")),
            retired=tuple((str(r["public_key"]), str(r["mac_key"])) for r in data.get("retired", [])),
            pending=Ed25519PrivateKey.from_private_bytes(bytes.fromhex(pending)) if pending else None,
            version=int(data.get("version", 1)),
        )
        witness = json.loads(wpath.read_text("utf-8")) if w_mtime else None
        key = _with_witness(key, witness)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DrrError(f"the table key {path} is not a readable key file: {error}") from error
    if key.public != data.get("public_key"):
        raise DrrError(f"the table key {path} is damaged: its public key does not match its private key")
    _CACHE[path] = (stamp, key)
    return key


def _with_witness(key: TableKey, witness: Any) -> TableKey:
    """The key with its witness's fields: none if there is no witness, or its MAC fails (a witness
    edited, or copied from another table, is "forged": verification and the start refuse it)."""
    if witness is None:
        return key
    if not isinstance(witness, dict):
        return replace(key, witness_state="forged")
    if "mac" in witness:
        if not key.witness_holds(witness):
            return replace(key, witness_state="forged")
        state = "ok"
    elif key.version < WITNESS_MAC_VERSION:
        state = "legacy"
    else:
        return replace(key, witness_state="forged")  # a MAC'd witness with its MAC stripped
    hw = witness.get("high_water")
    key = replace(
        key,
        witness_state=state,
        journaled=bool(witness.get("journaled", False)),
        high_water=(int(hw[0]), str(hw[1])) if hw else None,
        checkpoint=int(witness["checkpoint"]) if witness.get("checkpoint") is not None else None,
        mac_from=int(witness["mac_from"]) if witness.get("mac_from") is not None else None,
        rounds=int(witness.get("rounds") or 0),
    )
    return replace(key, verified=key.read_mark(witness.get("verified")))


def adopt_witness(key: TableKey, witness: Any, written_for: str) -> TableKey:
    """A witness written for the same key under another store name (`written_for`: a backup restored
    to another path), its MAC checked there, rewritten for `key` (its verified mark dropped: the
    first start verifies it all); DrrError if its MAC fails."""
    found = _with_witness(replace(key, store=written_for), witness)
    if found.witness_state == "forged":
        raise DrrError(f"the witness restored for {key.path} fails its MAC (edited, or not this key's)")
    return update(replace(found, store=key.store, verified=None))


def _raw_hex(private: Ed25519PrivateKey) -> str:
    raw = private.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return raw.hex()


def _public_hex(private: Ed25519PrivateKey) -> str:
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
    return load(key.store, key.table, path=key.path) or key


def create(where: str, table: str, *, path: Path | None = None) -> TableKey:
    """A new key for this store and table (refused if one exists: a key is rotated, never replaced)."""
    private = Ed25519PrivateKey.generate()
    key = TableKey(
        path=path if path is not None else key_path(where, table),
        table=table,
        store=where,
        private=private,
        public=_public_hex(private),
        created=now_text(),
    )
    # The witness is written with the key: a witness missing later, beside a journal with entries,
    # was deleted (engine.store.evidence refuses the start).
    return update(_write(key, new=True))


def copy_to(key: TableKey, where: str, *, path: Path | None = None) -> TableKey:
    """The same key and witness for a copy of its store at `where` (a benchmark's or a test's copy).
    `path`: the copy's key file under another name (a floor writer's, engine.store.floor_sign)."""
    target = path if path is not None else key_path(where, key.table)
    copied = _write(replace(key, path=target, store=where), new=True)
    return update(
        copied,
        journaled=key.journaled,
        high_water=key.high_water,
        checkpoint=key.checkpoint,
        rounds=key.rounds,
    )


def ensure(where: str, table: str, *, path: Path | None = None) -> tuple[TableKey, bool]:
    """The key of this store and table, created if there is none; (key, created now). Two threads
    (or processes) creating it at once: the one that lost the race reads the winner's file."""
    key = load(where, table, path=path)
    if key is not None:
        return key, False
    try:
        return create(where, table, path=path), True
    except DrrError:
        again = load(where, table, path=path)
        if again is None:
            raise
        return again, False


def update(key: TableKey, **changes: Any) -> TableKey:
    """The witness file with `journaled` / `high_water` / `checkpoint` changed (atomic replace; not
    fsynced: it runs after every append, and a witness a power cut leaves one step behind is only
    weaker, never wrong)."""
    new = replace(key, **changes)
    wpath = witness_path(key.path)
    # One temporary file per process and thread: a station's reader thread (alerts) and its GUI
    # thread may both move a witness, and a shared name would let one truncate the other's file.
    tmp = wpath.with_suffix(f".tmp{os.getpid()}-{threading.get_ident()}")
    with _WITNESS_LOCK:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(json.dumps(new.witness_json(), sort_keys=True) + "\n")
            os.replace(tmp, wpath)
        except OSError as error:
            raise DrrError(f"cannot write the table key's witness {wpath}: {error.strerror}") from error
        if key.version < WITNESS_MAC_VERSION:
            # once its witness is MAC'd, a version-1 key file says so: a MAC stripped later is refused
            _write(replace(key, version=WITNESS_MAC_VERSION, pending=key.pending), new=False)
        _CACHE.pop(key.path, None)
        return load(key.store, key.table, path=key.path) or new


def begin_rotation(key: TableKey) -> TableKey:
    """Write ahead: the key file keeps this key and, beside it, a new one (`pending_key`), before the
    `table.key_rotated` entry is appended; the key file as written (engine.store.key_rotation)."""
    if key.pending is not None:
        raise DrrError(f"the table key {key.path} has a rotation under way: start the table first")
    return _write(replace(key, pending=Ed25519PrivateKey.generate()), new=False)


def pending_key(key: TableKey) -> TableKey:
    """The key as the rotation under way leaves it: the new private key, the old one's MAC key kept
    (not its signing key) to check the entries it MAC'd."""
    if key.pending is None:
        raise DrrError(f"the table key {key.path} has no rotation under way")
    retired = (*key.retired, (key.public, key.mac_key.hex()))
    return replace(
        key,
        private=key.pending,
        public=_public_hex(key.pending),
        created=now_text(),
        retired=retired,
        pending=None,
        version=WITNESS_MAC_VERSION,
    )


def finish_rotation(key: TableKey) -> TableKey:
    """The rotation's entry committed: the new key takes over the file, and the witness is MAC'd by it."""
    new = _write(pending_key(key), new=False)
    return update(new)


def abandon_rotation(key: TableKey) -> TableKey:
    """The rotation's entry never committed: the new key is dropped, the old one stays."""
    return _write(replace(key, pending=None), new=False)


# A rename costs a millisecond or two on some file systems: the witness follows the head at most every
# WITNESS_EVERY seconds (and at every checkpoint), so a table appending hundreds of entries a second
# keeps its pace; a crash can leave at most that much of the tail unwitnessed (docs/journal-evidence.md).
WITNESS_EVERY = 0.25
_LAST_NOTE: dict[Path, float] = {}


def note_high_water(
    where: str,
    table: str,
    seq: int,
    hash_: str,
    *,
    checkpoint: bool = False,
    checkpoint_seq: int | None = None,
    path: Path | None = None,
    round_no: int = 0,
) -> None:
    """Remember a signed head (or checkpoint: at the head, or at `checkpoint_seq` when a batch of
    entries crossed one) in the witness (best effort: a read-only key dir leaves it). `path`: a key
    file under another name (a floor writer's). `round_no`: a round the batch opened (noted at once,
    not throttled: a quarantine or restore continues the numbering after it, engine.store.evidence)."""
    import time

    if checkpoint_seq is not None or round_no:
        checkpoint = checkpoint or checkpoint_seq is not None
        _LAST_NOTE.pop(path if path is not None else key_path(where, table), None)
    now = time.monotonic()
    path = path if path is not None else key_path(where, table)
    if not checkpoint and now - _LAST_NOTE.get(path, -WITNESS_EVERY) < WITNESS_EVERY:
        return  # (before the key file is even looked at: this runs after every append)
    with contextlib.suppress(DrrError, OSError):
        key = load(where, table, path=path)
        if key is None or not key.journaled or key.witness_state == "forged":
            # the first signed start marks the chain journaled (engine.store.evidence.started); a
            # forged witness is kept as it is, for the start's refusal
            return
        cp_seq = checkpoint_seq if checkpoint_seq is not None else seq
        _LAST_NOTE[key.path] = now
        changes: dict[str, Any] = {}
        if key.high_water is None or key.high_water[0] < seq:
            changes["high_water"] = (seq, hash_)
        if checkpoint and (key.checkpoint is None or key.checkpoint < cp_seq):
            changes["checkpoint"] = cp_seq
        if round_no > key.rounds:
            changes["rounds"] = round_no
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


def witnessed_entries(where: str) -> list[tuple[str, int]]:
    """(table, entries) for each table of this store whose witness says its chain had entries (the
    last signed head it knows): a store found empty where these are is a loss, not a new store."""
    known = []
    for table in tables_with_keys(where):
        with contextlib.suppress(DrrError):
            key = load(where, table)
            if key is not None and key.journaled:
                known.append((table, key.high_water[0] if key.high_water else 1))
    return known
