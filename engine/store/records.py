"""The journal's records (what is stored and what is appended), pure data: the bottom of engine.store.

No SQLAlchemy here, so the pure table fold (engine.table.state) and the entry registry
(engine.journal_types) can take entries without the database. The layers above: db, journal,
projections, forward (the import-linter contract in pyproject.toml keeps that order).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class Entry:
    """One journal entry as stored; `payload_text` is the canonical JSON the hash covers."""

    table: str
    seq: int
    time: str
    user: str | None
    round_id: str | None
    type: str  # as stored: today's EntryType value, or an old journal's spelling (engine.entry_types.LEGACY)
    payload_text: str
    prev_hash: str
    hash: str
    mac: str | None = None  # HMAC over `hash` by the table's key (engine.store.keys), None if unsigned
    # On the floor chain of a PostgreSQL floor database (engine.store.floor_sign): the writer's public
    # key and its Ed25519 signature over (table, seq, hash); None elsewhere.
    signer: str | None = None
    sig: str | None = None

    # Parsed once per entry: every reader on the way from the journal to the screen (projections,
    # the fold, the read model, describe) takes the same dict; none of them may change it. The typed
    # payload is cached beside it by engine.journal_types.read (`cache`), so it is typed once too.
    # Neither is a field: equality, hashing and repr stay those of the stored columns.
    @cached_property
    def payload(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.payload_text)
        return value

    @cached_property
    def cache(self) -> dict[str, Any]:
        """What the readers above derive from this entry once (the typed payload), by their key."""
        return {}

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "seq": self.seq,
            "time": self.time,
            "user": self.user,
            "round_id": self.round_id,
            "type": self.type,
            "payload": self.payload,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


@dataclass(frozen=True)
class NewEvent:
    """An event to append with `Journal.append_many` (made by engine.journal_types.write)."""

    table: str
    type: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    round_id: str | None = None
    user: str | None = None
    time: datetime | str | None = None


def row_to_entry(row: Any) -> Entry:
    """An `Entry` from a row of the journal table (any object with its columns as attributes)."""
    return Entry(
        table=row.table_id,
        seq=int(row.seq),
        time=row.time,
        user=row.user_name,
        round_id=row.round_id,
        type=row.type,
        payload_text=row.payload,
        prev_hash=row.prev_hash,
        hash=row.hash,
        mac=getattr(row, "mac", None),  # an older schema's row has none
        signer=getattr(row, "signer", None),
        sig=getattr(row, "sig", None),
    )
