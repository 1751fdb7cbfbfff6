"""A chain whose head row is missing: found cheaply, and named in one line by every reader and writer.

The head row (`chain_heads`) is where an append starts from; removed with plain SQL it would make
the next entry reuse number 1 (an IntegrityError) and make the table invisible to readers that list
tables by their heads. `missing_heads` finds such chains with one index walk per table (a loose
index scan over the journal's primary key, on SQLite and PostgreSQL alike), `refuse_missing_heads`
stops a reader or writer with the same one line `drr audit verify` gives.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine.errors import DrrError
from engine.store import schema

# Every table id in the journal, one index probe each (not a scan of every entry).
_TABLE_IDS = sa.text(
    "WITH RECURSIVE t(id) AS ("
    " SELECT MIN(table_id) FROM journal"
    " UNION ALL SELECT (SELECT MIN(table_id) FROM journal WHERE table_id > t.id)"
    " FROM t WHERE t.id IS NOT NULL"
    ") SELECT id FROM t WHERE id IS NOT NULL"
)


def missing_head_problem(table: str) -> str:
    return (
        f"table {table}: the chain head row is missing (removed), yet the journal has entries: the store "
        "was changed outside the table; nothing is read or written until it is sorted out "
        "(check it with drr audit verify; docs/journal-evidence.md)"
    )


def missing_heads(conn: Connection, tables: list[str] | None = None) -> list[str]:
    """The tables (of `tables`, or every table) with journal entries but no head row."""
    names = list(conn.execute(_TABLE_IDS).scalars()) if tables is None else tables
    if not names:
        return []
    h, j = schema.chain_heads, schema.journal
    with_heads = set(conn.execute(sa.select(h.c.table_id).where(h.c.table_id.in_(names))).scalars())
    missing = []
    for name in names:
        if name in with_heads:
            continue
        if conn.execute(sa.select(j.c.seq).where(j.c.table_id == name).limit(1)).first() is not None:
            missing.append(name)
    return sorted(missing)


def refuse_missing_heads(conn: Connection, tables: list[str] | None = None) -> None:
    """DrrError naming the first chain whose head row is missing (see the module docstring)."""
    missing = missing_heads(conn, tables)
    if missing:
        raise DrrError(missing_head_problem(missing[0]))
