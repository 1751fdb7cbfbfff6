"""Every entry type has its codec (a payload class in the registry that reads back what it writes),
a description of its own in describe, and a projection rule or an explicit no-projection declaration
(issue 22, item 2)."""

from __future__ import annotations

import pytest

from engine.entry_types import EntryType
from engine.floor.describe import DESCRIPTIONS, described_class
from engine.journal_types import _READERS, PAYLOAD_CLASSES
from engine.store import projections


@pytest.mark.parametrize("t", list(EntryType), ids=lambda t: t.value)
def test_every_type_has_its_codec(t: EntryType) -> None:
    cls = PAYLOAD_CLASSES[t]
    assert t in _READERS, f"{t.value} has no reader"
    assert callable(getattr(cls, "to_json", None)) and callable(getattr(cls, "from_json", None))


@pytest.mark.parametrize("t", list(EntryType), ids=lambda t: t.value)
def test_every_type_has_one_projection_rule_or_says_it_has_none(t: EntryType) -> None:
    declared = [
        t in projections.PROJECTIONS,
        t in projections.BY_USERS_JOURNAL,
        t in projections.NO_PROJECTION,
    ]
    assert declared.count(True) == 1, f"{t.value}: {declared}"


def test_the_projection_table_partitions_the_entry_types() -> None:
    rules, users, none = projections.PROJECTIONS, projections.BY_USERS_JOURNAL, projections.NO_PROJECTION
    assert set(rules) | users | none == set(EntryType)
    assert not (set(rules) & users or set(rules) & none or users & none)


@pytest.mark.parametrize("t", list(EntryType), ids=lambda t: t.value)
def test_every_type_has_its_description(t: EntryType) -> None:
    # describe's one table, keyed by the payload class (a bonus entry by its event's class).
    assert described_class(t) in DESCRIPTIONS, f"{t.value} has no sentence in engine.floor.describe"
