"""Plain words of journal entries, made from the typed payloads (issue 22 item 2): every entry type
has its sentence declared once, by payload class; the bonus game's own words for a timed-out pick
("timeout") are told as the timer's; old and other writers' spellings are read by the payload class,
not by the describer."""

from __future__ import annotations

from engine.entry_types import EntryType
from engine.floor.describe import DESCRIPTIONS, describe, described_class
from engine.floor.recall import recall_round
from engine.journal_types import parse
from engine.store.history import RoundFilter, list_rounds
from tests.floor.played import DemoFloor


def test_every_entry_type_has_its_description() -> None:
    missing = [t.value for t in EntryType if described_class(t) not in DESCRIPTIONS]
    assert missing == []


def test_a_box_picked_when_the_timer_ran_out_says_so() -> None:
    # engine.bonus_game journals who picked as "player" or "timeout" (its Actor).
    p = {"player": "Carla", "round": 2, "box": 3, "by": "timeout", "at": 1.0}
    boxes = ["29", "X", "199/2", "50", "X"]
    assert describe("bonus.box_picked", p, boxes=boxes) == (
        "round 2: picked box 3 (random, the timer ran out) → 199/2"
    )
    mine = {**p, "by": "player"}
    assert describe("bonus.box_picked", mine, boxes=boxes) == "round 2: picked box 3 → 199/2"


def test_a_cash_out_when_the_timer_ran_out_says_it_was_the_preset() -> None:
    p = {"player": "Carla", "round": 4, "by": "timeout", "at": 1.0}
    assert describe("bonus.cashed_out", p) == "round 4: cashed out (the timer's preset)"
    assert describe("bonus.cashed_out", {**p, "by": "player"}) == "round 4: cashed out"


def test_another_writers_short_settled_form_is_read_by_its_payload_class() -> None:
    short = {"wagered": "10.00", "paid": "350.00"}
    settled = parse("round.settled", short)
    assert (str(settled.total_wagered), str(settled.total_paid)) == ("10.00", "350.00")  # type: ignore[union-attr]
    assert describe("round.settled", short) == "settled: wagered 10.00, won 350.00"


def test_an_early_journals_closed_entry_is_described_as_no_more_bets() -> None:
    p = {"lucky": [[17, "199/2"], [4, "29"]], "bonus_number": 8}
    assert describe("round.closed", p) == (
        "no more bets; Lucky Numbers 4 at 29 to 1, 17 at 199/2 to 1; Bonus Number 8"
    )


def test_unknown_and_unreadable_entries_are_told_by_name_and_plain_values() -> None:
    assert describe("wheel.sparkle", {"game": 3, "colour": "red"}) == "game 3: sparkle: colour red"
    assert describe("bonus.confetti", {"player": "Carla", "round": 1}) == "confetti: round 1"
    # a known type that cannot be read (no number): its name and what it holds, not a dump
    assert describe("round.result", {"source": "manual", "reason": "ball off"}) == (
        "result: source manual, reason ball off"
    )


def test_a_types_without_a_sentence_are_told_plainly() -> None:
    p = {"name": "dana", "role": "pit_boss", "old_role": "croupier"}
    assert describe("user.role_changed", p) == "role changed: name dana, role pit_boss, old role croupier"


def test_recall_tells_every_entry_of_a_bonus_round_as_describe_does(demo_floor: DemoFloor) -> None:
    store = demo_floor({"T1": 40})
    rounds = list(list_rounds(store, RoundFilter(table="T1"), limit=40, newest_first=True))
    bonus = next(r for r in rounds if recall_round(store, r["round_id"], "T1").bonus_outcomes)
    rec = recall_round(store, bonus["round_id"], "T1")
    for e in rec.entries:
        text = rec.text(e)
        assert text == describe(e.type, e.payload)
        assert "{" not in text and "None" not in text
    picked = [s.text for s in rec.bonus_steps if s.kind == "bonus.box_picked"]
    assert picked and all("→ ?" not in t for t in picked)  # the box's content named from the placing
