"""Audit of the journal: recompute every hash, follow the chain, hold it against checkpoints and heads.

A chain is intact when its entries run seq 1..N without gaps, each entry's `prev_hash` is its
predecessor's hash, each hash recomputes from the entry's fields, every checkpoint (count + head
hash) names an entry that is still there with that hash, every interval checkpoint is there, and
the head row names the last entry.

A signed chain (engine.store.keys; docs/journal-evidence.md) must also hold against its key: the key
in force is the one its `table.started`/`table.quarantined` entries name (changed only by a
`table.key_rotated` signed by the old key); every checkpoint and the head carry that key's Ed25519
signature over (table, seq, hash). The key is pinned by the table's key file (or `public_key`): then
the chain's key must be it, the head must be signed, the key file's `journaled` and `high_water`
must be there (an empty, cut or rolled-back journal fails). Without a pin the signatures present are
checked against the chain's own key (a lab compares the fingerprint printed with the table's).
The first failure is reported with the table, seq and what is wrong (edited, removed, reordered,
truncated, not signed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.store import schema
from engine.store.canonical import GENESIS_HASH, canonical_json, entry_hash
from engine.store.db import Store
from engine.store.records import Entry, row_to_entry


@dataclass
class VerifyReport:
    ok: bool
    events: int = 0
    rounds: int = 0
    tables: dict[str, tuple[int, str]] = field(default_factory=dict)  # table -> (seq, head hash)
    problem: str | None = None
    bad_table: str | None = None
    bad_seq: int | None = None
    detail: str | None = None  # the problem without its "table T entry N:" prefix
    keys: dict[str, str] = field(default_factory=dict)  # table -> fingerprint of the key in force
    unpinned: list[str] = field(default_factory=list)  # signed tables verified without a pinned key

    @property
    def head(self) -> str:
        """The head hash (one table) or a digest of all heads (several tables)."""
        if len(self.tables) == 1:
            return next(iter(self.tables.values()))[1]
        import hashlib

        text = canonical_json({t: h for t, (_, h) in sorted(self.tables.items())})
        return hashlib.sha256(text.encode()).hexdigest() if self.tables else GENESIS_HASH

    def summary(self) -> str:
        if self.ok:
            signed = "".join(f", table {t} signed by key {fp}" for t, fp in sorted(self.keys.items()))
            note = (
                f" (key not pinned for {', '.join(self.unpinned)}: compare the fingerprint with the table's)"
                if self.unpinned
                else ""
            )
            return f"OK: {self.events} events, {self.rounds} rounds, head {self.head}{signed}{note}"
        return f"FAILED: {self.problem}"


def entry_problem(entry: Entry, prev_hash: str | None = None) -> str | None:
    """What is wrong with one entry read back (None when it is as written): its payload is canonical
    JSON, its hash recomputes, and (given `prev_hash`) it follows the entry before it. The same
    checks as `verify`, for a reader that folds only part of a chain (the table's restart)."""
    if prev_hash is not None and entry.prev_hash != prev_hash:
        return "does not follow the entry before it (reordered or replaced)"
    try:
        body = json.loads(entry.payload_text)
    except ValueError:
        return "payload is not JSON (edited)"
    if canonical_json(body) != entry.payload_text:
        return "payload is not in canonical form (edited)"
    digest = entry_hash(
        table=entry.table,
        seq=entry.seq,
        time=entry.time,
        user=entry.user,
        round_id=entry.round_id,
        type=entry.type,
        payload=body,
        prev_hash=entry.prev_hash,
    )
    return None if digest == entry.hash else "contents do not match its hash (edited)"


def file_damage(store: Store, *, limit: int = 3) -> str | None:
    """SQLite only: what `PRAGMA quick_check` finds wrong with the file's pages (None when sound).

    The chain can be intact while a page of a projection or an index is damaged (a bad sector, a
    copy cut short): the journal then still proves every fact, but the file needs restoring, and an
    audit must say so rather than report OK."""
    if not store.is_sqlite:
        return None
    try:
        with store.read() as conn:
            found = [str(r[0]) for r in conn.exec_driver_sql(f"PRAGMA quick_check({int(limit)})")]
    except sa.exc.DatabaseError as exc:
        return str(getattr(exc, "orig", exc))
    if found == ["ok"]:
        return None
    lines = [ln.strip() for row in found for ln in row.splitlines()]
    return "; ".join(ln for ln in lines if ln and not ln.startswith("***")) or "quick_check failed"


def _fail(report: VerifyReport, table: str, seq: int | None, problem: str) -> VerifyReport:
    report.ok = False
    report.bad_table, report.bad_seq, report.detail = table, seq, problem
    report.problem = (
        f"table {table} entry {seq}: {problem}" if seq is not None else f"table {table}: {problem}"
    )
    return report


def verify(
    store: Store, table: str | None = None, *, batch: int = 5000, public_key: str | None = None
) -> VerifyReport:
    """Check one table's chain (or every chain in the store); stops at the first bad entry.

    `public_key` (hex) pins the key of `table` as its key file would (a lab without the key file)."""
    from engine.store import keys

    j, heads, cps = schema.journal, schema.chain_heads, schema.checkpoints
    with store.read() as conn:
        known = set(conn.execute(sa.select(heads.c.table_id)).scalars())
        known |= set(conn.execute(sa.select(j.c.table_id).distinct()).scalars())
        known |= set(conn.execute(sa.select(cps.c.table_id).distinct()).scalars())
    known |= set(keys.tables_with_keys(store.where))  # a table whose key says it had a journal here
    if table is not None and table not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise DrrError(f"no journal for table {table} in {store.where} (tables: {listed})")
    tables = sorted(known) if table is None else [table]
    report = VerifyReport(ok=True)
    for name in tables:
        key_file = keys.load(store.where, name)
        pinned = public_key if (public_key is not None and table is not None) else None
        if pinned is None and key_file is not None:
            pinned = key_file.public
        with store.read() as conn:
            head_row = conn.execute(sa.select(heads).where(heads.c.table_id == name)).first()
            checkpoints = {
                int(r.seq): (r.hash, r.sig)
                for r in conn.execute(sa.select(cps).where(cps.c.table_id == name))
            }
            report.rounds += int(
                conn.execute(
                    sa.select(sa.func.count(sa.distinct(j.c.round_id))).where(
                        j.c.table_id == name, j.c.round_id.is_not(None)
                    )
                ).scalar_one()
            )
        all_checkpoints = dict(checkpoints)
        key: str | None = None  # the key in force
        key_since = 0
        signed_ok = 0  # the last checkpoint whose signature holds
        bad_sig: int | None = None  # the first checkpoint whose signature does not
        hashes_at: dict[int, str] = {}
        want = {key_file.high_water[0]} if key_file is not None and key_file.high_water else set()
        expected_seq, prev = 1, GENESIS_HASH
        while True:
            with store.read() as conn:
                rows = conn.execute(
                    sa.select(j)
                    .where(j.c.table_id == name, j.c.seq >= expected_seq)
                    .order_by(j.c.seq)
                    .limit(batch)
                ).all()
            for row in rows:
                seq = int(row.seq)
                if seq != expected_seq:
                    return _fail(report, name, expected_seq, f"missing (removed); the chain jumps to {seq}")
                entry = row_to_entry(row)
                problem = entry_problem(entry, prev)
                if problem is not None:
                    return _fail(report, name, seq, problem)
                found, key_problem = _key_change(entry, key)
                if key_problem is not None:
                    return _fail(report, name, seq, key_problem)
                if found is not None and found != key:
                    key, key_since = found, seq
                if seq in checkpoints:
                    cp_hash, cp_sig = checkpoints.pop(seq)
                    if cp_hash != row.hash:
                        return _fail(
                            report,
                            name,
                            seq,
                            "hash differs from the checkpoint taken at this entry (rewritten)",
                        )
                    if key is not None and bad_sig is None:
                        if keys.check_signature(key, name, seq, row.hash, cp_sig):
                            signed_ok = seq
                        elif cp_sig is not None or pinned is not None:
                            bad_sig = seq
                elif seq % _CHECKPOINT_EVERY == 0:
                    return _fail(
                        report, name, seq, "its interval checkpoint is missing (checkpoint rows removed)"
                    )
                if seq in want:
                    hashes_at[seq] = row.hash
                prev = row.hash
                expected_seq += 1
                report.events += 1
            if len(rows) < batch:
                break
        last = expected_seq - 1
        if checkpoints:
            seq = min(checkpoints)
            return _fail(
                report, name, seq, f"checkpointed but missing: the journal ends at {last} (truncated)"
            )
        if head_row is None and last > 0:
            return _fail(
                report, name, None, "the chain head row is missing (removed), yet the journal has entries"
            )
        if head_row is not None and (int(head_row.seq), head_row.hash) != (last, prev):
            if int(head_row.seq) > last:
                return _fail(
                    report, name, last + 1, f"missing: the head says {head_row.seq} entries (truncated)"
                )
            return _fail(report, name, last, f"the head row names entry {head_row.seq}, not the last entry")
        failed = _against_key(
            report,
            name,
            last,
            prev,
            head_row,
            key,
            key_since,
            pinned,
            key_file,
            signed_ok,
            bad_sig,
            hashes_at,
            all_checkpoints,
        )
        if failed is not None:
            return failed
        report.tables[name] = (last, prev)
        if key is not None:
            report.keys[name] = keys.fingerprint(key)
            if pinned is None:
                report.unpinned.append(name)
    return report


_CHECKPOINT_EVERY = (
    1000  # engine.store.journal.CHECKPOINT_EVERY (the journal sits above this module's import)
)
_KEY_TYPES = (
    EntryType.TABLE_STARTED.value,
    EntryType.TABLE_QUARANTINED.value,
    EntryType.TABLE_KEY_ROTATED.value,
    EntryType.CHAIN_KEYED.value,  # the floor chain's key (engine.store.users)
)


def _key_change(entry: Entry, key: str | None) -> tuple[str | None, str | None]:
    """(the key this entry puts in force or None, what is wrong with it or None)."""
    if entry.type not in _KEY_TYPES:
        return None, None
    from engine.store import keys

    body = json.loads(entry.payload_text)
    if entry.type == EntryType.TABLE_KEY_ROTATED.value:
        old, new = str(body.get("old_key")), str(body.get("new_key"))
        if key is not None and old != key:
            return None, "a key rotation from a key that is not the one in force (forged)"
        if not keys.check_raw(old, keys.rotation_message(entry.table, old, new), body.get("signature")):
            return None, "a key rotation not signed by the old key (forged)"
        return new, None
    named = body.get("key")
    if named is None:
        return None, None
    if key is not None and named != key:
        return None, "names a signing key other than the one in force, without a journaled rotation (forged)"
    return str(named), None


def _against_key(
    report: VerifyReport,
    name: str,
    last: int,
    head_hash: str,
    head_row: Any,
    key: str | None,
    key_since: int,
    pinned: str | None,
    key_file: Any,
    signed_ok: int,
    bad_sig: int | None,
    hashes_at: dict[int, str],
    checkpoints: dict[int, tuple[str, str | None]],
) -> VerifyReport | None:
    """The signature checks of one chain after its hashes held (see the module docstring)."""
    from engine.store import keys

    journaled = key_file is not None and key_file.journaled
    if last == 0 and journaled:
        return _fail(
            report,
            name,
            1,
            f"the journal is missing or empty, but the table's key {key_file.path} says it had entries "
            f"(up to {key_file.high_water[0] if key_file.high_water else 'at least its key entry'})",
        )
    if key is None:
        if pinned is not None and journaled:
            return _fail(
                report, name, 1, "the journal names no signing key, but the table has one (rewritten)"
            )
        return None
    if pinned is not None and key != pinned:
        return _fail(
            report,
            name,
            key_since,
            f"the chain is signed by key {keys.fingerprint(key)}, not the table's key "
            f"{keys.fingerprint(pinned)} (rewritten with another key)",
        )
    first_bad = signed_ok + 1 if signed_ok else key_since
    if bad_sig is not None:
        return _fail(
            report,
            name,
            first_bad,
            f"not covered by the table's signature: the checkpoint at {bad_sig} is not signed by its key "
            f"(an entry from {first_bad} to {bad_sig} was rewritten, removed, inserted or reordered)",
        )
    head_sig = getattr(head_row, "sig", None) if head_row is not None else None
    if keys.check_signature(key, name, last, head_hash, head_sig):
        return _against_witness(report, name, last, key_file, hashes_at, checkpoints)
    if head_sig is None and pinned is None:
        return None  # an unsigned copy (e.g. the floor's), no key to hold it against
    return _fail(
        report,
        name,
        first_bad,
        f"not covered by the table's signature: the head (entry {last}) is not signed by its key "
        f"(an entry from {first_bad} to {last} was rewritten, removed, inserted, reordered or appended, "
        "or the journal was cut)",
    )


def _against_witness(
    report: VerifyReport,
    name: str,
    last: int,
    key_file: Any,
    hashes_at: dict[int, str],
    checkpoints: dict[int, tuple[str, str | None]],
) -> VerifyReport | None:
    """The key's witness (engine.store.keys): the last head and checkpoint it saw signed are there."""
    if key_file is not None and key_file.high_water is not None:
        hw_seq, hw_hash = key_file.high_water
        if hw_seq > last:
            return _fail(
                report,
                name,
                last + 1,
                f"missing: the table's key file saw entry {hw_seq} signed, the journal ends at {last} "
                "(truncated or rolled back)",
            )
        if hashes_at.get(hw_seq) != hw_hash:
            return _fail(report, name, hw_seq, "differs from the entry the table's key signed (rewritten)")
    if key_file is not None and key_file.checkpoint is not None and key_file.checkpoint not in checkpoints:
        return _fail(
            report, name, key_file.checkpoint, "its signed checkpoint is missing (checkpoint rows removed)"
        )
    return None


# The projections `drr db rebuild` recomputes from the journal (engine.store.projections.rebuild).
_DERIVED = ("rounds", "number_counts", "daily_totals", "daily_handle")


def derived_problem(store: Store, tables: list[str]) -> str | None:
    """What differs between the derived tables and the verified journal (None when they agree).

    The projections are rebuilt from the journal inside a transaction that is rolled back, and each
    table's rows are compared with what was stored: a `paid` raised or a round inserted with plain
    SQL is named by table, round (or key) and column."""
    from engine.store.projections import rebuild

    def snapshot(conn: Any, table: str) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
        out: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
        for name in _DERIVED:
            t = schema.metadata.tables[name]
            pk = [c.name for c in t.primary_key.columns]
            rows = conn.execute(sa.select(t).where(t.c.table_id == table)).mappings().all()
            out[name] = {tuple(r[k] for k in pk): dict(r) for r in rows}
        return out

    try:
        with store.engine.connect() as conn:
            trans = conn.begin()
            try:
                for table in tables:
                    stored = snapshot(conn, table)
                    rebuild(conn, table)
                    expected = snapshot(conn, table)
                    for name in _DERIVED:
                        problem = _compare(name, stored[name], expected[name])
                        if problem is not None:
                            return f"table {table}: {problem} (changed outside the journal)"
            finally:
                trans.rollback()
    except sa.exc.SQLAlchemyError:
        return None  # a read-only copy or an older schema: the projections are not checked here
    return None


def _compare(
    name: str, stored: dict[tuple[Any, ...], dict[str, Any]], expected: dict[tuple[Any, ...], dict[str, Any]]
) -> str | None:
    for key in sorted(set(stored) | set(expected), key=str):
        label = "/".join(str(k) for k in key[1:]) or str(key[0])
        if key not in expected:
            return f"{name} row {label} is in no journal entry"
        if key not in stored:
            return f"{name} row {label} of the journal is missing"
        for column, value in expected[key].items():
            if stored[key].get(column) != value:
                return (
                    f"{name} row {label}: {column} is {stored[key].get(column)!r}, the journal says {value!r}"
                )
    return None


def users_problem(store: Store) -> str | None:
    """The users table against the store's floor chain (engine.store.users_check)."""
    from engine.store.users_check import users_problem as check

    return check(store)
