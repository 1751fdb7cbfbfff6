"""The table service through its commands and a fake wheel: rounds, roles, approvals, subscribers."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest

from engine.auth import PermissionDenied, User
from engine.bets import inside_bet
from engine.errors import DrrError, IllegalTransition
from engine.rng import SeededRng
from engine.round import Phase
from engine.settlement import settle_round
from engine.store import Store
from engine.store.records import Entry
from engine.store.verify import verify
from engine.table.recovery import rebuild
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, PITBOSS, WATCHER, make_service, some_wagers, spin, wheel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def types(store: Store) -> list[str]:
    return [e.type for e in store.journal.entries("T1")]


def test_full_round_with_the_fake_wheel(store: Store) -> None:
    async def go() -> TableService:
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 41})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await wheel(svc, {"type": "launched", "game": 41}, {"type": "no_more_bets", "game": 41})
        assert svc.phase == "closed"
        assert svc.round is not None and svc.round.draw is not None  # drawn at the wheel's state 4
        await wheel(svc, {"type": "result", "game": 41, "number": 17})
        assert svc.state.pending_result is not None and svc.phase == "closed"  # awaits the croupier
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        await svc.next_round(CROUPIER)
        await svc.close()
        return svc

    svc = run(go())
    assert svc.phase == "idle" and svc.state.rounds_settled == 1
    kinds = types(store)
    # Write-ahead order: the draw is journaled before the result, the result before the settlement.
    assert kinds.index("round.bets_closed") < kinds.index("wheel.result") < kinds.index("round.settled")
    settled = next(e for e in store.journal.entries("T1") if e.type == "round.settled")
    state = rebuild(store, "T1")
    assert state.rounds_settled == 1 and state.round is None
    journaled = [e for e in store.journal.entries("T1") if e.type == "round.wager_placed"]
    assert len(journaled) == 3
    report = verify(store, "T1")
    assert report.ok and report.rounds == 1
    # The settled totals are the engine's settlement of exactly the journaled wagers and draw.
    from engine.round import BetsClosed, WagerPlaced

    draw = BetsClosed.from_json(
        next(e for e in store.journal.entries("T1") if e.type == "round.bets_closed").payload
    )
    wagers = [WagerPlaced.from_json(e.payload).wager for e in journaled]
    rules = next(iter(state.rules_by_sha.values()))
    expected = settle_round(wagers, 17, draw.draw, {}, rules)
    assert Decimal(settled.payload["total_paid"]) == expected.total_paid
    assert Decimal(settled.payload["total_returned"]) == expected.total_returned


def test_croupier_no_more_bets_draws_once_and_wheel_state_4_does_not_redraw(store: Store) -> None:
    async def go() -> list[str]:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await svc.no_more_bets(CROUPIER)
        draw = svc.round.draw if svc.round else None
        await wheel(svc, *spin(3, 5))
        assert svc.round is not None and svc.round.draw == draw
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        return types(store)

    kinds = run(go())
    assert kinds.count("round.bets_closed") == 1
    assert kinds.count("wheel.no_more_bets") == 1


def test_roles_are_enforced(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        with pytest.raises(PermissionDenied):
            await svc.open_bets(WATCHER)
        await svc.open_bets(CROUPIER)
        with pytest.raises(PermissionDenied):
            await svc.place_wager(WATCHER, "anna", inside_bet([1]), Decimal(1))
        with pytest.raises(PermissionDenied, match="void"):
            await svc.void(CROUPIER, "croupiers cannot void")
        with pytest.raises(PermissionDenied):
            await svc.load_rules(CROUPIER, b"")
        with pytest.raises(PermissionDenied):
            await svc.approve_payout(CROUPIER)
        with pytest.raises(PermissionDenied):
            await svc.resolve_irregularity(CROUPIER, "not mine to resolve")
        before = store.journal.head("T1")
        with pytest.raises(PermissionDenied):
            await svc.open_bets(User("x", "nobody"))
        assert store.journal.head("T1") == before  # a refusal writes nothing
        await svc.void(PITBOSS, "table closing")
        assert svc.phase == "void"

    run(go())


def test_large_payouts_need_a_pit_boss_before_settling(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store, approval_threshold=Decimal("100"))
        await svc.start()
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(10))
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "game": None, "number": 17})
        await svc.confirm_result(CROUPIER)
        need = svc.approval_needed()
        assert need is not None and need.total >= Decimal(290)  # 29 to 1 at least
        with pytest.raises(IllegalTransition, match="approval"):
            await svc.settle(CROUPIER)
        assert "round.settled" not in types(store)
        await svc.approve_payout(PITBOSS)
        assert svc.approval_needed() is None
        await svc.settle(CROUPIER)
        approval = next(e for e in store.journal.entries("T1") if e.type == "round.payout_approved")
        assert approval.user == "pete" and approval.payload["wager_ids"] == [svc.round.wagers[0].id]  # type: ignore[union-attr]

    run(go())


def test_small_payouts_need_no_approval(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store, approval_threshold=Decimal("100000"))
        await svc.start()
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(10))
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "number": 17})
        await svc.confirm_result(CROUPIER)
        with pytest.raises(IllegalTransition, match="no payout needs approval"):
            await svc.approve_payout(PITBOSS)
        await svc.settle(CROUPIER)

    run(go())


def test_manual_result_is_two_step_and_must_match(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await svc.no_more_bets(CROUPIER)
        with pytest.raises(IllegalTransition, match="reason"):
            await svc.manual_result(CROUPIER, 12, "  ")
        await svc.manual_result(CROUPIER, 12, "sensor down")
        assert svc.phase == "closed"  # one entry is not a result
        with pytest.raises(IllegalTransition, match="differs"):
            await svc.manual_result(CROUPIER, 21, "sensor down")
        assert svc.phase == "closed" and svc.state.manual_entry is None
        await svc.manual_result(CROUPIER, 21, "sensor down")
        await svc.manual_result(CROUPIER, 21, "sensor down")
        assert svc.phase == "result" and svc.round is not None and svc.round.result == 21
        assert svc.round.result_source == "manual"

    run(go())
    result = next(e for e in store.journal.entries("T1") if e.type == "round.result")
    assert result.payload["source"] == "manual" and result.payload["reason"] == "sensor down"


def test_subscribers_see_entries_only_after_they_are_durable(store: Store, tmp_path: Any) -> None:
    from engine.store import open_store

    seen: list[Entry] = []
    durable: list[bool] = []
    other = open_store(store.url, table="T1")  # a second connection pool: what another reader sees

    def on_entry(entry: Entry) -> None:
        seen.append(entry)
        stored = list(other.journal.entries("T1", entry.seq))
        durable.append(bool(stored) and stored[0].hash == entry.hash)

    async def go() -> None:
        svc = make_service(store)
        svc.subscribe(on_entry)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        # A write that fails is neither published nor folded into the state.
        real = svc.journal.append_in_keyed

        def broken(*_a: Any, **_k: Any) -> Any:
            raise DrrError("the disk is full")

        svc.journal.append_in_keyed = broken  # type: ignore[method-assign]
        count, wagers = len(seen), len(svc.round.wagers)  # type: ignore[union-attr]
        with pytest.raises(DrrError, match="disk"):
            await svc.no_more_bets(CROUPIER)
        assert len(seen) == count and svc.phase == "open" and len(svc.round.wagers) == wagers  # type: ignore[union-attr]
        svc.journal.append_in_keyed = real  # type: ignore[method-assign]
        await svc.no_more_bets(CROUPIER)

    try:
        run(go())
    finally:
        other.close()
    assert seen and all(durable)
    assert [e.seq for e in seen] == list(range(1, len(seen) + 1))


def test_async_subscriber_and_unsubscribe(store: Store) -> None:
    got: list[str] = []

    async def on_entry(entry: Entry) -> None:
        await asyncio.sleep(0)
        got.append(entry.type)

    async def go() -> None:
        svc = make_service(store)
        stop = svc.subscribe(on_entry)
        await svc.start()
        await svc.open_bets(CROUPIER)
        stop()
        await some_wagers(svc)

    run(go())
    assert got[-1] == "round.opened" and "round.wager_placed" not in got


def test_a_seeded_rng_is_refused_unless_allowed(store: Store) -> None:
    with pytest.raises(DrrError, match="not allowed in production"):
        TableService(store, "T1", rng=SeededRng(1), claim=False)


def test_new_rules_take_effect_from_the_next_round(store: Store) -> None:
    from engine.rules import default_rules_path

    text = default_rules_path().read_bytes().replace(b"timer_seconds = 20", b"timer_seconds = 30")

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        old = svc.round.rules.sha256  # type: ignore[union-attr]
        await svc.load_rules(PITBOSS, text)
        assert svc.round.rules.sha256 == old  # type: ignore[union-attr]
        await svc.void(PITBOSS, "change of rules")
        await svc.open_bets(CROUPIER)
        assert svc.round.rules.bonus_timer_seconds == 30  # type: ignore[union-attr]
        assert svc.round.rules.sha256 != old  # type: ignore[union-attr]

    run(go())
    assert rebuild(store, "T1").round.rules.bonus_timer_seconds == 30  # type: ignore[union-attr]


def test_wagers_follow_the_round_state_machine(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        with pytest.raises(IllegalTransition, match="IDLE"):
            await svc.place_wager(CROUPIER, "anna", inside_bet([1]), Decimal(1))
        await svc.open_bets(CROUPIER)
        with pytest.raises(IllegalTransition, match="still OPEN"):
            await svc.open_bets(CROUPIER)
        with pytest.raises(DrrError, match="multiple of the wager unit"):
            await svc.place_wager(CROUPIER, "anna", inside_bet([1]), "0.001")
        await svc.place_wager(CROUPIER, "anna", inside_bet([1]), Decimal(1), wager_id="x1")
        await svc.remove_wager(CROUPIER, "x1")
        assert svc.round is not None and svc.round.wagers == ()
        await svc.no_more_bets(CROUPIER)
        with pytest.raises(IllegalTransition, match="CLOSED"):
            await svc.place_wager(CROUPIER, "anna", inside_bet([1]), Decimal(1))
        with pytest.raises(IllegalTransition, match="no result"):
            await svc.confirm_result(CROUPIER)
        assert svc.round.phase is Phase.CLOSED

    run(go())


def test_other_writers_on_the_chain_are_folded_in_order(store: Store) -> None:
    """A pit boss logging in at the croupier station, or the pit-boss station approving and voiding,
    appends to the same chain while the service runs: the service folds those entries in chain order."""
    from engine.store.users import add_user, authenticate

    seen: list[str] = []

    async def go() -> TableService:
        svc = make_service(store, approval_threshold=Decimal("100"))
        svc.subscribe(lambda e: seen.append(e.type))
        await svc.start()
        await svc.open_bets(CROUPIER)
        old = svc.round.round_id  # type: ignore[union-attr]
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "number": 3})
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        await svc.open_bets(CROUPIER)
        current = svc.round.round_id  # type: ignore[union-attr]
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(10))
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "number": 17})
        await svc.confirm_result(CROUPIER)
        add_user(store, "root", "admin", "999999", by=None)
        authenticate(store, "root", "999999", table="T1", station="croupier")  # journaled on "floor"
        assert svc.approval_needed() is not None
        # The pit-boss station approves this round's payouts and voids the earlier round.
        store.journal.append(
            "T1", "payout.approved", {"amount": "290", "by": "root"}, round_id=current, user="root"
        )
        store.journal.append("T1", "round.voided", {"reason": "late check"}, round_id=old, user="root")
        await svc.settle(CROUPIER)  # folds the foreign entries first: the approval counts
        return svc

    svc = run(go())
    assert svc.phase == "settled"
    assert svc.state.last_seq == store.journal.head("T1")[0]  # type: ignore[index]
    tail = seen[seen.index("payout.approved") :]
    assert tail == ["payout.approved", "round.voided", "round.settled"]
    assert svc.state.round.result == 17  # type: ignore[union-attr]
    full = rebuild(store, "T1", from_last_round=False)
    assert (full.rounds_settled, full.rounds_voided) == (2, 0)  # the table settled both rounds
    quick = rebuild(store, "T1")  # counts from the projections: the first round is void by now
    assert (quick.rounds_settled, quick.rounds_voided) == (1, 1)


def test_a_write_racing_a_command_is_folded_before_it(store: Store) -> None:
    async def go() -> TableService:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        real = svc._catch_up
        svc._catch_up = lambda: []  # type: ignore[method-assign]  # the other write lands after the look
        store.journal.append("T1", "user.login", {"name": "x"}, round_id=None, user="x")
        await some_wagers(svc)
        svc._catch_up = real  # type: ignore[method-assign]
        return svc

    svc = run(go())
    kinds = [e.type for e in store.journal.entries("T1")]
    assert kinds.index("user.login") < kinds.index("round.wager_placed")
    assert svc.state.last_seq == len(kinds) and len(svc.round.wagers) == 3  # type: ignore[union-attr]


def test_the_catch_up_reads_the_journal_only_after_another_write(store: Store) -> None:
    """Before every command the service folds what others appended (issue 28: that read was a third of
    a soak's time). On SQLite it reads only once something was written since it last looked: by
    another connection (another process's store) or by this process outside the service."""
    from engine.store import open_store

    reads: list[int] = []

    async def go() -> TableService:
        svc = make_service(store)
        await svc.start()
        real = svc.journal.entries

        def counted(table: str, from_seq: int = 1, **kw: Any) -> Any:
            reads.append(from_seq)
            return real(table, from_seq, **kw)

        svc.journal.entries = counted  # type: ignore[method-assign]
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        quiet = len(reads)
        if store.is_sqlite:
            other = open_store(str(store.path), table="T1")  # another connection, as another process
            try:
                other.journal.append("T1", "user.login", {"name": "x"}, round_id=None, user="x")
            finally:
                other.close()
        else:
            store.journal.append("T1", "user.login", {"name": "x"}, round_id=None, user="x")
        await svc.place_wager(CROUPIER, "anna", inside_bet([9]), Decimal(1))
        store.journal.append("T1", "user.login", {"name": "y"}, round_id=None, user="y")  # this process
        await svc.place_wager(CROUPIER, "anna", inside_bet([10]), Decimal(1))
        assert quiet == (0 if store.is_sqlite else 4)  # open_bets and three wagers: nothing new
        return svc

    svc = run(go())
    kinds = [e.type for e in store.journal.entries("T1")]
    assert kinds[-4:] == ["user.login", "round.wager_placed", "user.login", "round.wager_placed"]
    assert svc.state.last_seq == len(kinds) and len(svc.round.wagers) == 5  # type: ignore[union-attr]


def test_a_pit_boss_corrects_a_misread_result_before_settlement(store: Store) -> None:
    async def go() -> TableService:
        svc = make_service(store, approval_threshold=Decimal("100000"))
        await svc.start()
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(10))
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "number": 18})
        await svc.confirm_result(CROUPIER)
        with pytest.raises(PermissionDenied):
            await svc.correct_result(CROUPIER, 17, "misread")
        await svc.correct_result(PITBOSS, 17, "camera shows 17")
        await svc.settle(CROUPIER)
        return svc

    svc = run(go())
    assert svc.round is not None and svc.round.result == 17 and svc.round.settlement is not None
    assert svc.round.settlement.total_paid > 0
    state = rebuild(store, "T1")
    assert state.round is not None and state.round.result == 17


def test_a_settled_round_voided_from_the_floor_does_not_stop_the_table(store: Store) -> None:
    async def go() -> TableService:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "number": 4})
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        rid = svc.round.round_id  # type: ignore[union-attr]
        store.journal.append("T1", "round.voided", {"reason": "dealer error"}, round_id=rid, user="pete")
        await svc.next_round(CROUPIER)
        await svc.open_bets(CROUPIER)
        return svc

    svc = run(go())
    assert svc.phase == "open" and svc.state.rounds_opened == 2
    assert rebuild(store, "T1").phase == "open"


def test_a_restart_keeps_the_journal_s_rules_unless_others_are_given(store: Store) -> None:
    from engine.rules import default_rules_path

    changed = default_rules_path().read_bytes().replace(b"timer_seconds = 20", b"timer_seconds = 40")

    async def first() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.load_rules(PITBOSS, changed)

    async def restart(**kw: Any) -> int:
        svc = make_service(store, **kw)
        await svc.start()
        await svc.open_bets(CROUPIER)
        timer = svc.round.rules.bonus_timer_seconds  # type: ignore[union-attr]
        await svc.void(PITBOSS, "test")
        return timer

    run(first())
    assert run(restart()) == 40  # the pit boss's submission stays
    assert run(restart(rules_text=default_rules_path().read_bytes())) == 20  # the given one wins


def test_recovery_from_the_last_round_equals_the_full_fold(store: Store) -> None:
    """Restarting from the last round's opening gives the same table as folding every entry."""
    from engine.rules import default_rules_path

    other_rules = default_rules_path().read_bytes().replace(b"timer_seconds = 20", b"timer_seconds = 25")

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.set_bonus_preset(CROUPIER, "dora", "random")
        for number in (3, 17, 30):
            await svc.open_bets(CROUPIER)
            await some_wagers(svc)
            await svc.no_more_bets(CROUPIER)
            await wheel(svc, {"type": "result", "number": number})
            await svc.confirm_result(CROUPIER)
            await svc.settle(CROUPIER)
            await svc.next_round(CROUPIER)
        await svc.load_rules(PITBOSS, other_rules)
        await svc.open_bets(CROUPIER)
        await svc.void(PITBOSS, "test")
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await svc.no_more_bets(CROUPIER)

    run(go())
    full = rebuild(store, "T1", from_last_round=False)
    quick = rebuild(store, "T1")
    for name in (
        "last_seq",
        "rounds_opened",
        "rounds_settled",
        "rounds_voided",
        "latest_rules",
        "presets",
        "phase",
    ):
        assert getattr(quick, name) == getattr(full, name), name
    assert set(quick.rules_by_sha) == set(full.rules_by_sha) and len(full.rules_by_sha) == 2
    assert quick.round == full.round and quick.round is not None and quick.round.draw is not None
    assert quick.rounds_opened == 5 and quick.phase == "closed"


def test_the_draw_order_of_the_lucky_numbers_is_journaled(store: Store) -> None:
    async def go() -> TableService:
        svc = make_service(store, seed=3)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        await svc.no_more_bets(CROUPIER)
        return svc

    svc = run(go())
    assert svc.round is not None and svc.round.draw is not None
    drawn = list(svc.round.draw.lucky_order)  # as the RNG gave them
    closed = next(e for e in store.journal.entries("T1") if e.type == "round.bets_closed")
    record = closed.payload["draw"]
    assert record["lucky_order"] == drawn and sorted(drawn) == sorted(int(n) for n in record["lucky"])
    # The rebuilt table reads the same draw (the list is beside the mapping, not instead of it).
    assert rebuild(store, "T1").round.draw == svc.round.draw  # type: ignore[union-attr]
