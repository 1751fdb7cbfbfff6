"""Audit of the journal: recompute every hash, follow the chain, hold it against checkpoints and heads.

A chain is intact when its entries run seq 1..N without gaps, each entry's `prev_hash` is its
predecessor's hash, each hash recomputes from the entry's fields, every checkpoint (count + head
hash) names an entry that is still there with that hash, and the head row names the last entry.
The first failure is reported with the table, seq and what is wrong (edited, removed, reordered,
truncated).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import sqlalchemy as sa

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
            return f"OK: {self.events} events, {self.rounds} rounds, head {self.head}"
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
    report.bad_table, report.bad_seq = table, seq
    report.problem = (
        f"table {table} entry {seq}: {problem}" if seq is not None else f"table {table}: {problem}"
    )
    return report


def verify(store: Store, table: str | None = None, *, batch: int = 5000) -> VerifyReport:
    """Check one table's chain (or every chain in the store); stops at the first bad entry."""
    j, heads, cps = schema.journal, schema.chain_heads, schema.checkpoints
    with store.read() as conn:
        known = set(conn.execute(sa.select(heads.c.table_id)).scalars())
        known |= set(conn.execute(sa.select(j.c.table_id).distinct()).scalars())
        known |= set(conn.execute(sa.select(cps.c.table_id).distinct()).scalars())
    if table is not None and table not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise DrrError(f"no journal for table {table} in {store.where} (tables: {listed})")
    tables = sorted(known) if table is None else [table]
    report = VerifyReport(ok=True)
    for name in tables:
        with store.read() as conn:
            head_row = conn.execute(sa.select(heads).where(heads.c.table_id == name)).first()
            checkpoints = {
                int(r.seq): r.hash for r in conn.execute(sa.select(cps).where(cps.c.table_id == name))
            }
            report.rounds += int(
                conn.execute(
                    sa.select(sa.func.count(sa.distinct(j.c.round_id))).where(
                        j.c.table_id == name, j.c.round_id.is_not(None)
                    )
                ).scalar_one()
            )
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
                problem = entry_problem(row_to_entry(row), prev)
                if problem is not None:
                    return _fail(report, name, seq, problem)
                if seq in checkpoints and checkpoints.pop(seq) != row.hash:
                    return _fail(
                        report, name, seq, "hash differs from the checkpoint taken at this entry (rewritten)"
                    )
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
            return _fail(report, name, None, "entries without a chain head (head row removed)")
        if head_row is not None and (int(head_row.seq), head_row.hash) != (last, prev):
            if int(head_row.seq) > last:
                return _fail(
                    report, name, last + 1, f"missing: the head says {head_row.seq} entries (truncated)"
                )
            return _fail(report, name, last, f"the head row names entry {head_row.seq}, not the last entry")
        report.tables[name] = (last, prev)
    return report
