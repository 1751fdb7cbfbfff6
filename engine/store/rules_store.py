"""The Rules Submissions a store holds, by sha256: the one reader of the rules a round was played under.

Every reader that needs a round's rules (recall, the pit boss's approvals, reports, history, the
projections) calls `rules_for(store_or_conn, round's rules_sha256)`. The rows of `rules_submissions`
come from the journal's `table.rules_loaded` entries (and the pit-boss station's legacy
`rules.changed`), which keep the full text: `record_rules` (the projections, on append and on
`drr db rebuild`) and `backfill` (migration 0006) store it. The journal stays the evidence; the
stored text is checked against its sha256 whenever it is read from the store, and a mismatch is
refused. A sha256 identifies its text exactly, so the parsed rules are cached by sha256 for the
life of the process (parsed once). The shipped default Rules Submission is known without the store:
journals written before tables journaled their rules (the old demo floor) name only its sha256.
"""

from __future__ import annotations

import hashlib
import tomllib
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine import journal_types  # the module: it may still be loading (engine.store.projections says why)
from engine.entry_types import LEGACY, EntryType
from engine.errors import DrrError
from engine.rules import RulesSubmission, load_default_rules, parse_rules
from engine.store import schema
from engine.store.records import Entry, row_to_entry
from engine.table_events import RulesLoaded

if TYPE_CHECKING:
    from engine.store.db import Store

# The entry types that carry a Rules Submission's text: today's and the legacy spelling.
RULES_TYPES: tuple[str, ...] = (
    EntryType.TABLE_RULES_LOADED.value,
    *(old for old, new in LEGACY.items() if new is EntryType.TABLE_RULES_LOADED),
)

_CACHE: dict[str, RulesSubmission] = {}


def sha256_of(text: str) -> str:
    """The sha256 of a Rules Submission's text as it was loaded (its UTF-8 bytes)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rules_for(source: Store | Connection, sha256: str) -> RulesSubmission:
    """The Rules Submission with this sha256 (parsed once per process); DrrError when the store does
    not hold it or holds a text that does not hash to it."""
    cached = _CACHE.get(sha256)
    if cached is not None:
        return cached
    if isinstance(source, Connection):
        text = _stored_text(source, sha256)
        where = "the store"
    else:
        with source.read() as conn:
            text = _stored_text(conn, sha256)
        where = source.where
    if text is None:
        shipped = load_default_rules()
        if shipped.sha256 != sha256:
            raise DrrError(f"Rules Submission {sha256} is not in {where}: no table there loaded it")
        rules = shipped
    else:
        if sha256_of(text) != sha256:
            raise DrrError(
                f"the stored Rules Submission {sha256} does not hash to its sha256 (altered?): "
                "run drr audit verify, then drr db rebuild"
            )
        rules = parse_rules(text.encode("utf-8"), source=f"Rules Submission {sha256[:12]} of {where}")
    _CACHE[sha256] = rules
    return rules


def forget_cached() -> None:
    """Drop the parsed rules (tests that alter a store's rows behind its back)."""
    _CACHE.clear()


def _stored_text(conn: Connection, sha256: str) -> str | None:
    t = schema.rules_submissions
    found = conn.execute(sa.select(t.c.text).where(t.c.sha256 == sha256)).scalar()
    return None if found is None else str(found)


def _name(loaded: RulesLoaded) -> str:
    if loaded.name is not None:
        return loaded.name
    try:  # the pit-boss station's rules.changed names no name: the text does
        return str(tomllib.loads(loaded.text).get("name", ""))
    except tomllib.TOMLDecodeError:
        return ""


def check_rules_text(entry: Entry, loaded: RulesLoaded) -> None:
    """DrrError unless a rules entry's text hashes to its sha256 (what `record_rules` checks before
    it stores; a fold that stores nothing, engine.store.derived_check's on a read snapshot, checks it
    alone)."""
    if sha256_of(loaded.text) != loaded.sha256:
        what = f"journal entry {entry.seq} ({entry.type}) of table {entry.table}"
        raise DrrError(f"{what}: the Rules Submission's text does not hash to its sha256 {loaded.sha256}")


def record_rules(conn: Connection, entry: Entry, loaded: RulesLoaded) -> None:
    """Keep the Rules Submission of a rules entry (projections; `loaded` is its typed payload,
    engine.journal_types.read); refuses text that is not its sha256."""
    check_rules_text(entry, loaded)
    text, sha = loaded.text, loaded.sha256
    t = schema.rules_submissions
    row = {
        "sha256": sha,
        "name": _name(loaded),
        "text": text,
        "first_time": entry.time,
        "first_table": entry.table,
        "first_seq": entry.seq,
    }
    from sqlalchemy.dialects import postgresql, sqlite

    stmt = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(t).values(row)
    first = (t.c.first_time, t.c.first_table, t.c.first_seq)
    new = (stmt.excluded.first_time, stmt.excluded.first_table, stmt.excluded.first_seq)
    # Whatever order tables load (or are rebuilt, or forwarded), the row names the earliest sighting;
    # two stations loading the same rules at once do not collide.
    conn.execute(
        stmt.on_conflict_do_update(
            index_elements=[t.c.sha256],
            set_={c.name: n for c, n in zip(first, new, strict=True)},
            where=sa.tuple_(*new) < sa.tuple_(*first),
        )
    )


def backfill(conn: Connection, table: str | None = None) -> int:
    """Store the Rules Submission of every rules entry already in the journal; returns their number."""
    j = schema.journal
    # Not `mac`, `signer`, `sig`: migration 0006 runs this on a journal that 0008 and 0013 give those
    # columns only later.
    later = {"mac", "signer", "sig"}
    query = sa.select(*(c for c in j.c if c.name not in later)).where(j.c.type.in_(RULES_TYPES))
    if table is not None:
        query = query.where(j.c.table_id == table)
    count = 0
    for row in conn.execute(query.order_by(j.c.table_id, j.c.seq)).all():
        entry = row_to_entry(row)
        loaded = journal_types.read(entry)
        if not isinstance(loaded, RulesLoaded):
            raise DrrError(f"journal entry {entry.seq} ({entry.type}) of table {entry.table} holds no rules")
        record_rules(conn, entry, loaded)
        count += 1
    return count
