"""RFC 8785 (JCS) canonical JSON for new entries, the legacy rule kept for entries written before
(issue 23 finding 8): a lab's off-the-shelf RFC 8785 library recomputes every hash of a table chain
from its switch (`table.started` with `"canonical": "rfc8785"`) on, and old journals still verify."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.store import Store, open_store
from engine.store.canonical import LEGACY, RFC8785, canonical_json, jcs, payload_text
from engine.store.journal import Journal
from engine.store.records import Entry
from engine.store.verify import entry_problem, verify
from tests.table.helpers import CROUPIER, make_service, spin, wheel

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "recompute_hashes.py"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "table.sqlite"), table="T1") as s:
        yield s


class Clock:
    def __init__(self) -> None:
        self.now = 2_000_000.0

    def __call__(self) -> float:
        return self.now


def _play(store: Store) -> None:
    """A table started by the service with a commanded wheel: one round, its betting time journaled."""

    async def go() -> None:
        clock = Clock()
        svc = make_service(store, clock=clock, betting_seconds=20)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 3})
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
        clock.now += 20.5
        await svc.tick_clock()
        await wheel(svc, *spin(3, 17)[1:])
        await svc.close()

    asyncio.run(go())


def _recompute(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(path), *args], capture_output=True, text=True, timeout=120
    )


def _lab_hash(e: Entry, rule: str) -> str:
    record = {
        "payload": json.loads(e.payload_text),
        "prev_hash": e.prev_hash,
        "round_id": e.round_id,
        "seq": e.seq,
        "table": e.table,
        "time": e.time,
        "type": e.type,
        "user": e.user,
    }
    data = rfc8785.dumps(record) if rule == RFC8785 else canonical_json(record).encode()
    return hashlib.sha256(data).hexdigest()


def test_a_played_table_chain_recomputes_with_a_standard_rfc8785_library(
    store: Store, tmp_path: Path
) -> None:
    _play(store)
    entries = list(store.journal.entries("T1"))
    assert entries[0].type == E.TABLE_STARTED and entries[0].payload["canonical"] == "rfc8785"
    [betting] = [e for e in entries if e.type == E.TABLE_BETTING_TIME]
    assert betting.payload_text == '{"deadline":2000020,"seconds":20}'  # the legacy rule: 2000020.0, 20.0
    assert all(_lab_hash(e, RFC8785) == e.hash for e in entries)
    assert verify(store).ok
    r = _recompute(tmp_path / "table.sqlite")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(
        f"table T1: {len(entries)} entries, every hash recomputed (RFC 8785 from entry 1)"
    )


def test_the_script_names_the_first_entry_that_does_not_recompute(store: Store, tmp_path: Path) -> None:
    _play(store)
    db = sqlite3.connect(tmp_path / "table.sqlite")
    with db:
        db.execute("UPDATE journal SET payload = replace(payload, '\"seconds\":20}', '\"seconds\":21}')")
    seq = next(e.seq for e in store.journal.entries("T1") if e.type == E.TABLE_BETTING_TIME)
    r = _recompute(tmp_path / "table.sqlite")
    assert r.returncode == 1 and r.stderr.startswith(f"table T1 entry {seq}: its hash does not recompute")
    assert _recompute(tmp_path / "absent.sqlite").returncode == 2


def test_an_old_journal_with_floats_verifies_and_recomputes_by_the_legacy_rule(
    store: Store, tmp_path: Path
) -> None:
    """Entries written before the switch (no `canonical` in any table.started) keep their legacy text."""
    j = Journal(store)
    old_start = {"station": "croupier", "pid": 1, "rng": "os", "recovered_to": 0, "round_in_play": None}
    j.append("T1", E.TABLE_STARTED, {**old_start, "phase": "idle"}, round_id=None, user=None)
    j.append("T1", E.TABLE_BETTING_TIME, {"seconds": 5.0, "deadline": 1e-07}, round_id=None, user=None)
    texts = [e.payload_text for e in store.journal.entries("T1")]
    assert texts[1] == '{"deadline":1e-07,"seconds":5.0}'  # as journals were always written
    assert verify(store).ok
    r = _recompute(tmp_path / "table.sqlite")
    assert r.returncode == 0 and "all by the legacy rule" in r.stdout, r.stderr
    # The table is upgraded: its next start switches the chain, later entries are RFC 8785 text.
    j2 = Journal(store)  # another process
    j2.append(
        "T1",
        E.TABLE_STARTED,
        {**old_start, "phase": "idle", "canonical": "rfc8785"},
        round_id=None,
        user=None,
    )
    Journal(store).append(
        "T1", E.TABLE_BETTING_TIME, {"seconds": 5.0, "deadline": 1e-07}, round_id=None, user=None
    )
    last = list(store.journal.entries("T1"))[-1]
    assert last.payload_text == '{"deadline":1e-7,"seconds":5}'
    assert verify(store).ok
    r = _recompute(tmp_path / "table.sqlite")
    assert r.returncode == 0 and "RFC 8785 from entry 3" in r.stdout, r.stderr


def test_verify_holds_each_entry_to_its_chains_rule(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry written by the wrong rule for its place in the chain (e.g. by an old program after the
    switch) hashes, but is not canonical where it stands: verify names it."""
    j = Journal(store)
    start = {"station": "c", "pid": 1, "rng": "os", "recovered_to": 0, "round_in_play": None, "phase": "idle"}
    j.append("T1", E.TABLE_STARTED, {**start, "canonical": "rfc8785"}, round_id=None, user=None)
    monkeypatch.setattr(Journal, "_rule", lambda *_: LEGACY)  # an old writer
    j.append("T1", E.TABLE_BETTING_TIME, {"seconds": 5.0, "deadline": 2.5}, round_id=None, user=None)
    report = verify(store)
    assert not report.ok and report.bad_seq == 2 and "canonical" in (report.problem or "")
    bad = list(store.journal.entries("T1"))[1]
    assert entry_problem(bad, None, RFC8785) == "payload is not in canonical form (edited)"
    assert entry_problem(bad, None, LEGACY) is None
    assert entry_problem(bad, None) is None  # a reader that does not know the chain's place: either rule


def test_jcs_text_before_the_switch_is_refused(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    j = Journal(store)
    monkeypatch.setattr(Journal, "_rule", lambda *_: RFC8785)
    j.append("T1", E.TABLE_BETTING_TIME, {"seconds": 5.0, "deadline": 1e-07}, round_id=None, user=None)
    report = verify(store)
    assert not report.ok and report.bad_seq == 1 and "canonical" in (report.problem or "")


# --- the serialiser against the rfc8785 library -------------------------------------------------


class Colour(Enum):
    RED = "red"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (5.0, "5"),
        (1e-07, "1e-7"),
        (1e21, "1e+21"),
        (1e16, "10000000000000000"),
        (123456789.125, "123456789.125"),
        (-0.0, "0"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (0.1 + 0.2, "0.30000000000000004"),
        (2**53 - 1, "9007199254740991"),
    ],
)
def test_numbers_as_rfc8785_writes_them(value: float, text: str) -> None:
    assert payload_text({"n": value}, RFC8785) == '{"n":' + text + "}" == rfc8785.dumps({"n": value}).decode()


def test_keys_outside_the_bmp_sort_by_utf16_code_units() -> None:
    payload = {"\U0001f600": 1, "\uffff": 2, "a": 3.5, "\u00e9": 4}
    text = payload_text(payload, RFC8785)
    assert text == '{"a":3.5,"é":4,"\U0001f600":1,"\uffff":2}' == rfc8785.dumps(payload).decode()
    assert canonical_json(payload).index("\U0001f600") > canonical_json(payload).index("\uffff")  # legacy


def test_escapes_and_the_program_s_own_types() -> None:
    payload = {
        "s": '\x00\x1f"\\\u2028\x7f\n\t é',
        "amount": Decimal("12.50"),
        "odds": Fraction(49, 2),
        "colour": Colour.RED,
        "at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        "set": {3, 1, 2},
        "int_keys": {10: "a", 9: 1.0},
        "nested": [1.0, [2.5e-8], {"x": None, "y": True}],
    }
    text = payload_text(payload, RFC8785)
    assert text == rfc8785.dumps(json.loads(canonical_json(payload))).decode()
    assert json.loads(text)["int_keys"] == {"10": "a", "9": 1}
    assert payload_text({"s": "\x01é"}, RFC8785) == payload_text(
        {"s": "\x01é"}, LEGACY
    )  # no float: same bytes


def test_an_integer_rfc8785_cannot_write_exactly_is_refused_in_one_line() -> None:
    with pytest.raises(TypeError, match="write such a number as a string"):
        payload_text({"n": 2**53 + 1}, RFC8785)  # no IEEE double is it
    assert payload_text({"n": 2**53 + 1}, LEGACY) == '{"n":9007199254740993}'  # the legacy rule, as before
    with pytest.raises(TypeError):
        payload_text({"n": 2**60}, RFC8785)  # its double's text is 1152921504606847000
    assert payload_text({"n": 2.0**60}, RFC8785) == '{"n":1152921504606847000}'
    assert jcs(json.loads('{"n":1152921504606847000}')) == '{"n":1152921504606847000}'  # reads back


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_any_payload_is_written_as_rfc8785_writes_it(payload: dict[str, Any]) -> None:
    text = payload_text(payload, RFC8785)
    assert text == rfc8785.dumps(payload).decode()
    assert jcs(json.loads(text)) == text  # and it reads back to the same text
