"""Recall of the last ten games (a lab duty): each of a table's ten newest rounds recalled whole,
bonus games step by step, from the journal."""

from __future__ import annotations

from engine.floor.recall import recall_round
from engine.store.history import RoundFilter, list_rounds
from tests.floor.played import DemoFloor


def test_the_last_ten_games_are_recalled_with_every_bonus_step(demo_floor: DemoFloor) -> None:
    store = demo_floor({"T1": 40})
    last = list(list_rounds(store, RoundFilter(table="T1"), limit=10, newest_first=True))
    assert [r["round_id"] for r in last] == [f"T1-{n:06d}" for n in range(40, 30, -1)]
    bonus_rounds = 0
    for row in last:
        rec = recall_round(store, row["round_id"], "T1")
        assert rec.result == row["result"] and rec.bonus_number == row["bonus_number"]
        assert rec.lucky and rec.wagers and len(rec.settlements) == len(rec.wagers)
        assert rec.total_wagered == sum(w.amount for w in rec.wagers)
        if rec.bonus_outcomes:
            bonus_rounds += 1
            assert rec.result == rec.bonus_number
            for player, outcome in rec.bonus_outcomes.items():
                steps = [s.kind for s in rec.bonus_steps if s.player == player]
                assert steps[0] == "bonus.started" and "bonus.ended" in steps
                assert steps[-1] == "round.bonus_outcome"  # the outcome the round is paid with
                assert "bonus.boxes_placed" in steps
                assert "bonus.box_picked" in steps or "bonus.cashed_out" in steps
                assert 29 <= outcome <= 4999
    assert bonus_rounds >= 1  # the demo floor's round 40 is a bonus round
