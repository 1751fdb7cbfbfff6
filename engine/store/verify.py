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

Here: the loop over tables (`verify`) and the audit's order (`audit`). One chain's walk, step by step:
engine.store.chain_walk (its signature checks: engine.store.chain_signatures); the report:
engine.store.verify_report; the derived tables' check: engine.store.derived_check. Every name callers
import from here stays importable from here.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from engine.errors import DrrError
from engine.store import audit_tables, floor_actions_check, floor_sign, key_rotation, keys, schema
from engine.store.chain_walk import verify_chain
from engine.store.db import Store
from engine.store.derived_check import derived_problem
from engine.store.entry_check import entry_problem
from engine.store.users_check import users_problem as check_users
from engine.store.verify_report import VerifyReport, fail

__all__ = [
    "Audit",
    "VerifyReport",
    "audit",
    "derived_problem",
    "entry_problem",
    "fail",
    "file_damage",
    "tables_to_verify",
    "users_problem",
    "verify",
]


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
        key_file = key_rotation.settle(store, name)  # a rotation a kill interrupted, finished or dropped
        if key_file is None and keys.witness_path(keys.key_path(store.where, name)).exists():
            return fail(
                report,
                name,
                None,
                f"the table's key file {keys.key_path(store.where, name)} is missing, but its witness "
                f"{keys.witness_path(keys.key_path(store.where, name))} is here (the key was deleted or "
                "moved): the chain's signatures cannot be held against it; restore the key file from the "
                "backup (docs/backup-restore.md)",
            )
        pinned = public_key if (public_key is not None and table is not None) else None
        if pinned is None and key_file is not None:
            pinned = key_file.public
        if pinned is None and name == floor_sign.FLOOR:  # a table's PC: the floor's root key IT provisioned
            pinned = floor_sign.pinned_root(store.where)
        failed = verify_chain(
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
    if floor_heads:  # a floor store: what the tables it copies took from its floor chain is still in it
        with store.read() as conn:
            gone = floor_actions_check.missing(conn, tables)
        if gone is not None:
            return fail(report, *gone)
    return report


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
