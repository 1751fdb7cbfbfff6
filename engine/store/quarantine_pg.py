"""`drr db quarantine` on a PostgreSQL store: the damaged table's rows moved aside, untouched, to a
quarantine schema of their own, and its new chain started linked to the last good signed head.

The SQLite procedure moves the file (engine.store.evidence.quarantine); a floor database holds every
table (and the users), so only the damaged table's rows move: its journal, checkpoints, head row,
owner row and derived rows (`rounds`, `number_counts`, `daily_totals`, `daily_handle`) are copied
as they are into `drr_quarantine_<digest>` (CREATE TABLE … AS SELECT: the same columns and
values) and deleted from the live tables, and the new chain's first entry, `table.quarantined`,
is appended — all in one transaction, so the store has either the damaged chain or the quarantined
copy and the new chain, never half. The entry names the schema, the SHA-256 of the moved journal
rows (one canonical JSON line per entry, in chain order), the problem, the last good signed head,
the key and the round numbers used. Other tables and the users are not touched.
"""

from __future__ import annotations

import hashlib
import json

import sqlalchemy as sa

from engine.errors import DrrError
from engine.store import keys, schema
from engine.store.db import Store, open_store
from engine.store.evidence import _last_good, _rounds_used, quarantined_entry, report_time
from engine.store.verify import VerifyReport, verify

# The live tables a table's rows are moved out of, in this order.
MOVED = (
    schema.journal,
    schema.checkpoints,
    schema.chain_heads,
    schema.owners,
    schema.rounds,
    schema.number_counts,
    schema.daily_totals,
    schema.daily_handle,
)


def _journal_digest(conn: sa.Connection, quarantine: str, table: str) -> tuple[str, int]:
    """SHA-256 of the moved journal rows (one canonical JSON line each, by seq) and their count."""
    digest, count = hashlib.sha256(), 0
    rows = conn.execute(
        sa.text(f'SELECT * FROM "{quarantine}".journal WHERE table_id = :t ORDER BY seq'), {"t": table}
    ).mappings()
    for row in rows:
        digest.update((json.dumps(dict(row), sort_keys=True, default=str) + "\n").encode())
        count += 1
    return digest.hexdigest(), count


def quarantine_in_database(
    url: str, table: str, *, user: str
) -> tuple[str, VerifyReport, tuple[int, str, str | None]]:
    """Quarantine `table` of the PostgreSQL store at `url` (see the module docstring); refused on a
    chain that verifies. Returns (the quarantine schema, the failed verification, the last good head)."""
    with open_store(url, table=table, migrate=False, allow_older=True) as store:
        if store.is_sqlite:
            raise DrrError("a SQLite store is quarantined by moving its file (engine.store.evidence)")
        try:
            report = verify(store, table)
        except DrrError as error:
            report = VerifyReport(ok=False, problem=str(error))
        if report.ok:
            raise DrrError(f"the journal of table {table} in {store.where} verifies: nothing to quarantine")
        key = keys.load(store.where, table)
        if key is None:
            raise DrrError(
                f"table {table} has no key for {store.where} on this computer: quarantine it from the "
                "table's own PC (its key names which chain the new one continues)"
            )
        last_good = _last_good(store, table, report)
        rounds_before = max(_rounds_used(store, table), key.rounds)  # the witness knows lost rounds
        stamp = report_time()
        name = _schema_name(store, table, stamp)
        head = _move_and_restart(store, table, user, key, report, last_good, rounds_before, name)
        keys.update(keys.load(store.where, table) or key, journaled=True, high_water=head, checkpoint=head[0])
        return name, report, last_good


def _schema_name(store: Store, table: str, stamp: str) -> str:
    text = f"{store.where}|{table}|{stamp}"
    return f"drr_quarantine_{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def _move_and_restart(
    store: Store,
    table: str,
    user: str,
    key: keys.TableKey,
    report: VerifyReport,
    last_good: tuple[int, str, str | None],
    rounds_before: int,
    name: str,
) -> tuple[int, str]:
    """Move the table's rows to the schema `name` and append the new chain's first entry, in one
    transaction; then the signed checkpoint of the new head."""
    with store.begin() as conn:
        live = conn.execute(sa.text("SELECT current_schema()")).scalar_one()
        conn.execute(sa.text(f'CREATE SCHEMA "{name}"'))
        for t in MOVED:
            conn.execute(
                sa.text(
                    f'CREATE TABLE "{name}"."{t.name}" AS '
                    f'SELECT * FROM "{live}"."{t.name}" WHERE table_id = :t'
                ),
                {"t": table},
            )
            conn.execute(sa.delete(t).where(t.c.table_id == table))
        digest, moved = _journal_digest(conn, name, table)
        damaged = f"{store.where} schema {name} ({moved} journal entries of table {table})"
        entry = quarantined_entry(table, user, damaged, digest, report, last_good, key.public, rounds_before)
        store.journal.append_in(conn, [entry])
    head = store.journal.checkpoint(table, "quarantine")
    if head is None:
        raise DrrError(f"table {table}: the quarantine entry was not written")
    return head
