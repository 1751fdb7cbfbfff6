"""A payload's text is parsed once and typed once per entry on its way from the journal to the screen:
one batch stored (its projections), folded into the table's state, the read model built from it and
every entry described (issue 22, item 2)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine import journal_types
from engine.floor.demo import play_rounds
from engine.floor.describe import describe_entry
from engine.rng import SeededRng
from engine.store import open_store
from engine.store.journal import insert_entries, read_head, write_head
from engine.table.read_model import build_view
from engine.table.state import TableState


def test_one_json_parse_and_one_typing_per_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_store(str(tmp_path / "source.sqlite"), table="T1") as source:
        play_rounds(source, "T1", 4, bonus_every=2)
        entries = list(source.journal.entries("T1"))
    assert len(entries) > 40
    texts = {e.payload_text: e.seq for e in entries}
    parsed: Counter[int] = Counter()
    typed: Counter[int] = Counter()
    loads, parse = json.loads, journal_types._parse

    def counting_loads(text: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(text, str) and text in texts:
            parsed[texts[text]] += 1
        return loads(text, *args, **kwargs)

    def counting_parse(name: str, payload: Any) -> Any:
        typed[name] += 1  # type: ignore[index]
        return parse(name, payload)

    monkeypatch.setattr(json, "loads", counting_loads)
    monkeypatch.setattr(journal_types, "_parse", counting_parse)
    # The batch stored: its projections run over the same entries.
    with open_store(str(tmp_path / "floor.sqlite"), table="T1") as target, target.begin() as conn:
        head = read_head(conn, "T1", lock=True)
        insert_entries(conn, entries)
        write_head(conn, "T1", head, entries[-1].seq, entries[-1].hash)
    state = TableState("T1", SeededRng(1))
    for e in entries:
        state.apply_entry(e)
    build_view("T1", state, None, (), ())
    sentences = [describe_entry(e) for e in entries]
    assert all(sentences)
    # Several entries may share a text (two identical wheel messages): count per distinct text.
    per_text = Counter(e.payload_text for e in entries)
    assert all(parsed[seq] <= per_text[text] for text, seq in texts.items()), parsed
    assert sum(parsed.values()) <= len(entries)
    assert sum(typed.values()) <= len(entries), typed
