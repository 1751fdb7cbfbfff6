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
truncated, not signed). On a floor store the signed heads the forwarder received from each table
(engine.store.signed_heads) must still be there, with the same hash and the key's signature.

The floor chain of a PostgreSQL floor database is signed entry by entry by the hosts that write it
(engine.store.floor_sign): from its `chain.keyed` (the root key, pinned like a table's key) on, every
entry must carry a valid signature of a writer key the root key enrolled before it, and the witness of
each key file here (the root's, this host's writer keys') must find its last signed entry.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from engine.errors import DrrError
from engine.store import audit_tables, chain_parallel, floor_sign, keys, schema, signed_heads
from engine.store.canonical import GENESIS_HASH, canonical_json
from engine.store.chain_scan import KEY_TYPES, Problem, Scan, scan
from engine.store.db import Store
from engine.store.entry_check import entry_problem, key_change
from engine.store.journal import CHECKPOINT_EVERY, Journal
from engine.store.keys import VerifiedMark
from engine.store.projections import MemoryRows, fold_journal
from engine.store.records import row_to_entry
from engine.store.users_check import users_problem as check_users


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


def tables_to_verify(store: Store, table: str | None = None) -> list[str]:
    """The chains `verify` checks: `table` (refused in one line if the store holds no trace of it),
    else every table with a head row, a journal entry, a checkpoint or a key file saying it had a
    journal here (so a table whose head row was removed is still checked)."""
    j, heads, cps = schema.journal, schema.chain_heads, schema.checkpoints
    with store.read() as conn:
        known = set(conn.execute(sa.select(heads.c.table_id)).scalars())
        if table is not None:  # one table: looked up by the keys
            for t in (j, cps):
                if conn.execute(sa.select(t.c.seq).where(t.c.table_id == table).limit(1)).first():
                    known.add(table)
        else:
            for name in (j.name, cps.name):
                known |= set(conn.execute(sa.text(_DISTINCT_TABLES.format(t=name))).scalars())
    known |= set(keys.tables_with_keys(store.where))  # a table whose key says it had a journal here
    if table is not None and table not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise DrrError(f"no journal for table {table} in {store.where} (tables: {listed})")
    return sorted(known) if table is None else [table]


# The distinct table ids of a table keyed by (table_id, seq), one index seek per table (a "loose
# index scan"): a plain DISTINCT reads every entry of a floor's journal, billions in five years.
_DISTINCT_TABLES = (
    "WITH RECURSIVE ids(id) AS (SELECT min(table_id) FROM {t} UNION ALL "
    "SELECT (SELECT min(table_id) FROM {t} WHERE table_id > ids.id) FROM ids WHERE ids.id IS NOT NULL) "
    "SELECT id FROM ids WHERE id IS NOT NULL"
)


def verify(
    store: Store,
    table: str | None = None,
    *,
    public_key: str | None = None,
    incremental: bool = False,
    remember: bool = True,
) -> VerifyReport:
    """Check one table's chain (or every chain in the store); stops at the first bad entry.

    `public_key` (hex) pins the key of `table` as its key file would (a lab without the key file).
    `incremental`: start after the last position a verification with the table's key file found good
    (the witness's MAC'd `verified` mark), re-checking that this position, the checkpoints before it
    and the chain's head and signatures are as they were (docs/journal-evidence.md says what that
    leaves out); without a usable mark the whole chain is verified. `remember`: a chain that
    verifies against its key file moves the mark to its head."""
    tables = tables_to_verify(store, table)
    report = VerifyReport(ok=True)
    with (
        store.read() as conn
    ):  # a floor store: the tables' signed heads it received (engine.store.signed_heads)
        floor_heads = sa.inspect(conn).has_table(schema.signed_heads.name)
    for name in tables:
        key_file = keys.load(store.where, name)
        pinned = public_key if (public_key is not None and table is not None) else None
        if pinned is None and key_file is not None:
            pinned = key_file.public
        failed = _verify_chain(
            store,
            report,
            name,
            key_file,
            pinned,
            incremental=incremental,
            remember=remember,
            floor_heads=floor_heads,
        )
        if failed is not None:
            return failed
    return report


def _verify_chain(
    store: Store,
    report: VerifyReport,
    name: str,
    key_file: Any,
    pinned: str | None,
    *,
    incremental: bool,
    remember: bool,
    floor_heads: bool = False,
) -> VerifyReport | None:
    """One table's chain: the fast pass (engine.store.chain_scan), then the head, key and witness, and
    on a floor store the signed heads it received from the table (engine.store.signed_heads)."""
    heads, cps = schema.chain_heads, schema.checkpoints
    columns = _journal_columns(store)
    has_mac = "mac" in columns
    # signed entry by entry by its writers (no MACs, no signed head: no one key writes it all)
    per_entry = floor_sign.applies(store, name) and "sig" in columns
    writers = floor_sign.writer_keys_here(store.where) if per_entry else []
    mac_key_of = (
        (lambda public: key_file.mac_key_for(public))
        if key_file is not None and has_mac and not per_entry
        else (lambda public: None)
    )
    with store.read() as conn:
        head_row = conn.execute(sa.select(heads).where(heads.c.table_id == name)).first()
        checkpoints = {
            int(r.seq): (r.hash, r.sig) for r in conn.execute(sa.select(cps).where(cps.c.table_id == name))
        }
        all_checkpoints = dict(checkpoints)
        state = Scan(table=name, mac_from=key_file.mac_from if key_file is not None and has_mac else None)
        rounds_before = 0
        mark = (
            key_file.verified if incremental and key_file is not None and has_mac and not per_entry else None
        )
        if mark is not None and pinned == key_file.public and _mark_holds(conn, name, mark, checkpoints):
            state = Scan(
                table=name,
                expected=mark.seq + 1,
                prev=mark.hash,
                key=mark.key,
                key_since=mark.seq,
                macs=mark.macs,
                mac_from=state.mac_from,
                signed_ok=mark.seq,
                events=mark.seq,
                checkpoints_seen=mark.checkpoints,
                canonical=None,  # from inside the chain: either byte rule (chain_scan.Scan)
            )
            for seq in [s for s in checkpoints if s <= mark.seq]:
                del checkpoints[seq]
            rounds_before = mark.rounds
        else:
            mark = None
        want = {key_file.high_water[0]} if key_file is not None and key_file.high_water else set()
        want |= {w.high_water[0] for w in writers if w.high_water}
        kept = signed_heads.received(conn, name) if floor_heads else {}
        want |= set(kept)
        writer_check = floor_sign.WriterCheck() if per_entry else None

        def sequential(state: Scan, upto: int | None = None) -> Problem | None:
            if writer_check is not None:
                writer_check.writers.clear()  # a rescan starts from the chain's first entry
            return scan(
                conn.connection.driver_connection,
                conn.dialect.name == "sqlite",
                state,
                checkpoints=checkpoints,
                pinned=pinned,
                want=want,
                key_change=key_change,
                mac_key_of=mac_key_of,
                # per entry: each entry's own signature, not its checkpoint's, is what holds it
                signature_holds=(lambda *_: True)
                if per_entry
                else lambda public, seq, hash_, sig: keys.check_signature(public, name, seq, hash_, sig),
                entry_problem=entry_problem,
                has_mac=has_mac,
                upto=upto,
                signed_by=writer_check,
            )

        parts = (
            _parts(conn, name, head_row, checkpoints, key_file)
            if mark is None and has_mac and not per_entry
            else []
        )
        if not parts:
            problem = sequential(state)
        else:
            problem = _in_parts(store, conn, state, parts, checkpoints, sequential, pinned, want, mac_key_of)
            if problem is not None or state.expected == parts[0].start + 1:
                # the parts did not join: the sequential scan gives the verdict
                checkpoints.clear()
                checkpoints.update(all_checkpoints)
                state = Scan(table=name, mac_from=state.mac_from)
                problem = sequential(state)
        if problem is not None:
            return _fail(report, name, problem.seq, problem.what)
        if mark is not None:
            rounds = rounds_before + _rounds_after(conn, name, mark.seq, state.round_ids)
            if mark.seq in want and mark.seq not in state.hashes_at:
                state.hashes_at[mark.seq] = mark.hash
            for seq in want - set(state.hashes_at):
                found = conn.execute(
                    sa.select(schema.journal.c.hash).where(
                        schema.journal.c.table_id == name, schema.journal.c.seq == seq
                    )
                ).scalar()
                if found is not None:
                    state.hashes_at[seq] = str(found)
        else:
            rounds = len(state.round_ids)
    last, prev = state.expected - 1, state.prev
    if checkpoints:
        seq = min(checkpoints)
        return _fail(report, name, seq, f"checkpointed but missing: the journal ends at {last} (truncated)")
    if head_row is None and last > 0:
        return _fail(
            report, name, None, "the chain head row is missing (removed), yet the journal has entries"
        )
    if head_row is not None and (int(head_row.seq), head_row.hash) != (last, prev):
        if int(head_row.seq) > last:
            return _fail(report, name, last + 1, f"missing: the head says {head_row.seq} entries (truncated)")
        return _fail(report, name, last, f"the head row names entry {head_row.seq}, not the last entry")
    failed = _against_key(
        report,
        name,
        last,
        prev,
        head_row,
        state.key,
        state.key_since,
        pinned,
        key_file,
        state.signed_ok,
        state.bad_sig,
        state.hashes_at,
        all_checkpoints,
        per_entry=per_entry,
    )
    for writer in writers if failed is None else ():
        failed = _against_witness(
            report,
            name,
            last,
            writer,
            state.hashes_at,
            all_checkpoints,
            whose=f"the floor writer key file {writer.path.name}",
        )
    if failed is not None:
        return _refine(store, failed)
    if kept:
        with store.read() as conn:
            keys_at = _keys_at(conn, name, set(kept))
        floor_problem = signed_heads.problem(name, last, kept, state.hashes_at, keys_at)
        if floor_problem is not None:
            return _fail(report, name, *floor_problem)
    report.events += state.events
    report.rounds += rounds
    report.tables[name] = (last, prev)
    if state.key is not None:
        report.keys[name] = keys.fingerprint(state.key)
        if pinned is None:
            report.unpinned.append(name)
    if (
        remember
        and not per_entry
        and key_file is not None
        and has_mac
        and pinned == key_file.public
        and state.key == pinned
        and last
    ):
        _remember(
            key_file,
            VerifiedMark(last, prev, key_file.public, state.macs, state.checkpoints_seen, rounds),
        )
    return None


def _journal_columns(store: Store) -> set[str]:
    """An older schema's copy (read as it is by the audit) has no `journal.mac` (0008), no
    `journal.sig` (0013)."""
    with store.read() as conn:
        return {c["name"] for c in sa.inspect(conn).get_columns("journal")}


def _parts(
    conn: Any, name: str, head_row: Any, checkpoints: dict[int, tuple[str, str | None]], key_file: Any
) -> list[Any]:
    """Where a long chain is cut into parts scanned side by side (engine.store.chain_parallel): the
    evenly spaced interval checkpoints signed by one of the table's keys (a cut whose checkpoint is
    missing or not signed so is left out, and its neighbours' parts are longer)."""
    if key_file is None or head_row is None or int(head_row.seq) < chain_parallel.PARALLEL_MIN:
        return []
    if not chain_parallel.available():
        return []
    head = int(head_row.seq)
    signed: list[tuple[int, str, str]] = []
    for seq in chain_parallel.cuts(head, CHECKPOINT_EVERY):
        if seq not in checkpoints:
            continue
        cp_hash, sig = checkpoints[seq]
        for public in (key_file.public, *(p for p, _ in key_file.retired)):
            if keys.check_signature(public, name, seq, cp_hash, sig):
                signed.append((seq, cp_hash, public))
                break
    if not signed:
        return []
    j = schema.journal
    maced = set(
        conn.execute(
            sa.select(j.c.seq).where(
                j.c.table_id == name, j.c.seq.in_([seq for seq, _, _ in signed]), j.c.mac.is_not(None)
            )
        ).scalars()
    )
    ends = [seq for seq, _, _ in signed[1:]] + [head]
    return [
        chain_parallel.Part(seq, cp_hash, public, seq in maced, upto)
        for (seq, cp_hash, public), upto in zip(signed, ends, strict=True)
    ]


def _in_parts(
    store: Store,
    conn: Any,
    state: Scan,
    parts: list[Any],
    checkpoints: dict[int, tuple[str, str | None]],
    sequential: Any,
    pinned: str | None,
    want: set[int],
    mac_key_of: Any,
) -> Problem | None:
    """The chain before the first cut here, its parts side by side (engine.store.chain_parallel);
    `state` holds the joined chain when they join (else it stops at the first cut, and the caller
    scans sequentially)."""
    name = state.table
    sqlite = conn.dialect.name == "sqlite"

    def here(part: Any, cps: dict[int, tuple[str, str | None]]) -> Any:
        return chain_parallel.scan_part(
            conn.connection.driver_connection,
            sqlite,
            name,
            part,
            mac_from=state.mac_from,
            checkpoints=cps,
            pinned=pinned,
            want=want,
            mac_key_of=mac_key_of,
            signature_holds=lambda public, seq, h, sig: keys.check_signature(public, name, seq, h, sig),
        )

    problem, halves = chain_parallel.in_parts(
        state,
        parts,
        first=lambda upto: sequential(state, upto=upto),
        here=here,
        checkpoints=checkpoints,
        worker_args={
            "url": store.engine.url.render_as_string(hide_password=False),
            "where": store.where,
            "table": name,
            "mac_from": state.mac_from,
            "pinned": pinned,
            "want": want,
        },
    )
    if problem is not None:
        return problem
    found = [half for half in halves or [] if half is not None]
    if len(found) != len(parts):
        state.expected = parts[0].start + 1
        return None
    for part, half in zip(parts, found, strict=True):
        if not chain_parallel.join(state, half, part.start, part.key):
            state.expected = parts[0].start + 1
            return None
    for half in found:
        for reached in half.reached:
            checkpoints.pop(reached, None)
    return None


def _mark_holds(
    conn: Any, name: str, mark: VerifiedMark, checkpoints: dict[int, tuple[str, str | None]]
) -> bool:
    """The verified position is still there with its hash, and the checkpoints up to it are as many."""
    j = schema.journal
    found = conn.execute(sa.select(j.c.hash).where(j.c.table_id == name, j.c.seq == mark.seq)).scalar()
    if found != mark.hash:
        return False
    # A checkpoint row at or before the mark removed (or one added there) sends it to a full check.
    return sum(1 for seq in checkpoints if seq <= mark.seq) == mark.checkpoints


def _rounds_after(conn: Any, name: str, seq: int, round_ids: set[str]) -> int:
    """How many of `round_ids` (named after entry `seq`) no entry at or before `seq` names: each
    looked up through the round-id index."""
    j = schema.journal
    query = sa.select(j.c.table_id, j.c.seq).where(j.c.round_id == sa.bindparam("r"))
    fresh = 0
    for rid in round_ids:
        rows = conn.execute(query, {"r": rid}).all()
        fresh += not any(t == name and int(s) <= seq for t, s in rows)
    return fresh


def _remember(key_file: Any, mark: VerifiedMark) -> None:
    """Move the witness's verified mark to this head (best effort: a read-only key dir keeps the old)."""
    current = keys.load(key_file.store, key_file.table)
    if current is None or current.public != mark.key:
        return
    if current.verified is not None and current.verified.seq >= mark.seq:
        return
    with contextlib.suppress(DrrError, OSError):
        keys.update(current, verified=mark)


def _refine(store: Store, failed: VerifyReport) -> VerifyReport:
    """A signature names a range: the first entry in it that the reference check refuses, if any
    (a payload not in canonical form hashes the fast way only if the forger hashed it so)."""
    detail = failed.detail or ""
    if failed.bad_seq is None or "not covered by the table's signature" not in detail:
        return failed
    found = re.search(r"from (\d+) to (\d+)", detail)
    if found is None:
        return failed
    lo, hi = int(found.group(1)), int(found.group(2))
    with contextlib.suppress(DrrError):  # an older schema's copy: the range stands
        for entry in Journal(store).entries(failed.bad_table or "", lo):
            if entry.seq > hi:
                break
            problem = entry_problem(entry, None)
            if problem is not None:
                return _fail(failed, failed.bad_table or "", entry.seq, problem)
    return failed


def _keys_at(conn: Any, name: str, seqs: set[int]) -> dict[int, str | None]:
    """The key in force at each of `seqs`, from the chain's few key entries (already verified)."""
    j = schema.journal
    changes: list[tuple[int, str]] = []
    key: str | None = None
    for row in conn.execute(
        sa.select(j).where(j.c.table_id == name, j.c.type.in_(sorted(KEY_TYPES))).order_by(j.c.seq)
    ):
        found, _ = key_change(row_to_entry(row), key)
        if found is not None and found != key:
            key = found
            changes.append((int(row.seq), found))
    out: dict[int, str | None] = {}
    for seq in seqs:
        out[seq] = next((k for s, k in reversed(changes) if s <= seq), None)
    return out


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
    *,
    per_entry: bool = False,
) -> VerifyReport | None:
    """The signature checks of one chain after its hashes held (see the module docstring);
    `per_entry`: every entry's own signature was checked in the pass (engine.store.floor_sign)."""
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
    if per_entry:  # no head or checkpoint signature to hold it against: its last entry's signature is
        return _against_witness(report, name, last, key_file, hashes_at, checkpoints)
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
    *,
    whose: str = "the table's key file",
) -> VerifyReport | None:
    """The key's witness (engine.store.keys): the last head and checkpoint it saw signed are there."""
    if key_file is not None and key_file.high_water is not None:
        hw_seq, hw_hash = key_file.high_water
        if hw_seq > last:
            return _fail(
                report,
                name,
                last + 1,
                f"missing: {whose} saw entry {hw_seq} signed, the journal ends at {last} "
                "(truncated or rolled back)",
            )
        if hashes_at.get(hw_seq) != hw_hash:
            return _fail(report, name, hw_seq, f"differs from the entry {whose} saw signed (rewritten)")
    if key_file is not None and key_file.checkpoint is not None and key_file.checkpoint not in checkpoints:
        return _fail(
            report, name, key_file.checkpoint, "its signed checkpoint is missing (checkpoint rows removed)"
        )
    return None


# The projections `drr db rebuild` recomputes from the journal (engine.store.projections.rebuild).
_DERIVED = ("rounds", "number_counts", "daily_totals", "daily_handle")


def derived_problem(store: Store, tables: list[str]) -> str | None:
    """What differs between the derived tables and the verified journal (None when they agree).

    Each table's journal is folded again by the handlers every append runs (`projections.fold_journal`)
    and, instead of being written, each finished round is held against its stored row as the fold
    flushes it (`_HeldRows`), the day and number aggregates at the end: a `paid` raised, a round
    inserted or deleted with plain SQL is named by table, round (or key) and column. Inside a
    transaction that is rolled back (the fold stores again a Rules Submission it finds missing)."""
    try:
        with store.engine.connect() as conn:
            trans = conn.begin()
            try:
                for table in tables:
                    held = _HeldRows(conn, table)
                    fold_journal(conn, table, held)
                    problem = held.problem()
                    if problem is not None:
                        return f"table {table}: {problem} (changed outside the journal)"
            finally:
                trans.rollback()
    except (sa.exc.SQLAlchemyError, sqlite3.Error):  # sqlite3's own: a SQLite BEGIN goes to the driver
        return None  # a read-only copy or an older schema: the projections are not checked here
    return None


def _full(table: sa.Table, row: dict[str, Any]) -> dict[str, Any]:
    """`row` with every column, the missing ones at the value an insert would store."""
    out = dict(row)
    for c in table.columns:
        if c.name not in out:
            default = c.default.arg if c.default is not None and c.default.is_scalar else None  # type: ignore[attr-defined]
            out[c.name] = default
    return out


def _key(table: sa.Table, row: Any) -> tuple[Any, ...]:
    return tuple(row[c.name] for c in table.primary_key.columns)


class _HeldRows(MemoryRows):
    """A rebuild's fold held against the stored projections instead of written (`derived_problem`).

    Finished rounds are compared with their stored rows as the fold flushes them; one that differs
    is kept in memory (`suspects`), since a later entry (a void, a correction) may still change it
    and a later flush compare it again. One that matched is the stored row, so a later entry that
    takes it back reads it from the store. At the end the suspects left are the rounds that differ,
    and stored rounds the fold never made are looked for by count; the aggregates (a row a day,
    number and bet) are compared whole. Memory stays bounded as in a rebuild."""

    CHUNK = 500  # round ids a stored-row lookup names

    def __init__(self, conn: Any, table: str) -> None:
        super().__init__(conn, table)
        self.suspects: dict[str, dict[str, Any]] = {}
        self.final: dict[str, list[dict[str, Any]]] = {}

    def _take_back(self, rid: str) -> dict[str, Any]:
        row = self.suspects.pop(rid, None)
        if row is None:  # it matched its stored row when flushed: that row is the fold's
            r = schema.rounds
            found = self.conn.execute(sa.select(r).where(r.c.table_id == self.table, r.c.round_id == rid))
            row = dict(found.one()._mapping)
        self.written.discard(rid)
        self.rounds[rid] = row
        return row

    def _insert(self, table: sa.Table, rows: list[dict[str, Any]]) -> None:
        if table is not schema.rounds:
            self.final[table.name] = [_full(table, row) for row in rows]
            return
        r = schema.rounds
        for i in range(0, len(rows), self.CHUNK):
            chunk = [_full(r, row) for row in rows[i : i + self.CHUNK]]
            query = sa.select(r).where(
                r.c.table_id == self.table, r.c.round_id.in_([x["round_id"] for x in chunk])
            )
            stored = {row.round_id: row._mapping for row in self.conn.execute(query)}
            for row in chunk:
                have = stored.get(row["round_id"])
                if have is None or any(have.get(c) != v for c, v in row.items()):
                    self.suspects[row["round_id"]] = row

    def problem(self) -> str | None:
        """After the fold: the first difference, in the order `_compare` names them."""
        r = schema.rounds
        mine = r.c.table_id == self.table
        expected = {_key(r, row): row for row in self.suspects.values()}
        stored: dict[tuple[Any, ...], dict[str, Any]] = {}
        ids = [row["round_id"] for row in self.suspects.values()]
        for i in range(0, len(ids), self.CHUNK):
            query = sa.select(r).where(mine, r.c.round_id.in_(ids[i : i + self.CHUNK]))
            stored.update({_key(r, row._mapping): dict(row._mapping) for row in self.conn.execute(query)})
        count = self.conn.execute(sa.select(sa.func.count()).select_from(r).where(mine)).scalar_one()
        if count != len(self.written):  # a stored round the journal never made: its id, then its row
            extra = [rid for rid in self.conn.execute(sa.select(r.c.round_id).where(mine)).scalars()
                     if rid not in self.written]  # fmt: skip
            for i in range(0, len(extra), self.CHUNK):
                query = sa.select(r).where(mine, r.c.round_id.in_(extra[i : i + self.CHUNK]))
                stored.update({_key(r, row._mapping): dict(row._mapping) for row in self.conn.execute(query)})
        problem = _compare("rounds", stored, expected)
        if problem is not None:
            return problem
        for name in _DERIVED[1:]:
            t = schema.metadata.tables[name]
            rows = self.conn.execute(sa.select(t).where(t.c.table_id == self.table)).mappings()
            problem = _compare(
                name,
                {_key(t, row): dict(row) for row in rows},
                {_key(t, row): row for row in self.final.get(name, [])},
            )
            if problem is not None:
                return problem
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


@dataclass
class Audit:
    """What `drr audit verify` found: the journal's verification, then, only if it holds, the store
    file's damage and the derived tables (and users) against the journal."""

    report: VerifyReport
    damage: str | None = None  # the file is damaged (the chain intact)
    derived: str | None = None  # a derived table or the users disagree with the journal


def audit(store: Store, table: str | None = None, *, public_key: str | None = None) -> Audit:
    """Everything `drr audit verify` checks, in its order, each step only if the one before held; a
    floor's many tables side by side (engine.store.audit_tables), with the same verdict."""
    if table is None:
        tables = tables_to_verify(store)
        workers = audit_tables.workers_for(store, tables)
        if workers:
            return _together(store, audit_tables.side_by_side(store, tables, workers, _check_table))
    found = Audit(verify(store, table, public_key=public_key))
    if not found.report.ok:
        return found
    found.damage = file_damage(store)
    if found.damage is not None:
        return found
    found.derived = derived_problem(store, sorted(found.report.tables))
    if found.derived is None and table is None:
        found.derived = users_problem(store)
    return found


def users_problem(store: Store) -> str | None:
    """The users table against the store's floor chain (engine.store.users_check)."""
    return check_users(store)


def _check_table(store: Store, table: str) -> tuple[VerifyReport, str | None]:
    """One table's chain and, if it holds, its derived tables (a worker's part of `audit`)."""
    report = verify(store, table)
    return report, (derived_problem(store, [table]) if report.ok else None)


def _together(store: Store, found: list[tuple[VerifyReport, str | None]]) -> Audit:
    """The tables' findings in their order, as `audit` of them one after another reports."""
    whole = VerifyReport(ok=True)
    for report, _derived in found:
        if not report.ok:
            whole.ok = False
            whole.problem, whole.bad_table, whole.bad_seq = report.problem, report.bad_table, report.bad_seq
            whole.detail = report.detail
            return Audit(whole)
        whole.events += report.events
        whole.rounds += report.rounds
        whole.tables.update(report.tables)
        whole.keys.update(report.keys)
        whole.unpinned.extend(report.unpinned)
    audit = Audit(whole, damage=file_damage(store))
    if audit.damage is None:
        audit.derived = next((d for _r, d in found if d is not None), None)
        if audit.derived is None:
            audit.derived = users_problem(store)
    return audit
