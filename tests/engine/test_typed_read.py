"""The registry's tolerant read (engine.journal_types.typed) and the one list of user entry types: a
reader that leaves a malformed payload to the chain's check gets None for it, never a traceback; the
users fold and the table fold name the same user types (engine.entry_types.USER_TYPES)."""

from __future__ import annotations

import json

from engine.entry_types import USER_TYPES, EntryType
from engine.floor_events import ChainKeyed, UserAdded
from engine.journal_types import Unknown, typed
from engine.store.records import Entry
from engine.table.state import NOT_FOLDED


def _entry(type_: str, payload: dict[str, object]) -> Entry:
    return Entry(
        "floor", 7, "2026-01-01T00:00:00.000000Z", None, None, type_, json.dumps(payload), "0" * 64, "1" * 64
    )


def test_typed_gives_the_payload_of_a_readable_entry() -> None:
    assert typed(_entry("chain.keyed", {"key": "ab" * 32})) == ChainKeyed("ab" * 32)


def test_typed_gives_none_for_a_malformed_payload_and_unknown_for_an_unknown_type() -> None:
    assert typed(_entry("chain.keyed", {"not_key": 1})) is None
    assert typed(_entry("user.added", {"name": "ann"})) is None  # no role
    assert typed(_entry("someone.elses", {"a": 1})) == Unknown("someone.elses", {"a": 1})


def test_user_types_are_the_user_entries_and_the_table_fold_skips_each() -> None:
    assert EntryType.USER_ADDED in USER_TYPES and UserAdded.type in USER_TYPES
    assert len(USER_TYPES) == 9
    assert USER_TYPES <= NOT_FOLDED
