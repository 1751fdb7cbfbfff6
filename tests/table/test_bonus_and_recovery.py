"""Bonus games through the service (picks, cash-out, timers) and restarts rebuilt from the journal."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.errors import DrrError, IllegalTransition
from engine.store import Store
from engine.table.recovery import rebuild
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, PITBOSS, WATCHER, cover_everything, make_service, wheel


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def to_bonus(svc: TableService) -> None:
    """A round whose ball lands on the Bonus Number with dora covering every number."""
    await svc.start()
    await wheel(svc, {"type": "started", "game": 7})
    await svc.open_bets(CROUPIER)
    await cover_everything(svc)
    await wheel(svc, {"type": "launched", "game": 7}, {"type": "no_more_bets", "game": 7})
    assert svc.round is not None and svc.round.draw is not None
    await wheel(svc, {"type": "result", "game": 7, "number": svc.round.draw.bonus_number})
    await svc.confirm_result(CROUPIER)
    assert svc.phase == "bonus" and svc.round.bonus_players == ("dora",)


def test_a_bonus_game_is_played_through_the_service(store: Store) -> None:
    async def go() -> TableService:
        svc = make_service(store, seed=11)
        await to_bonus(svc)
        with pytest.raises(IllegalTransition, match="bonus games not finished"):
            await svc.settle(CROUPIER)
        with pytest.raises(DrrError):
            await svc.bonus_pick(WATCHER, "dora", 1)
        await svc.set_bonus_preset(CROUPIER, "dora", "random")
        await svc.bonus_start(CROUPIER, "dora")
        with pytest.raises(IllegalTransition, match="preset is fixed"):
            await svc.set_bonus_preset(CROUPIER, "dora", "cash_out")
        game = svc.state.games["dora"]
        assert game.preset == "random"
        while not game.finished:
            if game.can_cash_out:
                await svc.bonus_cash_out(CROUPIER, "dora")
            else:
                await svc.bonus_pick(CROUPIER, "dora", 3)
        assert svc.round is not None and svc.round.bonus_odds["dora"] == game.outcome
        if svc.approval_needed() is not None:
            await svc.approve_payout(PITBOSS)
        await svc.settle(CROUPIER)
        return svc

    svc = run(go())
    assert svc.phase == "settled"
    kinds = [e.type for e in store.journal.entries("T1")]
    assert kinds.count("round.bonus_outcome") == 1 and kinds.count("bonus.ended") == 1
    assert kinds.index("bonus.ended") < kinds.index("round.bonus_outcome") < kinds.index("round.settled")


def test_the_timer_applies_the_timeout_rule(store: Store) -> None:
    clock = FakeClock()

    async def go() -> TableService:
        svc = make_service(store, clock=clock)
        await to_bonus(svc)
        await svc.bonus_start(CROUPIER, "dora")
        game = svc.state.games["dora"]
        assert await svc.tick_bonus_games() == []  # not due yet
        clock.now = game.deadline + 0.5  # type: ignore[operator]
        entries = await svc.tick_bonus_games()
        assert [e.type for e in entries][:2] == ["bonus.timer_expired", "bonus.box_picked"]
        assert entries[1].payload["by"] == "timeout" and entries[1].user == "timer"
        with pytest.raises(IllegalTransition, match="ran out"):
            clock.now = game.deadline + 1  # type: ignore[operator]
            await svc.bonus_pick(CROUPIER, "dora", 1)
        return svc

    run(go())


def test_the_asyncio_timer_fires_on_its_own(store: Store) -> None:
    clock = FakeClock()

    async def go() -> list[str]:
        svc = make_service(store, clock=clock)
        await to_bonus(svc)
        await svc.bonus_start(CROUPIER, "dora")
        # The timer task has not run yet; when it does, the countdown has already run out.
        clock.now += 1000
        game = svc.state.games["dora"]
        for _ in range(100):
            await asyncio.sleep(0.02)
            if any(p.by == "timeout" for p in game.picks) or game.finished:
                break
        await svc.close()
        return [e.type for e in store.journal.entries("T1")]

    kinds = run(go())
    assert "bonus.timer_expired" in kinds


def test_restart_mid_bonus_resumes_at_its_round_with_a_fresh_timer(store: Store) -> None:
    clock = FakeClock()
    before: dict[str, Any] = {}

    async def first() -> None:
        svc = make_service(store, clock=clock)
        await to_bonus(svc)
        await svc.bonus_start(CROUPIER, "dora")
        game = svc.state.games["dora"]
        while game.round < 2 and not game.finished:
            await svc.bonus_pick(CROUPIER, "dora", 1)
        before.update(
            round=game.round,
            picks=list(game.picks),
            deadline=game.deadline,
            finished=game.finished,
            draw=svc.round.draw,  # type: ignore[union-attr]
            wagers=svc.round.wagers,  # type: ignore[union-attr]
        )
        # The process dies here: no close(), no checkpoint.

    run(first())
    if before["finished"]:
        pytest.skip("seeded game ended on an X in round 1")  # pragma: no cover - fixed seed avoids it
    clock.now += 3600  # the table was down an hour: the old deadline passed long ago

    async def second() -> TableService:
        svc = make_service(store, clock=clock, seed=99)
        await svc.start()
        assert svc.recovery is not None and svc.recovery.phase == "bonus"
        game = svc.state.games["dora"]
        assert game.round == before["round"] and game.picks == before["picks"]
        assert (
            svc.round is not None
            and svc.round.draw == before["draw"]
            and svc.round.wagers == before["wagers"]
        )
        assert game.deadline == clock.now + game.timer_seconds > before["deadline"]
        await svc.bonus_pick(CROUPIER, "dora", 2)  # the player may still choose: the timer is fresh
        while not game.finished:
            if game.can_cash_out:
                await svc.bonus_cash_out(CROUPIER, "dora")
            else:
                await svc.bonus_pick(CROUPIER, "dora", 2)
        if svc.approval_needed() is not None:
            await svc.approve_payout(PITBOSS)
        await svc.settle(CROUPIER)
        await svc.close()
        return svc

    run(second())
    kinds = [e.type for e in store.journal.entries("T1")]
    assert kinds.count("bonus.timer_restarted") == 1
    assert kinds.count("round.settled") == 1 and kinds.count("round.bets_closed") == 1
    assert kinds.count("bonus.started") == 1


def test_a_result_not_yet_settled_is_settled_once_after_restart(store: Store) -> None:
    async def first() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await cover_everything(svc, "anna")
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "number": 0 if svc.round.draw.bonus_number != 0 else 1})  # type: ignore[union-attr]
        await svc.confirm_result(CROUPIER)

    run(first())

    async def second() -> None:
        svc = make_service(store, seed=3)
        await svc.start()
        assert svc.phase == "result"
        if svc.approval_needed() is not None:
            await svc.approve_payout(PITBOSS)
        await svc.settle(CROUPIER)
        with pytest.raises(IllegalTransition):
            await svc.settle(CROUPIER)

    run(second())

    async def third() -> None:
        svc = make_service(store, seed=4)
        await svc.start()
        assert svc.phase == "settled"
        with pytest.raises(IllegalTransition):
            await svc.settle(CROUPIER)

    run(third())
    assert sum(1 for e in store.journal.entries("T1") if e.type == "round.settled") == 1


def test_an_open_round_keeps_its_wagers_and_a_drawn_round_its_draw(store: Store) -> None:
    async def first() -> tuple[Any, Any]:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await cover_everything(svc)
        await svc.remove_wager(CROUPIER, svc.round.wagers[0].id)  # type: ignore[union-attr]
        wagers = svc.round.wagers  # type: ignore[union-attr]
        await svc.no_more_bets(CROUPIER)
        return wagers, svc.round.draw  # type: ignore[union-attr]

    wagers, draw = run(first())

    async def second() -> None:
        svc = make_service(store, seed=12345)  # another generator: a redraw would differ
        await svc.start()
        assert svc.phase == "closed"
        assert svc.round is not None and svc.round.wagers == wagers and svc.round.draw == draw
        with pytest.raises(IllegalTransition):
            await svc.no_more_bets(CROUPIER)

    run(second())
    assert sum(1 for e in store.journal.entries("T1") if e.type == "round.bets_closed") == 1


def test_every_entry_is_folded_exactly_once(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await cover_everything(svc)

    run(go())
    state = rebuild(store, "T1")
    entries = list(store.journal.entries("T1"))
    with pytest.raises(DrrError, match="already applied"):
        state.apply_entry(entries[-1])
    fresh = rebuild(store, "T1")
    fresh.last_seq = 0
    with pytest.raises(DrrError, match="missing"):
        fresh.apply_entry(entries[2])
    assert state.last_seq == len(entries) and len(state.round.wagers) == 7  # type: ignore[union-attr]


def test_a_result_under_a_bonus_game_is_not_corrected_but_the_round_may_be_voided(store: Store) -> None:
    async def go() -> TableService:
        svc = make_service(store, seed=11)
        await to_bonus(svc)
        with pytest.raises(IllegalTransition, match=r"bonus game was started on it; .*void the round"):
            await svc.correct_result(PITBOSS, 5, "misread")
        await svc.void(PITBOSS, "the sensor misread the number under a bonus game")
        return svc

    svc = run(go())
    kinds = [e.type for e in store.journal.entries("T1")]
    assert "round.result_corrected" not in kinds and kinds.count("round.voided") == 1
    assert svc.round is not None and svc.round.phase.value == "void"
    assert rebuild(store, "T1").round.phase.value == "void"  # type: ignore[union-attr]


def _edit(store: Store, seq: int, old: str, new: str) -> None:
    import sqlalchemy as sa

    with store.begin() as conn:
        payload = conn.execute(
            sa.text("SELECT payload FROM journal WHERE table_id = 'T1' AND seq = :s"), {"s": seq}
        ).scalar_one()
        assert old in payload
        conn.execute(
            sa.text("UPDATE journal SET payload = :p WHERE table_id = 'T1' AND seq = :s"),
            {"p": payload.replace(old, new), "s": seq},
        )


async def _one_finished_round_and_one_open(store: Store) -> None:
    svc = make_service(store)
    await svc.start()
    # One finished round, so that the Rules Submission lies before the last round's opening ...
    await svc.open_bets(CROUPIER)
    await cover_everything(svc)
    await svc.void(PITBOSS, "a round before the last")
    await svc.next_round(CROUPIER)
    # ... and one open round with its wagers on the felt.
    await svc.open_bets(CROUPIER)
    await cover_everything(svc)
    await svc.close()


def test_a_restart_refuses_a_journal_edited_while_the_table_was_down(store: Store) -> None:
    run(_one_finished_round_and_one_open(store))
    entries = list(store.journal.entries("T1"))
    wager = next(e for e in reversed(entries) if e.type == "round.wager_placed")
    _edit(store, wager.seq, '"amount":"1"', '"amount":"900"')
    with pytest.raises(DrrError, match=rf"entry {wager.seq} contents do not match its hash.*does not start"):
        run(make_service(store).start())
    with pytest.raises(DrrError, match=f"entry {wager.seq}"):
        rebuild(store, "T1")
    _edit(store, wager.seq, '"amount":"900"', '"amount":"1"')
    assert rebuild(store, "T1").round.wagers  # type: ignore[union-attr]  # as written: it starts again
    rules = next(e for e in entries if e.type == "table.rules_loaded")
    assert rules.seq < next(e.seq for e in reversed(entries) if e.type == "round.opened")
    _edit(store, rules.seq, '"sha256":"', '"sha256":"0')  # a Rules Submission before the last round
    with pytest.raises(DrrError, match=f"entry {rules.seq} contents do not match"):
        rebuild(store, "T1")


def test_a_restart_ties_its_fold_to_the_chain_before_the_last_round(store: Store) -> None:
    import sqlalchemy as sa

    run(_one_finished_round_and_one_open(store))
    entries = list(store.journal.entries("T1"))
    opened = next(e for e in reversed(entries) if e.type == "round.opened")
    assert rebuild(store, "T1").round_id == opened.round_id  # the fold starts there, intact
    with store.begin() as conn:  # the entry just before the fold's first one goes
        conn.execute(sa.text("DELETE FROM journal WHERE table_id = 'T1' AND seq = :s"), {"s": opened.seq - 1})
    with pytest.raises(DrrError, match=rf"entry {opened.seq - 1} is missing \(removed\)"):
        rebuild(store, "T1")
