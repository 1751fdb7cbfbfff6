"""One table's chain walked in named steps (`verify_chain`, engine.store.verify's loop over tables):

1. `_read_chain`: what the chain is (its columns, whether its writers sign each entry, their keys), its
   head row and checkpoints;
2. `_resume`: with `incremental`, the scan starts after the witness's verified mark if it still holds;
3. `_wanted`: the positions whose hashes the later steps need (the key files' high water, the signed
   heads a floor store received);
4. `_scan_chain`: the fast pass (engine.store.chain_scan), in parts side by side for a long chain
   (engine.store.chain_parallel), sequentially when the parts do not join;
5. `_rounds`: the rounds counted (after a mark, those it did not count);
6. `_check_end`: every checkpoint reached, the head row naming the last entry;
7. `_check_signatures`: the key and its witness, each floor writer's witness (engine.store.chain_signatures);
8. `_check_floor_heads`: the signed heads a floor store received (engine.store.signed_heads);
9. `_record`: the figures into the report, the verified mark moved to the head.

The first step that fails returns the report with the failure (engine.store.verify_report)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from engine.errors import DrrError
from engine.store import chain_parallel, floor_sign, keys, schema, signed_heads
from engine.store.chain_scan import KEY_TYPES, Problem, Scan, scan
from engine.store.chain_signatures import against_key, against_witness, refine
from engine.store.db import Store
from engine.store.entry_check import entry_problem, key_change
from engine.store.journal import CHECKPOINT_EVERY
from engine.store.keys import VerifiedMark
from engine.store.records import row_to_entry
from engine.store.verify_report import VerifyReport, fail


@dataclass
class _Chain:
    """One chain as the walk reads it (steps 1-3)."""

    name: str
    key_file: Any
    pinned: str | None
    has_mac: bool
    # signed entry by entry by its writers (no MACs, no signed head: no one key writes it all)
    per_entry: bool
    writers: list[Any]
    mac_key_of: Callable[[str], Any]
    head_row: Any = None
    checkpoints: dict[int, tuple[str, str | None]] = field(default_factory=dict)  # those still to reach
    all_checkpoints: dict[int, tuple[str, str | None]] = field(default_factory=dict)
    want: set[int] = field(default_factory=set)
    kept: dict[int, Any] = field(default_factory=dict)  # the signed heads a floor store received


def verify_chain(
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
    on a floor store the signed heads it received from the table (engine.store.signed_heads); None
    when it holds (its figures added to `report`), else `report` with the first failure."""
    chain = _chain(store, name, key_file, pinned)
    with store.read() as conn:
        _read_chain(conn, chain)
        state, mark, rounds_before = _resume(conn, chain, incremental)
        _wanted(conn, chain, floor_heads)
        state, problem = _scan_chain(store, conn, chain, state, mark)
        if problem is not None:
            return fail(report, name, problem.seq, problem.what)
        rounds = _rounds(conn, chain, state, mark, rounds_before)
    failed = _check_end(report, chain, state)
    if failed is None:
        failed = _check_signatures(store, report, chain, state)
    if failed is None:
        failed = _check_floor_heads(store, report, chain, state)
    if failed is None:
        _record(report, chain, state, rounds, remember=remember)
    return failed


def _chain(store: Store, name: str, key_file: Any, pinned: str | None) -> _Chain:
    """Step 1a: how the chain is signed, from the journal's columns and the store's floor keys."""
    columns = _journal_columns(store)
    has_mac = "mac" in columns
    per_entry = floor_sign.applies(store, name) and "sig" in columns
    writers = floor_sign.writer_keys_here(store.where) if per_entry else []
    mac_key_of: Callable[[str], Any] = (
        (lambda public: key_file.mac_key_for(public))
        if key_file is not None and has_mac and not per_entry
        else (lambda public: None)
    )
    return _Chain(name, key_file, pinned, has_mac, per_entry, writers, mac_key_of)


def _read_chain(conn: Any, chain: _Chain) -> None:
    """Step 1b: the chain's head row and checkpoints."""
    heads, cps = schema.chain_heads, schema.checkpoints
    name = chain.name
    chain.head_row = conn.execute(sa.select(heads).where(heads.c.table_id == name)).first()
    chain.checkpoints = {
        int(r.seq): (r.hash, r.sig) for r in conn.execute(sa.select(cps).where(cps.c.table_id == name))
    }
    chain.all_checkpoints = dict(chain.checkpoints)


def _resume(conn: Any, chain: _Chain, incremental: bool) -> tuple[Scan, VerifiedMark | None, int]:
    """Step 2: where the scan starts (the chain's first entry, or after the witness's verified mark if
    it still holds, the checkpoints up to it then reached) and the rounds counted before it."""
    name, key_file, has_mac = chain.name, chain.key_file, chain.has_mac
    state = Scan(table=name, mac_from=key_file.mac_from if key_file is not None and has_mac else None)
    mark = (
        key_file.verified
        if incremental and key_file is not None and has_mac and not chain.per_entry
        else None
    )
    if (
        mark is None
        or chain.pinned != key_file.public
        or not _mark_holds(conn, name, mark, chain.checkpoints)
    ):
        return state, None, 0
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
    for seq in [s for s in chain.checkpoints if s <= mark.seq]:
        del chain.checkpoints[seq]
    return state, mark, mark.rounds


def _wanted(conn: Any, chain: _Chain, floor_heads: bool) -> None:
    """Step 3: the positions whose hashes the later steps hold against a witness or a signed head."""
    key_file = chain.key_file
    want = {key_file.high_water[0]} if key_file is not None and key_file.high_water else set()
    want |= {w.high_water[0] for w in chain.writers if w.high_water}
    chain.kept = signed_heads.received(conn, chain.name) if floor_heads else {}
    want |= set(chain.kept)
    chain.want = want


def _scan_chain(
    store: Store, conn: Any, chain: _Chain, state: Scan, mark: VerifiedMark | None
) -> tuple[Scan, Problem | None]:
    """Step 4: the fast pass, in parts side by side when the chain is long and signed at its cuts,
    else (or when the parts do not join) sequentially; the state it ends in and its first problem."""
    name, pinned, per_entry = chain.name, chain.pinned, chain.per_entry
    checkpoints = chain.checkpoints
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
            want=chain.want,
            key_change=key_change,
            mac_key_of=chain.mac_key_of,
            # per entry: each entry's own signature, not its checkpoint's, is what holds it
            signature_holds=(lambda *_: True)
            if per_entry
            else lambda public, seq, hash_, sig: keys.check_signature(public, name, seq, hash_, sig),
            entry_problem=entry_problem,
            has_mac=chain.has_mac,
            upto=upto,
            signed_by=writer_check,
        )

    parts = (
        _parts(conn, name, chain.head_row, checkpoints, chain.key_file)
        if mark is None and chain.has_mac and not per_entry
        else []
    )
    if not parts:
        return state, sequential(state)
    problem = _in_parts(
        store, conn, state, parts, checkpoints, sequential, pinned, chain.want, chain.mac_key_of
    )
    if problem is not None or state.expected == parts[0].start + 1:
        # the parts did not join: the sequential scan gives the verdict
        checkpoints.clear()
        checkpoints.update(chain.all_checkpoints)
        state = Scan(table=name, mac_from=state.mac_from)
        problem = sequential(state)
    return state, problem


def _rounds(conn: Any, chain: _Chain, state: Scan, mark: VerifiedMark | None, rounds_before: int) -> int:
    """Step 5: the chain's rounds; after a mark, the hashes wanted at or before it read from the store."""
    if mark is None:
        return len(state.round_ids)
    name = chain.name
    rounds = rounds_before + _rounds_after(conn, name, mark.seq, state.round_ids)
    if mark.seq in chain.want and mark.seq not in state.hashes_at:
        state.hashes_at[mark.seq] = mark.hash
    for seq in chain.want - set(state.hashes_at):
        found = conn.execute(
            sa.select(schema.journal.c.hash).where(
                schema.journal.c.table_id == name, schema.journal.c.seq == seq
            )
        ).scalar()
        if found is not None:
            state.hashes_at[seq] = str(found)
    return rounds


def _check_end(report: VerifyReport, chain: _Chain, state: Scan) -> VerifyReport | None:
    """Step 6: every checkpoint was reached and the head row names the last entry."""
    name, head_row = chain.name, chain.head_row
    last, prev = state.expected - 1, state.prev
    if chain.checkpoints:
        seq = min(chain.checkpoints)
        return fail(report, name, seq, f"checkpointed but missing: the journal ends at {last} (truncated)")
    if head_row is None and last > 0:
        return fail(
            report, name, None, "the chain head row is missing (removed), yet the journal has entries"
        )
    if head_row is not None and (int(head_row.seq), head_row.hash) != (last, prev):
        if int(head_row.seq) > last:
            return fail(report, name, last + 1, f"missing: the head says {head_row.seq} entries (truncated)")
        return fail(report, name, last, f"the head row names entry {head_row.seq}, not the last entry")
    return None


def _check_signatures(store: Store, report: VerifyReport, chain: _Chain, state: Scan) -> VerifyReport | None:
    """Step 7: the chain against its key and the key's witness, then each floor writer's witness
    (engine.store.chain_signatures); a failure narrowed to its first refused entry."""
    name, last = chain.name, state.expected - 1
    failed = against_key(
        report,
        name,
        last,
        state.prev,
        chain.head_row,
        state.key,
        state.key_since,
        chain.pinned,
        chain.key_file,
        state.signed_ok,
        state.bad_sig,
        state.hashes_at,
        chain.all_checkpoints,
        per_entry=chain.per_entry,
    )
    for writer in chain.writers if failed is None else ():
        failed = against_witness(
            report,
            name,
            last,
            writer,
            state.hashes_at,
            chain.all_checkpoints,
            whose=f"the floor writer key file {writer.path.name}",
        )
    return refine(store, failed) if failed is not None else None


def _check_floor_heads(store: Store, report: VerifyReport, chain: _Chain, state: Scan) -> VerifyReport | None:
    """Step 8: on a floor store, the signed heads it received from the table are in its chain."""
    if not chain.kept:
        return None
    name, last = chain.name, state.expected - 1
    with store.read() as conn:
        keys_at = _keys_at(conn, name, set(chain.kept))
    floor_problem = signed_heads.problem(name, last, chain.kept, state.hashes_at, keys_at)
    if floor_problem is not None:
        return fail(report, name, *floor_problem)
    return None


def _record(report: VerifyReport, chain: _Chain, state: Scan, rounds: int, *, remember: bool) -> None:
    """Step 9: the chain's figures into the report; a chain verified against its key file moves the
    file's verified mark to its head (`remember`)."""
    name, key_file, pinned = chain.name, chain.key_file, chain.pinned
    last, prev = state.expected - 1, state.prev
    report.events += state.events
    report.rounds += rounds
    report.tables[name] = (last, prev)
    if state.key is not None:
        report.keys[name] = keys.fingerprint(state.key)
        if pinned is None:
            report.unpinned.append(name)
    if (
        remember
        and not chain.per_entry
        and key_file is not None
        and chain.has_mac
        and pinned == key_file.public
        and state.key == pinned
        and last
    ):
        _remember(
            key_file,
            VerifiedMark(last, prev, key_file.public, state.macs, state.checkpoints_seen, rounds),
        )


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
