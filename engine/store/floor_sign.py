"""The floor chain of a PostgreSQL floor database, signed entry by entry by the hosts that write it.

Every station's host writes that chain (sign-ins, users, alerts, floor actions, forward marks), so no
one key can sign its head as a table's key signs its chain. Instead (docs/journal-evidence.md):

- the floor's **root key** (engine.store.keys, `table-floor@<store id>.key` in the admin's key
  directory, the same file as a SQLite store's floor key) is named by the chain's `chain.keyed`
  entry; `drr db upgrade --db URL` makes it, or else the first host that writes a floor chain
  without one (so: run the upgrade on the admin's PC first);
- each writing host has its own **writer key** (`floor-writer-<host>@<store id>.key` beside it,
  0600), admitted by a `chain.writer_enrolled` {key, host, by} entry that the root key signs: made
  automatically where the root key is in this host's key directory, else by the admin with
  `drr db enroll`; a host whose key is not enrolled refuses to write, naming that command;
- every entry from `chain.keyed` on carries its writer's public key and Ed25519 signature over
  (floor, seq, hash) (`journal.signer`, `journal.sig`); `chain.keyed` and the enrolments are signed
  by the root key, every other entry by an enrolled writer key. The hash covers every predecessor,
  so a signature over entry N vouches for entries 1..N (those before `chain.keyed` included).

A table's PC believes the floor chain only under the root key IT provisioned there (`pin_root`,
`drr db root-key --pin`; `unprovisioned` says what is missing): never the first one it reads
(`TrustedFloor`).

`WriterCheck` is `drr audit verify`'s check of each entry (engine.store.chain_scan calls it). Each
key's witness (keys.py's `.head` file beside it) remembers the last entry it signed: a tail cut
behind it is caught where that key file is.
"""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine import journal_types  # the module, not its names: see `prepare`
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.floor_events import ChainKeyed, WriterEnrolled
from engine.store import keys, schema, users_journal
from engine.store.canonical import GENESIS_HASH, now_text
from engine.store.database import Database
from engine.store.keys import TableKey
from engine.store.records import Entry, NewEvent
from engine.store.users_journal import FLOOR
from engine.table_events import KeyRotated

KEYED = EntryType.CHAIN_KEYED.value
ENROLLED = EntryType.CHAIN_WRITER_ENROLLED.value
ROOT_SIGNED = frozenset({KEYED, ENROLLED})  # the entries only the floor's root key signs


def applies(store: Database, table: str) -> bool:
    """This chain is signed entry by entry: the floor chain of a PostgreSQL floor database."""
    return table == FLOOR and not store.is_sqlite


def this_host() -> str:
    """The name this host's writer key is kept and enrolled under."""
    return socket.gethostname() or "localhost"


def _file_name(host: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", host)[:64] or "host"


def writer_path(where: str, host: str | None = None) -> Path:
    return keys.key_dir() / f"floor-writer-{_file_name(host or this_host())}@{keys.store_id(where)}.key"


def writer_key(where: str) -> TableKey:
    """This host's writer key for the floor database `where`, made now if it has none."""
    return keys.ensure(where, FLOOR, path=writer_path(where))[0]


def writer_keys_here(where: str) -> list[TableKey]:
    """Every writer key file of this store in this key directory (their witnesses, for verify)."""
    found: list[TableKey] = []
    for path in sorted(keys.key_dir().glob(f"floor-writer-*@{keys.store_id(where)}.key")):
        key = keys.load(where, FLOOR, path=path)
        if key is not None:
            found.append(key)
    return found


def root_key(where: str) -> TableKey | None:
    """The floor's root key, if it is in this host's key directory (the admin's PC)."""
    return keys.load(where, FLOOR)


def keying(conn: Connection) -> tuple[str | None, set[str]]:
    """(the root key the floor chain's first `chain.keyed` names or None, the writer keys its
    enrolments name), as the store says (verify checks their signatures), through ix_journal_keying.
    Not cached: read in the writer's own transaction, after the head lock, it is never stale."""
    j = schema.journal
    rows = conn.execute(
        sa.select(j.c.type, j.c.payload).where(j.c.table_id == FLOOR, schema.KEYING_FILTER).order_by(j.c.seq)
    ).all()
    root: str | None = None
    writers: set[str] = set()
    for type_, text in rows:
        key = str(json.loads(text).get("key"))
        if type_ == KEYED and root is None:
            root = key
        elif type_ == ENROLLED:
            writers.add(key)
    return root, writers


def chain_root(conn: Connection) -> str | None:
    return keying(conn)[0]


def refusal(where: str, writer: TableKey) -> DrrError:
    host = this_host()
    return DrrError(
        f"this host's floor writer key {keys.fingerprint(writer.public)} ({host}) is not enrolled on the "
        f"floor database {where}: nothing written; an admin enrolls it on the PC that holds the floor's "
        f"root key: drr db enroll --db URL --host {host} --key {writer.public}"
    )


@dataclass
class FloorSigner:
    """The keys that sign one transaction's floor entries: the root's kind with the root key, every
    other with this host's writer key (`Journal.append_in`)."""

    root: TableKey | None
    writer: TableKey | None
    events: list[NewEvent] = field(default_factory=list)
    chain: str = FLOOR

    def sign(self, type_: str, seq: int, hash_: str) -> tuple[str, str]:
        key = self.root if type_ in ROOT_SIGNED else self.writer
        if key is None:  # a root-signed entry where the root key is not: only `prepare` lets one through
            raise DrrError(f"a {type_} entry is signed by the floor's root key, which is not on this host")
        return key.public, key.sign(seq, hash_)


def prepare(conn: Connection, store: Database, events: Sequence[NewEvent]) -> FloorSigner:
    """With the floor chain's head locked (by the caller, `Journal.append_in`): the batch's events with
    what must come before them (the `chain.keyed` of an unkeyed chain, this host's enrolment where the
    root key is here), and the keys that sign them. An un-enrolled host without the root key is
    refused (`refusal`).

    `journal_types.write` is looked up here, not imported by name: engine.journal_types imports
    engine.store.records, whose package (engine/store/__init__.py) loads the journal and this module
    while engine.journal_types is still half-imported."""
    where = store.where
    mine = [e for e in events if e.table == FLOOR]
    types = {e.type for e in mine}
    root = root_key(where)
    named, enrolled = keying(conn)
    first: list[NewEvent] = []
    if named is None and KEYED not in types:  # first need: this host keys the chain
        if root is None and root_pin_path(where).exists():
            # a table's PC provisioned with the floor's root key finds the chain unkeyed: it was
            # emptied, and keying it here would make this PC a root nobody provisioned
            raise DrrError(
                f"the floor chain of {where} is not keyed, but this PC has the floor's root key "
                f"{_fp(pinned_root(where) or '')} pinned ({root_pin_path(where)}): the floor chain was "
                "emptied or replaced; nothing written (check the floor database with drr audit verify)"
            )
        root = keys.ensure(where, FLOOR)[0]
        first.append(journal_types.write(ChainKeyed(root.public), table=FLOOR))
        named = root.public
    elif named is None:
        named = next(_key_of(journal_types.parse(e.type, e.payload)) for e in mine if e.type == KEYED)
    if root is not None and root.public != named:
        root = None  # a root key file of another keying: it signs nothing here
    if types & ROOT_SIGNED and root is None:
        raise DrrError(
            f"the floor's root key {keys.fingerprint(named)} is not in this key directory: enrol writers "
            f"on the admin's PC (the one drr db upgrade --db URL made it on)"
        )
    writer: TableKey | None = None
    if types - ROOT_SIGNED:
        writer = writer_key(where)
        enrolled |= {_key_of(journal_types.parse(e.type, e.payload)) for e in mine if e.type == ENROLLED}
        if writer.public not in enrolled:
            if root is not None:
                first.append(journal_types.write(WriterEnrolled(writer.public, this_host()), table=FLOOR))
            else:
                raise refusal(where, writer)
    return FloorSigner(root, writer, [*first, *events])


def witness(store: Database, written: Sequence[Entry]) -> None:
    """After the commit: each of this host's keys that signed some of `written` remembers the last
    entry it signed (keys.py's witness), so a floor chain cut behind it fails `drr audit verify` here."""
    last: dict[str, Entry] = {}
    for e in written:
        if e.table == FLOOR and e.signer:
            last[e.signer] = e
    if not last:
        return
    for key in (root_key(store.where), keys.load(store.where, FLOOR, path=writer_path(store.where))):
        if key is None or key.public not in last:
            continue
        e = last[key.public]
        if not key.journaled:
            keys.update(key, journaled=True, high_water=(e.seq, e.hash))
        else:
            keys.note_high_water(store.where, FLOOR, e.seq, e.hash, path=key.path)


def _key_of(payload: object) -> str:
    """The key a `chain.keyed` or an enrolment names; "None" for one whose payload cannot be read (no
    key anybody holds: nothing is believed under it)."""
    return payload.key if isinstance(payload, ChainKeyed | WriterEnrolled) else "None"


def _fp(public: str) -> str:
    try:
        return keys.fingerprint(public)
    except ValueError:
        return repr(public[:16])


class WriterCheck:
    """`drr audit verify`'s check of each entry of a floor chain signed entry by entry (called by
    engine.store.chain_scan with the key in force, i.e. the root key its `chain.keyed` named)."""

    def __init__(self) -> None:
        self.writers: dict[str, str] = {}  # enrolled writer key -> host

    def __call__(
        self,
        seq: int,
        type_: str,
        payload: str,
        hash_: str,
        signer: str | None,
        sig: str | None,
        root: str | None,
    ) -> str | None:
        if root is None:
            return None  # before chain.keyed: the root's signature over chain.keyed covers these
        if not signer or not sig:
            return (
                "carries no writer's signature, where every entry of the floor chain is signed from its "
                "chain.keyed on (inserted or rewritten)"
            )
        if type_ in ROOT_SIGNED:
            if signer != root:
                return (
                    f"a {type_} not signed by the floor's root key {_fp(root)} but by {_fp(signer)} (forged)"
                )
        elif signer not in self.writers:
            return (
                f"signed by key {_fp(signer)}, which no enrolment by the floor's root key admits "
                "(an un-enrolled writer: inserted or rewritten)"
            )
        if not keys.check_signature(signer, FLOOR, seq, hash_, sig):
            return (
                f"its signature does not match its writer's key {_fp(signer)} (rewritten, inserted, "
                "renumbered or reordered)"
            )
        if type_ == ENROLLED:
            try:
                body = json.loads(payload)
                self.writers[str(body["key"])] = str(body.get("host"))
            except (ValueError, KeyError, TypeError):
                return "an enrolment whose payload names no key (edited)"
        return None


def root_pin_path(where: str) -> Path:
    """Where a table's PC pins the root key of the floor database at `where` (its key directory)."""
    return keys.key_dir() / f"floor-root@{keys.store_id(where)}.pin"


def pinned_root(where: str) -> str | None:
    """The floor's root key this host pinned (or holds: the admin's PC), None if neither."""
    path = root_pin_path(where)
    try:
        data = json.loads(path.read_text("utf-8"))
        return str(data["root"])
    except FileNotFoundError:
        held = root_key(where)
        return held.public if held is not None else None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DrrError(f"the floor's root key pin {path} is not readable ({error}): restore it") from error


def pin_root(where: str, public: str) -> bool:
    """Install the floor's root key on this host (owner-only, never overwritten): IT's provisioning
    step, `drr db root-key --pin`. False if this very key was pinned already; DrrError if another is."""
    try:
        if len(bytes.fromhex(public)) != 32:
            raise ValueError
    except ValueError:
        raise DrrError(
            f"{public!r} is not a root key (64 hex digits: drr db root-key on the admin's PC)"
        ) from None
    path = root_pin_path(where)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text = json.dumps({"root": public, "store": where, "pinned": now_text()}, sort_keys=True) + "\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        held = pinned_root(where)
        if held == public:
            return False
        raise DrrError(
            f"the floor's root key {_fp(held or '')} is already pinned at {path}, not {_fp(public)}: "
            "nothing changed (remove that file first only if the floor's root key really changed)"
        ) from None
    except OSError as error:
        raise DrrError(f"cannot pin the floor's root key at {path}: {error.strerror}") from error
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    return True


def unprovisioned(where: str) -> str | None:
    """Why this host may believe no floor action of the floor database `where` (one line), None when
    its root key is provisioned here: pinned by IT (`root_pin_path`) or held (the admin's PC). Never
    taken from the floor chain itself: the first root key a table saw would win whoever wrote it."""
    if pinned_root(where) is not None:
        return None
    return (
        f"floor actions are not taken: the floor's root key is not provisioned on this PC (no "
        f"{root_pin_path(where)}); IT installs it: drr db root-key --db {where} --pin HEX, the key "
        f"the admin's drr db root-key --db {where} prints"
    )


class TrustedFloor:
    """The floor chain as a table's forwarder may believe it, read incrementally (engine.floor.inbox).

    Each entry is trusted only when it is in its place in the chain and its writer is admitted by the
    chain itself, not by whatever rows the floor database holds now: its hash recomputes from its
    fields, it follows the entry before it (seq one on, `prev_hash` that entry's hash) and, on a
    PostgreSQL floor database, its signature is by the root key the first `chain.keyed` names (for
    `chain.keyed` and enrolments) or by a writer whose enrolment the root key signed (`WriterCheck`).
    An enrolment signed by any other key admits nobody. Users and roles are folded from the trusted
    user entries (engine.store.users_journal), never read from the `users` table, a projection anyone
    with write access to the database can edit. An untrusted entry changes nothing, and says why."""

    def __init__(self, store: Database) -> None:
        self.store = store
        self.signed = applies(store, FLOOR)
        self.check = WriterCheck()
        self.root: str | None = None
        # The root key IT provisioned on this host (or this host holds): a floor chain keyed, or rewritten
        # from entry 1, under another root key is not believed. Without one the inbox takes nothing
        # (`unprovisioned`): no trust on first use.
        self.pinned = pinned_root(store.where) if self.signed else None
        self.rekeyed: str | None = None  # why the chain is not believed: keyed under another root
        # a SQLite floor database: the key its chain.keyed names (provisioned like the root) and how far
        # the chain is covered by a head that key signed
        self.head_key: str | None = None
        self.signed_to = 0
        self._head_pin = None if self.signed else pinned_root(store.where)
        self.users: dict[str, users_journal.UserRow] = {}
        self._read_to = 0
        self._last: tuple[int, str] = (0, GENESIS_HASH)  # (seq, hash) of the last entry read

    def missing(self) -> str | None:
        """Why no floor action may be believed yet (`unprovisioned`), None once the root key is
        provisioned here; the pin is looked for again each time until it is (IT may install it while
        the forwarder runs)."""
        if (self.pinned if self.signed else self._head_pin) is not None:
            return None
        found = pinned_root(self.store.where)
        if self.signed:
            self.pinned = found
        else:
            self._head_pin = found
        return unprovisioned(self.store.where) if found is None else None

    def keyed(self) -> bool:
        """The floor chain read so far is keyed by the provisioned key (PostgreSQL: its root key;
        SQLite: the floor store's own key, whose head signature covers the entries)."""
        return (self.root if self.signed else self.head_key) is not None

    def advance(self, types: frozenset[str]) -> list[tuple[Entry, str | None]]:
        """Read on along the floor chain; the entries of `types` read, each with why it is not to be
        believed (None: trusted)."""
        from engine.store.entry_check import entry_problem
        from engine.store.records import row_to_entry

        j, h = schema.journal, schema.chain_heads
        with self.store.read() as conn:
            rows = conn.execute(
                sa.select(j).where(j.c.table_id == FLOOR, j.c.seq > self._read_to).order_by(j.c.seq)
            ).all()
            head = conn.execute(sa.select(h.c.seq, h.c.hash, h.c.sig).where(h.c.table_id == FLOOR)).first()
        found: list[tuple[Entry, str | None]] = []
        hashes: dict[int, str] = {}
        for row in rows:
            entry = row_to_entry(row)
            why = self._problem(entry, entry_problem)
            self._read_to = entry.seq
            self._last = (entry.seq, entry.hash)
            hashes[entry.seq] = entry.hash
            if entry.type in types:
                found.append((entry, why))
        if self.signed or self.head_key is None:
            return found
        # A SQLite floor database: its chain is signed as a whole by its head (the floor store's own
        # key, named by its chain.keyed): an entry is believed only up to a head whose signature holds
        # (written in the entry's own transaction), never beyond it.
        if (
            head is not None
            and int(head.seq) > self.signed_to
            and hashes.get(int(head.seq)) == head.hash
            and keys.check_signature(self.head_key, FLOOR, int(head.seq), str(head.hash), head.sig)
        ):
            self.signed_to = int(head.seq)
        return [
            (
                e,
                why
                if why is not None or e.seq <= self.signed_to
                else (
                    f"floor entry {e.seq} is beyond the floor chain's signed head (entry {self.signed_to}, "
                    f"signed by the floor's key {_fp(self.head_key)}): inserted or its head rewritten"
                ),
            )
            for e, why in found
        ]

    def _problem(self, entry: Entry, entry_problem: Callable[..., str | None]) -> str | None:
        seq, prev = self._last
        if self.rekeyed is not None:
            return f"floor entry {entry.seq} is not believed: {self.rekeyed}"
        if entry.seq != seq + 1:
            return f"is entry {entry.seq} where entry {seq + 1} follows {seq} (inserted out of the chain)"
        problem = entry_problem(entry, prev)
        if problem is None and not self.signed and entry.type == KEYED and self.head_key is None:
            named = _key_of(journal_types.typed(entry))
            if self._head_pin is not None and named != self._head_pin:
                self.rekeyed = (
                    f"floor entry {entry.seq} keys the floor chain with key {_fp(named)}, but this host "
                    f"pinned the floor's key {_fp(self._head_pin)} ({root_pin_path(self.store.where)}): "
                    "the floor chain was rewritten under another key (forged)"
                )
                return self.rekeyed
            self.head_key = named  # the pin (provisioned, `unprovisioned`) or, without one, trusted by nobody
        if problem is None and not self.signed and entry.type == EntryType.TABLE_KEY_ROTATED.value:
            turn = journal_types.typed(entry)
            if isinstance(turn, KeyRotated) and turn.old_key == self.head_key:
                message = keys.rotation_message(FLOOR, turn.old_key, turn.new_key)
                if keys.check_raw(turn.old_key, message, turn.signature or None):
                    self.head_key = turn.new_key  # handed over by the key in force
        if problem is None and self.signed:
            if entry.type == KEYED and self.root is None:
                named = _key_of(journal_types.typed(entry))
                self.root = self.pinned or named
                if named != self.root:
                    pin = root_pin_path(self.store.where)
                    self.rekeyed = (
                        f"floor entry {entry.seq} keys the floor chain with root key {_fp(named)}, but "
                        f"this host pinned the floor's root key {_fp(self.root)} ({pin}): the floor "
                        "chain was rewritten under another root key (forged)"
                    )
                    return self.rekeyed
            problem = self.check(
                entry.seq, entry.type, entry.payload_text, entry.hash, entry.signer, entry.sig, self.root
            )
        if problem is not None:
            return f"floor entry {entry.seq} {problem}"
        if users_journal.is_user_entry(entry):
            try:
                name = users_journal.user_named(entry)
                user = users_journal.step(self.users.get(name), entry)
            except DrrError as exc:
                return exc.message
            if user is not None:
                self.users[name] = user
        return None
