"""engine.codec: every entry type's payload class declares its fields once, and the codec's rules hold
(old spellings read from the field's metadata, None left out or written as declared, whole floats kept)."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import ClassVar

import pytest

from engine.codec import Invalid, Record, fact, maybe_whole
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.journal_types import PAYLOAD_CLASSES, parse
from engine.round import RoundSettled
from engine.table_events import PayoutApproved, TableStarted

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD_MODULES = ("table_events", "floor_events", "wheel_events", "round", "bonus_game")


def test_every_entry_type_reads_and_writes_through_the_codec() -> None:
    for t in EntryType:
        cls = PAYLOAD_CLASSES[t]
        assert issubclass(cls, Record), t
        assert cls.specs(), t  # every field has a coder (a hint without one fails here)


def test_no_payload_module_hand_writes_its_json() -> None:
    for name in PAYLOAD_MODULES:
        tree = ast.parse((ROOT / "engine" / f"{name}.py").read_text(encoding="utf-8"))
        written = [
            f"{node.name}.{fn.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            for fn in node.body
            if isinstance(fn, ast.FunctionDef) and fn.name in ("to_json", "from_json")
        ]
        assert written == [], name


def test_early_settlement_spellings_read_as_todays_totals() -> None:
    got = parse("round.settled", {"type": "round.settled", "wagered": "35", "paid": "70"})
    assert got == RoundSettled(Decimal("35"), Decimal("70"))
    assert got.to_json() == {"type": "round.settled", "total_wagered": "35", "total_paid": "70"}
    # today's spelling wins over an old one beside it
    both = parse("round.settled", {"total_wagered": "1", "wagered": "2", "total_paid": "3", "paid": "4"})
    assert both == RoundSettled(Decimal("1"), Decimal("3"))


def test_a_legacy_approval_is_written_in_todays_spelling() -> None:
    got = parse("payout.approved", {"amount": "900", "by": "pete"})
    assert got == PayoutApproved(None, Decimal("900"), None, "pete")
    assert got.to_json() == {"total": "900", "approved_by": "pete"}


def test_the_canonical_switch_is_optional_and_left_out_when_absent() -> None:
    started = TableStarted("croupier", 1, "system", 0, None, "idle")
    assert "canonical" not in started.to_json() and started.to_json()["round_in_play"] is None
    switched = TableStarted("croupier", 1, "system", 0, None, "idle", canonical="rfc8785")
    assert switched.to_json()["canonical"] == "rfc8785"
    assert TableStarted.from_json(switched.to_json()) == switched


@dataclass(frozen=True)
class _Sample(Record, tagged=True):
    type: ClassVar[EntryType] = EntryType.TABLE_NEXT_ROUND  # any type: the sample is not registered
    amount: Decimal = field(metadata=fact(legacy=("sum", "total")))
    odds: Fraction
    seconds: float
    unknown: str | None  # no default: written as null
    note: str | None = None  # default None: left out
    game: int | None = maybe_whole(null=True)
    path: tuple[int, ...] | None = field(default=None, metadata=fact(key="inner.path"))
    never: str | None = field(default=None, metadata=fact(journal=False))


def test_the_codec_rules() -> None:
    s = _Sample(Decimal("2.50"), Fraction(199, 2), 30.0, None, path=(3, 1), never="wire")
    out = s.to_json()
    assert out == {
        "type": EntryType.TABLE_NEXT_ROUND,
        "amount": "2.50",
        "odds": "199/2",
        "seconds": 30.0,
        "unknown": None,
        "game": None,
        "inner": {"path": [3, 1]},
    }
    assert json.dumps(out["seconds"]) == "30.0"  # a whole float stays a float
    assert s.wire_json()["never"] == "wire"
    assert _Sample.from_json(out) == _Sample(Decimal("2.50"), Fraction(199, 2), 30.0, None, path=(3, 1))
    # the first legacy key present; a value that is no whole number reads as no game (as always)
    old = _Sample.from_json({"total": "1", "odds": 2, "seconds": 1, "game": "x", "unknown": "u", "extra": 1})
    assert old == _Sample(Decimal("1"), Fraction(2), 1.0, "u")
    with pytest.raises(KeyError):
        _Sample.from_json({"odds": 2, "seconds": 1, "unknown": None})
    with pytest.raises(ValueError, match="is not an exact number of odds"):
        _Sample.from_json({"amount": 1, "odds": "many", "seconds": 1, "unknown": None})


def test_a_coders_refusal_names_the_field_and_value() -> None:
    with pytest.raises(DrrError, match=r"timer_restarted\) is malformed: round 'x' is not a whole number"):
        parse("bonus.timer_restarted", {"player": "a", "round": "x", "deadline": 1})
    with pytest.raises(DrrError, match="rpm 'fast' is not a decimal number"):
        parse("wheel.rotor", {"rpm": "fast", "direction": "cw"})
    assert issubclass(Invalid, ValueError)


def test_a_field_without_a_coder_is_refused_when_the_class_is_first_used() -> None:
    @dataclass(frozen=True)
    class Odd(Record):
        value: set[int]

    with pytest.raises(TypeError, match="no coder for"):
        Odd.specs()
