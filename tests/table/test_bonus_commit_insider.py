"""The bonus boxes against a reader of the journal (issue 24, finding 10): at placement the journal holds a
commitment to the contents (and the contents sealed to the table's key), never where the X is; after the
pick it reveals contents and nonce, and the fold, recall and verify check them against the commitment.
An old journal, with the contents at placement, still replays and recalls."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from typing import Any

import pytest

from engine.bonus_game import (
    BonusGame,
    BoxesPlaced,
    BoxesRevealed,
    BoxPicked,
    GameStarted,
    X,
    box_commitment,
)
from engine.errors import IllegalTransition
from engine.floor.recall import recall_round
from engine.store import Store
from engine.store.verify import verify
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, make_service
from tests.table.test_bonus_and_recovery import FakeClock, to_bonus


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def _bonus_entries(store: Store) -> list[tuple[int, str, dict[str, Any]]]:
    return [
        (e.seq, e.type, json.loads(e.payload_text))
        for e in store.journal.entries("T1")
        if e.type.startswith("bonus.")
    ]


def test_the_journal_commits_to_the_boxes_and_reveals_them_after_the_pick(store: Store) -> None:
    async def go() -> TableService:
        svc = make_service(store, seed=11)
        await to_bonus(svc)
        await svc.bonus_start(CROUPIER, "dora")
        game = svc.state.games["dora"]
        while not game.finished:
            # what a reader of the journal knows now, with the boxes on the screen and no pick yet
            placed = [p for _, t, p in _bonus_entries(store) if t == "bonus.boxes_placed"][-1]
            assert placed["boxes"] == [] and X not in json.dumps(placed)
            assert len(placed["commitment"]) == 64 and placed["sealed"]
            if game.can_cash_out:
                await svc.bonus_cash_out(CROUPIER, "dora")
            else:
                await svc.bonus_pick(CROUPIER, "dora", 2)
        return svc

    svc = run(go())
    entries = _bonus_entries(store)
    kinds = [t for _, t, _ in entries]
    placed = {p["round"]: p for _, t, p in entries if t == "bonus.boxes_placed"}
    revealed = {p["round"]: p for _, t, p in entries if t == "bonus.boxes_revealed"}
    assert set(placed) == set(revealed)  # every committed round revealed, the last one too
    for r, p in revealed.items():
        boxes = [X if b == X else Fraction(b) for b in p["boxes"]]
        assert box_commitment(r, boxes, bytes.fromhex(p["nonce"])) == placed[r]["commitment"]
        # the reveal comes after the round's pick or cash-out, never before
        choice = next(
            i
            for i, (_, t, q) in enumerate(entries)
            if t in ("bonus.box_picked", "bonus.cashed_out") and q["round"] == r
        )
        assert kinds.index("bonus.boxes_revealed", choice) == choice + 1
    # recall names what each picked box held (from the reveal) and verify accepts the chain
    round_id = svc.state.round.round_id if svc.state.round else None
    assert round_id is not None
    steps = [s.text for s in recall_round(store, round_id, "T1").bonus_steps]
    assert any("boxes placed, contents committed" in t for t in steps)
    assert any(t.startswith("round 1: picked box 2 → ") and not t.endswith("→ ?") for t in steps)
    assert not any("NOT the contents committed" in t for t in steps)
    assert verify(store, "T1").ok


def test_a_restart_between_placement_and_pick_opens_the_tables_own_seal(store: Store) -> None:
    clock = FakeClock()

    async def first() -> tuple[int, Any]:
        svc = make_service(store, clock=clock)
        await to_bonus(svc)
        await svc.bonus_start(CROUPIER, "dora")
        game = svc.state.games["dora"]
        await svc.bonus_pick(CROUPIER, "dora", 1)
        return game.round, game.outcome

    r, outcome = run(first())

    async def second() -> BonusGame:
        svc = make_service(store, clock=clock)
        await svc.start()  # the committed boxes of the round in play are opened with the table's key
        game = svc.state.games["dora"]
        if not game.finished:
            assert game.round == r
            await svc.bonus_pick(CROUPIER, "dora", 4)
        return svc.state.games["dora"]

    if outcome is None:  # the first pick was not the X: the game goes on after the restart
        game = run(second())
        assert len(game.picks) == 2 and game.picks[-1].content is not None
    assert verify(store, "T1").ok


def _sealed_game() -> tuple[BonusGame, list[Any]]:
    from engine.bonus_game import BoxSeal
    from engine.rng import SeededRng
    from engine.rules import load_default_rules

    rules = load_default_rules()
    seal = BoxSeal(b"k" * 32, "T1|T1-000001|dora")
    game = BonusGame.start(rules, SeededRng(5), player="dora", seal=seal, clock=lambda: 100.0)
    events = list(game.events) + game.pick(3)
    return game, events


def test_a_reveal_that_is_not_the_commitment_is_refused_by_the_fold() -> None:
    _, events = _sealed_game()
    reveal = next(i for i, e in enumerate(events) if isinstance(e, BoxesRevealed))
    e = events[reveal]
    assert isinstance(events[reveal - 1], BoxPicked)
    # an insider moves the X after the pick: the contents no longer open the commitment
    moved = tuple(reversed(e.boxes)) if e.boxes != tuple(reversed(e.boxes)) else e.boxes[1:] + e.boxes[:1]
    forged = [*events[:reveal], BoxesRevealed(e.round, moved, e.nonce), *events[reveal + 1 :]]
    with pytest.raises(IllegalTransition, match="not the ones committed when the boxes were placed"):
        BonusGame.replay(forged)
    # a reader without the table's key replays the honest events: the pick's content from the reveal
    honest = BonusGame.replay(events)
    assert honest.picks[0].content == e.boxes[2]
    # and a reveal before the pick is no reveal
    early = [*events[: reveal - 1], e, events[reveal - 1], *events[reveal + 1 :]]
    with pytest.raises(IllegalTransition, match="were picked or cashed out"):
        BonusGame.replay(early)


def test_an_old_journal_with_the_contents_at_placement_still_replays() -> None:
    from engine.rules import load_default_rules

    rules = load_default_rules()
    first = rules.bonus_rounds[0]
    boxes = (next(iter(first)),) * 5  # round 1: five multipliers, no X
    old = [
        GameStarted("dora", "cash_out", 20),
        BoxesPlaced(1, boxes, 1.0, 21.0),
        BoxPicked(1, 1, "player", 2.0),
    ]
    game = BonusGame.replay(old, rules=rules)
    assert game.picks[0].content == boxes[0] and game.boxes == boxes
    from engine.floor.describe import describe_payload
    from engine.table_events import PlayerBonusEvent

    assert "boxes placed " in describe_payload(PlayerBonusEvent("dora", old[1]))


def test_a_key_rotation_in_the_middle_of_a_bonus_game_leaves_the_sealed_boxes_openable(store: Store) -> None:
    """Issue 24: the boxes of the round in play are sealed under a key derived from the table key's MAC
    key. Before, `drr db rotate-key` with a bonus game open left them sealed under the old key, and the
    next start refused the table ("the sealed boxes of round N do not open with this table's key"): the
    game could be neither finished nor the table started. The retired key's MAC key (kept in the key
    file) opens them; boxes placed after the rotation are sealed under the new key."""
    from engine.store import keys
    from engine.store.evidence import rotate_key

    clock = FakeClock()

    async def first() -> int:
        svc = make_service(store, clock=clock)
        await to_bonus(svc)
        await svc.bonus_start(CROUPIER, "dora")
        r = svc.state.games["dora"].round
        await svc.close()
        return r

    r = run(first())
    old = keys.load(store.where, "T1")
    assert old is not None
    rotate_key(store, "T1", user="admin")  # the table stopped, the bonus game open

    async def second() -> BonusGame:
        svc = make_service(store, clock=clock)
        await svc.start()  # the boxes sealed under the old key open with its retired MAC key
        game = svc.state.games["dora"]
        assert game.round == r and not game.finished
        while not game.finished:
            if game.can_cash_out:
                await svc.bonus_cash_out(CROUPIER, "dora")
            else:
                await svc.bonus_pick(CROUPIER, "dora", 2)
        await svc.close()
        return game

    game = run(second())
    assert game.finished
    new = keys.load(store.where, "T1")
    assert new is not None and new.public != old.public
    # and the table starts again on the finished game, every round revealed against its commitment
    run(make_service(store, clock=clock).start())
    placed = {p["round"] for _, t, p in _bonus_entries(store) if t == "bonus.boxes_placed"}
    revealed = {p["round"] for _, t, p in _bonus_entries(store) if t == "bonus.boxes_revealed"}
    assert placed == revealed
    assert verify(store, "T1").ok
