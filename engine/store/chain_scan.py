"""The fast pass over one table's chain: rows in large batches, each hash recomputed from the stored text.

`verify` (engine.store.verify) runs this over a chain, or over the part after the last position a
verification found good (`Scan.resume`). Speed comes from what it does not do per entry: no
SQLAlchemy row objects (the raw DBAPI cursor, 20,000 rows a fetch), no JSON parse — the entry hash
is SHA-256 over the canonical JSON of the entry's fields, and as the stored payload is canonical JSON
text, that canonical JSON is the stored text spliced between the other fields. An entry that does
not hash that way is checked by the reference `entry_problem` (a payload that is not canonical, a
field that needs JSON escapes), so every verdict is the reference's.

Each entry carrying a MAC (engine.store.keys.entry_mac) is checked with the MAC key of the key in
force when the key file is at hand: a forger who recomputed every hash is named at the exact first
entry they changed. Once a MAC'd entry has been seen (or from the witness's `mac_from`), every later
entry must carry a valid one. The entries a MAC does not cover (before MACs, or without the key file)
rest on the hash chain and the signed checkpoints and head, as `verify` checks after this pass.

A chain every host writes (the floor chain of a PostgreSQL floor database) is signed entry by entry
instead: given `signed_by` (engine.store.floor_sign.WriterCheck), the pass also reads each entry's
writer key and signature and has it checked against the keys the chain's root key enrolled.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.entry_types import EntryType
from engine.store.canonical import GENESIS_HASH, LEGACY, RFC8785, switches_to_jcs
from engine.store.records import Entry

CHECKPOINT_EVERY = 1000  # engine.store.journal.CHECKPOINT_EVERY (the journal sits above this module)
BATCH = 20_000
KEY_TYPES = frozenset(
    {
        EntryType.TABLE_STARTED.value,
        EntryType.TABLE_QUARANTINED.value,
        EntryType.TABLE_KEY_ROTATED.value,
        EntryType.CHAIN_KEYED.value,  # the floor chain's key (engine.store.users)
    }
)  # the entries that can put a key in force: verify._KEY_TYPES (verify reads them from here)


@dataclass
class Scan:
    """What the pass knows at a point of the chain (and carries on from there)."""

    table: str
    expected: int = 1  # the next seq
    prev: str = GENESIS_HASH  # the hash the next entry must name
    key: str | None = None  # the public key in force
    key_since: int = 0
    macs: bool = False  # a MAC'd entry was seen: every later one must carry its MAC
    mac_from: int | None = None  # the witness says every entry from here on carries one
    signed_ok: int = 0  # the last checkpoint whose signature holds
    bad_sig: int | None = None  # the first checkpoint whose signature does not
    events: int = 0
    checkpoints_seen: int = 0
    hashes_at: dict[int, str] = field(default_factory=dict)
    round_ids: set[str] = field(default_factory=set)
    # The byte rule of the entries from `expected` on (engine.store.canonical): legacy from a chain's
    # first entry to its switch; None for a scan that starts inside a chain (from a checkpoint or a
    # verified mark, only on a MAC'd chain, whose entries the fast pass takes by hash and MAC), which
    # accepts either rule until it sees a switch.
    canonical: str | None = LEGACY


@dataclass(frozen=True)
class Problem:
    seq: int
    what: str


KeyCheck = Callable[[Entry, str | None], tuple[str | None, str | None]]
MacKey = Callable[[str], bytes | None]  # the MAC key of a public key, None if not at hand
SigCheck = Callable[[str, int, str, str | None], bool]  # (public, seq, hash, sig) -> holds
# (seq, type, payload text, hash, writer key, writer signature, key in force) -> what is wrong, or None
EntrySigCheck = Callable[[int, str, str, str, str | None, str | None, str | None], str | None]


class HmacSha256:
    """HMAC-SHA256 with the key's pads hashed once (RFC 2104): the same MAC as `hmac.digest`, in
    half its time, as only the two short hashes per entry are left."""

    def __init__(self, key: bytes) -> None:
        block = key.ljust(64, b"\0") if len(key) <= 64 else hashlib.sha256(key).digest().ljust(64, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in block))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in block))

    def hex(self, message: bytes) -> str:
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest()


def fast_sql(sqlite: bool, has_mac: bool, batch: int, *, signed: bool = False) -> str:
    """The batch query (keyset by seq, `batch` rows): the stored fields, nothing computed (splicing
    the text in the database was measured slower than in Python); `signed`: each entry's writer key
    and signature too."""
    mark = "?" if sqlite else "%s"
    mac = "mac" if has_mac else "NULL"
    if signed:
        mac += ", signer, sig"
    return (
        f"SELECT seq, time, user_name, round_id, type, payload, prev_hash, hash, {mac} FROM journal "
        f"WHERE table_id = {mark} AND seq >= {mark} AND seq <= {mark} ORDER BY seq LIMIT {int(batch)}"
    )


def _switch(payload: str) -> bool:
    """Whether a `table.started` entry's stored text switches its chain to RFC 8785."""
    if '"canonical"' not in payload:
        return False
    try:
        body = json.loads(payload)
    except ValueError:
        return False
    return isinstance(body, dict) and switches_to_jcs(EntryType.TABLE_STARTED, body)


def _json_str(value: str | None) -> str:
    if value is None:
        return "null"
    if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'  # what json.dumps gives for it, at a tenth of its cost (once per round id)
    return json.dumps(value, ensure_ascii=False)


def scan(
    dbapi: Any,
    sqlite: bool,
    state: Scan,
    *,
    checkpoints: dict[int, tuple[str, str | None]],
    pinned: str | None,
    want: set[int],
    key_change: KeyCheck,
    mac_key_of: MacKey,
    signature_holds: SigCheck,
    entry_problem: Callable[[Entry, str | None, str | None], str | None],
    has_mac: bool = True,
    upto: int | None = None,
    batch: int = BATCH,
    signed_by: EntrySigCheck | None = None,
) -> Problem | None:
    """Follow the chain from `state.expected` to its end or `upto` (updating `state`); the first
    problem or None.

    `dbapi` is a DBAPI connection (inside the caller's read transaction; `sqlite` says its dialect).
    `checkpoints` (seq -> (hash, sig)) loses each checkpoint reached. `has_mac`: the schema has
    `journal.mac`. `signed_by`: every entry's writer signature is checked by it (a chain signed entry
    by entry, engine.store.floor_sign)."""
    table = state.table
    signed = signed_by is not None
    sql = fast_sql(sqlite, has_mac, batch, signed=signed)
    last_seq = upto if upto is not None else 1 << 62
    sha256 = hashlib.sha256
    expected, prev = state.expected, state.prev
    key = state.key
    mac_key = mac_key_of(key) if key is not None else None
    macer = HmacSha256(mac_key) if mac_key is not None else None
    inner = None if macer is None else (macer._inner, macer._outer)
    macs = state.macs
    mac_from = state.mac_from if state.mac_from is not None else 1 << 62
    round_ids = state.round_ids
    last_round: str | None = None
    table_json = _json_str(table)
    encoded: dict[str | None, str] = {None: "null"}
    cursor = dbapi.cursor()

    def stop(at: int, what: str) -> Problem:
        state.expected, state.prev, state.key, state.macs = expected, prev, key, macs
        return Problem(at, what)

    try:
        while True:
            cursor.execute(sql, (table, expected, last_seq))
            rows = cursor.fetchall()
            for row in rows:
                seq, time_, user, rid, typ, payload, prev_h, h, mac = row[:9] if signed else row
                if seq != expected:
                    return stop(expected, f"missing (removed); the chain jumps to {seq}")
                if prev_h != prev:
                    return stop(seq, "does not follow the entry before it (reordered or replaced)")
                er = encoded.get(rid)
                if er is None:
                    if len(encoded) > 4096:
                        encoded = {None: "null"}
                    er = encoded[rid] = _json_str(rid)
                et = encoded.get(typ)
                if et is None:
                    et = encoded[typ] = _json_str(typ)
                eu = encoded.get(user)
                if eu is None:
                    eu = encoded[user] = _json_str(user)
                entry: Entry | None = None
                if (
                    key is None
                    or sha256(
                        f'{{"payload":{payload},"prev_hash":"{prev_h}","round_id":{er},"seq":{seq},'
                        f'"table":{table_json},"time":"{time_}","type":{et},"user":{eu}}}'.encode()
                    ).hexdigest()
                    != h
                ):
                    # The reference check: an unsigned stretch (only the hash chain holds it), or an
                    # entry that does not hash the fast way (a field that needs JSON escapes, or an
                    # edit). A signed entry that hashes the fast way but is not canonical JSON could
                    # only come from the key's holder, or fails its MAC or signature (then `verify`
                    # looks for it in the range the signature names).
                    entry = Entry(table, seq, time_, user, rid, typ, payload, prev_h, h, mac)
                    rule = RFC8785 if typ == EntryType.TABLE_STARTED and _switch(payload) else state.canonical
                    problem = entry_problem(entry, None, rule)
                    if problem is not None:
                        return stop(seq, problem)
                if typ == EntryType.TABLE_STARTED and state.canonical != RFC8785 and _switch(payload):
                    state.canonical = RFC8785  # this entry and every later one are RFC 8785 text
                if typ in KEY_TYPES:
                    entry = entry or Entry(table, seq, time_, user, rid, typ, payload, prev_h, h, mac)
                    found, key_problem = key_change(entry, key)
                    if key_problem is not None:
                        return stop(seq, key_problem)
                    if found is not None and found != key:
                        key, state.key_since = found, seq
                        mac_key = mac_key_of(key)
                        macer = HmacSha256(mac_key) if mac_key is not None else None
                        inner = None if macer is None else (macer._inner, macer._outer)
                if signed_by is not None:
                    sig_problem = signed_by(seq, typ, payload, h, row[9], row[10], key)
                    if sig_problem is not None:
                        return stop(seq, sig_problem)
                if mac is not None:
                    macs = True
                    if inner is not None:  # HmacSha256.hex, inlined: it runs for every entry
                        i = inner[0].copy()
                        i.update(h.encode())
                        o = inner[1].copy()
                        o.update(i.digest())
                        good = o.hexdigest() == mac
                    else:
                        good = True
                    if not good:
                        return stop(
                            seq,
                            "its MAC does not match the table's key (rewritten, inserted, renumbered or "
                            "reordered)",
                        )
                elif macer is not None and (macs or seq >= mac_from):
                    return stop(
                        seq,
                        "carries no MAC, where every entry is MAC'd by the table's key (inserted or "
                        "rewritten)",
                    )
                if seq in checkpoints:
                    cp_hash, cp_sig = checkpoints.pop(seq)
                    state.checkpoints_seen += 1
                    if cp_hash != h:
                        return stop(seq, "hash differs from the checkpoint taken at this entry (rewritten)")
                    if key is not None and state.bad_sig is None:
                        if signature_holds(key, seq, h, cp_sig):
                            state.signed_ok = seq
                        elif cp_sig is not None or pinned is not None:
                            state.bad_sig = seq
                elif seq % CHECKPOINT_EVERY == 0:
                    return stop(seq, "its interval checkpoint is missing (checkpoint rows removed)")
                if seq in want:
                    state.hashes_at[seq] = h
                if rid is not None and rid != last_round:
                    round_ids.add(rid)
                    last_round = rid
                prev = h
                expected += 1
            state.events += len(rows)
            if len(rows) < batch:
                break
    finally:
        cursor.close()
    state.key, state.macs = key, macs
    state.expected, state.prev = expected, prev
    return None
