"""Test helper: journal entries built through their payload classes, so a fixture cannot journal a
payload the registry (engine.journal_types) would refuse to read back."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from engine.journal_types import Payload, Unknown, parse, write
from engine.store.journal import Journal
from engine.store.records import Entry, NewEvent

# The sha256 a fixture's round is opened under when the test does not load a Rules Submission.
RULES_SHA = "0" * 64


def typed(kind: str, payload: Mapping[str, Any] | None = None) -> Payload:
    """The payload class's value for `kind` (DrrError if the payload is incomplete or invalid)."""
    value = parse(kind, dict(payload or {}), where="test fixture")
    assert not isinstance(value, Unknown), f"{kind} is not an entry type"
    return value


def event(
    table: str,
    kind: str,
    payload: Mapping[str, Any] | None = None,
    *,
    round_id: str | None = None,
    user: str | None = None,
    time: datetime | str | None = None,
) -> NewEvent:
    """The NewEvent journaling `payload` as its class writes it (journal_types.write)."""
    return write(typed(kind, payload), table=table, round_id=round_id, user=user, time=time)


def append(
    journal: Journal,
    table: str,
    kind: str,
    payload: Mapping[str, Any] | None = None,
    *,
    round_id: str | None,
    user: str | None,
    time: datetime | str | None = None,
) -> Entry:
    """`Journal.append`, through the payload class of `kind`."""
    (entry,) = journal.append_many([event(table, kind, payload, round_id=round_id, user=user, time=time)])
    return entry
