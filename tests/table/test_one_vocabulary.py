"""One fact, one entry type: the pit-boss station's approvals and Rules Submissions are the table
service's own entry types, folded alike; an old journal's spellings still verify, restart and project."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from engine.auth import User
from engine.bets import inside_bet
from engine.floor import actions
from engine.journal_types import read
from engine.rules import default_rules_path, parse_rules
from engine.store import Store, schema
from engine.store.projections import rebuild as rebuild_projections
from engine.store.verify import verify
from engine.table.recovery import rebuild
from engine.table.service import TableService
from engine.table_events import PayoutApproved, RulesLoaded
from tests.table.helpers import CROUPIER, PITBOSS, make_service, wheel

BOSS = User("pat", "pitboss")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _big_win(svc: TableService) -> None:
    await svc.open_bets(CROUPIER)
    await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(10))
    await svc.place_wager(CROUPIER, "bob", inside_bet([4]), Decimal(5))
    await svc.no_more_bets(CROUPIER)
    await wheel(svc, {"type": "result", "number": 17})
    await svc.confirm_result(CROUPIER)


def _approval(store: Store) -> Any:
    return next(e for e in store.journal.entries("T1") if "approved" in e.type)


def test_a_pit_boss_approval_is_the_services_own_entry_type_and_folds_alike(tmp_path: Path) -> None:
    from engine.store import open_store

    def play(path: Path, by_floor: bool) -> tuple[Any, frozenset[str], str | None, str]:
        with open_store(str(path), table="T1") as store:

            async def go() -> tuple[frozenset[str], str | None, str]:
                svc = make_service(store, approval_threshold=Decimal("100"))
                await svc.start()
                await _big_win(svc)
                need = svc.approval_needed()
                assert need is not None
                if by_floor:
                    round_id = svc.state.round_id
                    assert round_id is not None
                    actions.approve_payout(store, round_id, "camera checked", BOSS, table="T1")
                else:
                    await svc.approve_payout(PITBOSS)
                await svc.settle(CROUPIER)  # folds the pit-boss station's entry first; refused without it
                state = (svc.state.approved, svc.state.approved_by, svc.phase)
                await svc.close()
                return state

            approved, by, phase = run(go())
            return _approval(store), approved, by, phase

    service_entry, service_approved, _, service_phase = play(tmp_path / "service.sqlite", by_floor=False)
    floor_entry, floor_approved, floor_by, floor_phase = play(tmp_path / "floor.sqlite", by_floor=True)
    assert floor_entry.type == service_entry.type == "round.payout_approved"
    assert service_phase == floor_phase == "settled"
    own, pit = read(service_entry), read(floor_entry)
    assert isinstance(own, PayoutApproved) and isinstance(pit, PayoutApproved)
    assert {"wager_ids", "total", "threshold", "approved_by"} <= set(floor_entry.payload)
    assert pit.wager_ids == own.wager_ids and pit.total == own.total  # the one winner, what it pays
    assert pit.threshold == Decimal("10000")  # the table's setting (none: the default) at the station
    assert floor_approved == service_approved == frozenset(own.wager_ids or ())
    assert floor_by == "pat" and pit.reason == "camera checked" and pit.role == "pitboss"


def test_a_pit_boss_rules_submission_is_table_rules_loaded_and_the_next_round_opens_under_it(
    store: Store, tmp_path: Path
) -> None:
    text = (
        default_rules_path()
        .read_text("utf-8")
        .replace('name = "Diamond Rush Roulette default"', 'name = "Casino paytable"')
    )
    path = tmp_path / "casino.toml"
    path.write_text(text, "utf-8")
    sha = parse_rules(text.encode("utf-8"), str(path)).sha256

    async def go() -> str:
        svc = make_service(store)
        await svc.start()
        actions.load_rules(store, "T1", actions.read_rules_candidate(path), "approved paytable", BOSS)
        await svc.open_bets(CROUPIER)
        assert svc.round is not None
        opened_under = svc.round.rules.sha256
        await svc.close()
        return opened_under

    assert run(go()) == sha
    entry = [e for e in store.journal.entries("T1") if e.type.endswith("rules_loaded")][-1]
    assert entry.type == "table.rules_loaded" and entry.user == "pat"
    loaded = read(entry)
    assert isinstance(loaded, RulesLoaded)
    assert (loaded.sha256, loaded.name, loaded.text) == (sha, "Casino paytable", text)
    assert loaded.by == "pat" and loaded.effective == "next round"
    assert actions.latest_rules(store, "T1") == loaded


def _projections(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    with store.read() as conn:
        for t in (schema.rounds, schema.number_counts, schema.daily_totals, schema.daily_handle):
            out[t.name] = sorted(tuple(r) for r in conn.execute(sa.select(t)).all())
    return out


def test_an_old_journal_with_the_old_spellings_verifies_restarts_and_projects_the_same(store: Store) -> None:
    text = (
        default_rules_path()
        .read_text("utf-8")
        .replace('name = "Diamond Rush Roulette default"', 'name = "Old casino paytable"')
    )
    sha = parse_rules(text.encode("utf-8"), "old.toml").sha256

    async def first_life() -> str:
        svc = make_service(store, approval_threshold=Decimal("100"))
        await svc.start()
        # What an old pit-boss station and demo floor wrote (never written by this build).
        store.journal.append(
            "T1",
            "rules.changed",
            {"sha256": sha, "source": "old.toml", "text": text, "reason": "new paytable", "by": "pat",
             "role": "pitboss", "effective": "next round"},
            round_id=None,
            user="pat",
        )  # fmt: skip
        await _big_win(svc)
        assert svc.round is not None and svc.round.rules.sha256 == sha
        round_id = svc.round.round_id
        store.journal.append(
            "T1", "wheel.rotor_speed", {"rpm": "25.3", "direction": "cw"}, round_id=round_id, user=None
        )
        need = svc.approval_needed()
        assert need is not None
        store.journal.append(
            "T1", "payout.approved", {"amount": str(need.total), "by": "pat"}, round_id=round_id, user="pat"
        )
        await svc.settle(CROUPIER)  # the old approval approves the round's payouts as a whole
        await svc.close()
        return round_id

    round_id = run(first_life())
    assert {"rules.changed", "payout.approved", "wheel.rotor_speed"} <= {
        e.type for e in store.journal.entries("T1")
    }
    assert verify(store, "T1").ok
    before = _projections(store)

    async def restart() -> tuple[str, str | None, int]:
        svc = make_service(store)
        await svc.start()  # recovery folds the old spellings; the table plays on under the old rules
        state = (svc.phase, svc.state.latest_rules, svc.state.rounds_settled)
        await svc.close()
        return state

    assert run(restart()) == ("settled", sha, 1)
    full = rebuild(store, "T1", from_last_round=False)
    assert full.latest_rules == sha and full.rounds_settled == 1 and full.approved_by == "pat"
    with store.begin() as conn:
        rebuild_projections(conn, "T1")
    assert _projections(store) == before
    with store.read() as conn:
        status = conn.execute(
            sa.select(schema.rounds.c.status).where(schema.rounds.c.round_id == round_id)
        ).scalar()
    assert status == "settled"
    assert verify(store, "T1").ok
