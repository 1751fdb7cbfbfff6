"""Rules by hash: a round played under a casino's own paytable (not the shipped default) is recalled,
approved, shown and rebuilt under the Rules Submission it was played under, found by its sha256 in
the store's `rules_submissions` (SQLite, and PostgreSQL with DRR_TEST_PG_URL)."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa

from engine.bets import BetKind, inside_bet, outside_bet
from engine.errors import DrrError
from engine.floor import actions
from engine.floor.recall import recall_round, settlement_records
from engine.journal_types import read
from engine.rules import default_rules_path, load_default_rules, parse_rules
from engine.store import Store, schema
from engine.store.projections import rebuild
from engine.store.rules_store import forget_cached, rules_for
from engine.table.service import TableService
from engine.table_events import PayoutApproved
from gui.cli import main
from tests.table.helpers import CROUPIER, PITBOSS, make_service, wheel

# The shipped paytable with a casino's own base odds and Lucky odds (still within § 617b.12), and a
# Lucky draw and bonus game lean enough that every wager returns under 100% (`drr rules check`
# accepts it: a table plays nothing else, issue 23 finding 5).
HOUSE_TEXT = (
    default_rules_path()
    .read_text(encoding="utf-8")
    .replace('name = "Diamond Rush Roulette default"', 'name = "Casino Royale house paytable"')
    .replace("straight = 29", "straight = 35")
    .replace("split = 14", "split = 17")
    .replace("counts = { 1 = 45, 3 = 40, 5 = 10, 10 = 5 }", "counts = { 1 = 1 }")
    .replace("odds = { 49 = 450, 99 = 390, 199 = 125, 299 = 30, 499 = 5 }", "odds = { 59 = 450, 119 = 1 }")
    .replace("{ 29 = 40, 39 = 31, 49 = 14, 69 = 10, 99 = 5 }", "{ 29 = 1 }")
    .replace("{ 20 = 25, 30 = 60, 50 = 14, 100 = 1 }", "{ 2 = 1 }")
    .replace("{ 10 = 45, 20 = 50, 50 = 4, 100 = 1 }", "{ 2 = 1 }")
    .replace("{ 50 = 60, 75 = 35, 150 = 4, 300 = 1 }", "{ 2 = 1 }")
    .replace("{ 100 = 50, 200 = 45, 400 = 4, 900 = 1 }", "{ 2 = 1 }")
    .replace("{ 500 = 40, 1000 = 30, 2000 = 20, 3500 = 10 }", "{ 2 = 1 }")
)
HOUSE = parse_rules(HOUSE_TEXT.encode("utf-8"), "house.toml")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_the_house_paytable_is_not_the_default() -> None:
    assert HOUSE.sha256 != load_default_rules().sha256
    assert HOUSE.base_odds["straight"] == 35 and min(HOUSE.lucky_odds) == 59


async def _play_until_approval(store: Store) -> TableService:
    """One round under HOUSE (5 on 17 straight up wins 35 to 1); it waits for the pit boss."""
    svc = make_service(store, rules_text=HOUSE_TEXT.encode("utf-8"), approval_threshold=Decimal(100))
    await svc.start()
    await svc.open_bets(CROUPIER)
    await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
    await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(10))
    await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.DOZEN, 1), Decimal(4))
    await svc.no_more_bets(CROUPIER)
    assert svc.round is not None and svc.round.draw is not None
    assert 17 not in svc.round.draw.lucky and svc.round.draw.bonus_number != 17  # (seed 7)
    await wheel(svc, {"type": "result", "game": None, "number": 17})
    await svc.confirm_result(CROUPIER)
    return svc


def _first_round(store: Store) -> str:
    r = schema.rounds
    with store.read() as conn:
        return str(conn.execute(sa.select(r.c.round_id).order_by(r.c.seq).limit(1)).scalar_one())


async def _play_settled_round(svc: TableService) -> tuple[str, Decimal]:
    """A second round under HOUSE: wagers on every kind of odds that differ from the default."""
    await svc.next_round(CROUPIER)
    await svc.open_bets(CROUPIER)
    await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
    await svc.place_wager(CROUPIER, "bob", inside_bet([16, 17]), Decimal(2))
    await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(10))
    await svc.no_more_bets(CROUPIER)
    assert svc.round is not None and svc.round.draw is not None
    assert 17 not in svc.round.draw.lucky and svc.round.draw.bonus_number != 17  # (seed 7)
    await wheel(svc, {"type": "result", "game": None, "number": 17})
    await svc.confirm_result(CROUPIER)
    if svc.approval_needed() is not None:
        await svc.approve_payout(PITBOSS)
    await svc.settle(CROUPIER)
    settled = svc.settlement()
    assert settled is not None and svc.state.round_id is not None
    return svc.state.round_id, settled.total_paid


def test_a_pit_boss_approves_a_house_paytable_round_for_what_the_table_pays(store: Store) -> None:
    """The defect: the approval journaled 0 while the table paid 175.00 (5 on 17 at 35 to 1)."""

    async def go() -> None:
        svc = await _play_until_approval(store)
        pending = svc.settlement()
        assert pending is not None and pending.total_paid == Decimal("175.00")
        round_id = _first_round(store)
        amount = actions.approve_payout(store, round_id, "video checked", PITBOSS, table="T1")
        assert amount == pending.total_paid
        last = list(store.journal.entries("T1"))[-1]
        approval = read(last)
        assert isinstance(approval, PayoutApproved) and approval.total == Decimal("175.00")
        rec = recall_round(store, round_id, "T1")
        assert rec.replay_note.startswith("not settled yet")
        assert sum((s.payout for s in rec.settlements), Decimal(0)) == Decimal("175.00")
        await svc.settle(CROUPIER)  # the station's approval is what the table waited for
        assert svc.phase == "settled"

    run(go())


def test_recall_of_a_house_paytable_round_shows_its_payouts(store: Store) -> None:
    async def go() -> tuple[str, Decimal]:
        svc = await _play_until_approval(store)
        await svc.approve_payout(PITBOSS)
        await svc.settle(CROUPIER)
        round_id, paid = await _play_settled_round(svc)
        return round_id, paid

    round_id, paid = run(go())
    assert paid == Decimal("175.00") + Decimal("34.00")  # 5 x 35 and 2 x 17; red loses on 17

    rec = recall_round(store, round_id, "T1")
    assert rec.replay_note == ""
    assert {s.wager.player: s.payout for s in rec.settlements if s.won} == {
        "anna": Decimal("175.00"),
        "bob": Decimal("34.00"),
    }
    assert sum((s.payout for s in rec.settlements), Decimal(0)) == paid == rec.record.paid


def test_history_show_json_gives_each_wagers_settlement(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    async def go() -> str:
        svc = await _play_until_approval(store)
        await svc.approve_payout(PITBOSS)
        await svc.settle(CROUPIER)
        round_id, _ = await _play_settled_round(svc)
        return round_id

    round_id = run(go())
    assert main(["history", "show", round_id, "--db", store.url, "--table", "T1", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    wagers = [e["payload"] for e in shown["entries"] if e["type"] == "round.wager_placed"]
    assert [list(s) for s in shown["settlements"]] == [["id", "kind", "odds", "payout"]] * 3
    assert shown["settlements"] == [
        {"id": wagers[0]["id"], "kind": "base", "odds": "35", "payout": "175.00"},
        {"id": wagers[1]["id"], "kind": "base", "odds": "17", "payout": "34.00"},
        {"id": wagers[2]["id"], "kind": "lose", "odds": "0", "payout": "0.00"},
    ]
    assert sum(Decimal(s["payout"]) for s in shown["settlements"]) == Decimal(shown["round"]["paid"])
    assert shown["round"]["rules_sha256"] == HOUSE.sha256
    assert main(["history", "show", round_id, "--db", store.url, "--table", "T1"]) == 0
    text = capsys.readouterr().out
    assert f"payouts under Rules Submission {HOUSE.sha256}\n" in text
    # Each wager in words (issue 25: the text view printed raw ids and lists), its outcome and payout.
    said = f"{wagers[0]['player']}'s {wagers[0]['amount']} on straight {wagers[0]['numbers'][0]}"
    line = next(ln for ln in text.splitlines() if ln.strip().startswith(said))
    assert "base win at 35 to 1" in line and line.endswith("pays 175.00"), line
    assert "None" not in text and wagers[0]["id"] not in line


def _projections(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    tables = (schema.rounds, schema.number_counts, schema.daily_totals, schema.daily_handle)
    with store.read() as conn:
        out = {t.name: sorted(tuple(row) for row in conn.execute(sa.select(t))) for t in tables}
        subs = schema.rules_submissions
        out[subs.name] = sorted(tuple(row) for row in conn.execute(sa.select(subs)))
    return out


def _play_two_rounds(store: Store) -> str:
    async def go() -> str:
        svc = await _play_until_approval(store)
        await svc.approve_payout(PITBOSS)
        await svc.settle(CROUPIER)
        round_id, _ = await _play_settled_round(svc)
        await svc.close()
        return round_id

    return str(run(go()))


def test_the_store_keeps_each_loaded_rules_submission_by_sha256(store: Store) -> None:
    round_id = _play_two_rounds(store)
    subs, r = schema.rules_submissions, schema.rounds
    with store.read() as conn:
        rows = conn.execute(sa.select(subs)).all()
        shas = set(conn.execute(sa.select(r.c.rules_sha256)).scalars())
    assert [(row.sha256, row.name, row.text, row.first_table) for row in rows] == [
        (HOUSE.sha256, "Casino Royale house paytable", HOUSE_TEXT, "T1")
    ]
    assert shas == {HOUSE.sha256}
    assert rules_for(store, HOUSE.sha256) == HOUSE
    rec = recall_round(store, round_id, "T1")
    assert rec.rules_sha256 == HOUSE.sha256 and rec.rules == HOUSE  # (the recall felt is drawn with it)


def test_db_rebuild_gives_the_same_projections(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    _play_two_rounds(store)
    before = _projections(store)
    assert before["rules_submissions"] and before["rounds"]
    assert main(["db", "rebuild", "--db", store.url]) == 0
    assert "table T1: projections rebuilt" in capsys.readouterr().out
    assert _projections(store) == before


def test_an_altered_stored_text_is_refused_naming_its_sha256(store: Store) -> None:
    round_id = _play_two_rounds(store)
    subs = schema.rules_submissions
    with store.begin() as conn:
        conn.execute(sa.update(subs).values(text=HOUSE_TEXT.replace("straight = 35", "straight = 36")))
    forget_cached()
    with pytest.raises(DrrError, match=f"stored Rules Submission {HOUSE.sha256} does not hash") as err:
        rules_for(store, HOUSE.sha256)
    assert "\n" not in err.value.message
    rec = recall_round(store, round_id, "T1")
    assert rec.settlements == [] and HOUSE.sha256 in rec.replay_note
    with pytest.raises(DrrError, match=HOUSE.sha256):
        settlement_records(rec)  # history show --json refuses rather than show what it cannot vouch for
    # drr db rebuild stores the journal's text again: the journal is the evidence.
    with store.begin() as conn:
        rebuild(conn, "T1")
    assert rules_for(store, HOUSE.sha256) == HOUSE


def test_a_round_under_rules_the_store_does_not_hold_is_not_paid_by_guess(store: Store) -> None:
    """A round naming a Rules Submission no table of the store loaded: recall says so, the pit
    boss's approval is refused instead of journaling 0."""
    from engine.rules import load_default_rules

    async def go() -> str:
        svc = await _play_until_approval(store)
        return str(svc.state.round_id)

    round_id = run(go())
    forget_cached()
    subs = schema.rules_submissions
    with store.begin() as conn:
        conn.execute(sa.delete(subs))
    with pytest.raises(DrrError, match=f"Rules Submission {HOUSE.sha256} is not in"):
        rules_for(store, HOUSE.sha256)
    assert rules_for(store, load_default_rules().sha256) == load_default_rules()  # shipped: known
    rec = recall_round(store, round_id, "T1")
    assert rec.settlement is None and "is not in" in rec.replay_note
    with pytest.raises(DrrError, match="cannot be approved"):
        actions.approve_payout(store, round_id, "checked", PITBOSS, table="T1")
    forget_cached()


def test_an_old_store_upgrades_and_back_fills_its_rules(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store of schema 0005 (no rules_submissions, no rounds.rules_sha256) whose journal holds a
    round under the house paytable: drr db upgrade back-fills both from the journal."""
    from alembic import command

    from engine.store.migrate import alembic_config, current_revision

    round_id = _play_two_rounds(store)
    before = _projections(store)
    cfg = alembic_config()
    with store.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0005")
    assert current_revision(store) == "0005"
    with store.read() as conn:
        assert "rules_submissions" not in sa.inspect(conn).get_table_names()
    forget_cached()
    assert main(["db", "upgrade", "--db", store.url]) == 0
    from engine.store.migrate import head_revision

    # to today's head (0006 added rules_submissions; later revisions such as 0007's signatures follow)
    assert f"schema upgraded from 0005 to {head_revision()}" in capsys.readouterr().out
    assert _projections(store) == before
    rec = recall_round(store, round_id, "T1")
    assert rec.replay_note == "" and sum((s.payout for s in rec.settlements), Decimal(0)) == Decimal("209.00")


def test_rules_the_pit_boss_station_loads_are_kept_and_read_back(store: Store) -> None:
    """The pit-boss station's rules (journaled as rules.changed in today's journals) are kept too: a
    table that opens its next round under them is recalled and approved with them."""
    from engine.floor.actions import RulesCandidate

    async def go() -> str:
        svc = make_service(store, approval_threshold=Decimal(100))  # the shipped rules first
        await svc.start()
        candidate = RulesCandidate(HOUSE, HOUSE_TEXT, "house.toml", "")
        actions.load_rules(store, "T1", candidate, "new paytable approved by the commission", PITBOSS)
        await svc.open_bets(CROUPIER)
        assert svc.state.rules is not None and svc.state.rules.sha256 == HOUSE.sha256
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
        await svc.no_more_bets(CROUPIER)
        assert svc.round is not None and svc.round.draw is not None
        assert 17 not in svc.round.draw.lucky and svc.round.draw.bonus_number != 17  # (seed 7)
        await wheel(svc, {"type": "result", "game": None, "number": 17})
        await svc.confirm_result(CROUPIER)
        return str(svc.state.round_id)

    round_id = run(go())
    forget_cached()
    subs = schema.rules_submissions
    with store.read() as conn:
        names = dict(conn.execute(sa.select(subs.c.sha256, subs.c.name)).all())
    assert names == {load_default_rules().sha256: "Diamond Rush Roulette default", HOUSE.sha256: HOUSE.name}
    assert actions.approve_payout(store, round_id, "checked", PITBOSS, table="T1") == Decimal("175.00")


def test_a_restarted_table_plays_on_under_the_house_rules(store: Store) -> None:
    """After a restart (recovery seeds the rules from the journal) the next round is still played,
    recalled and shown under the house paytable."""
    _play_two_rounds(store)

    async def go() -> str:
        svc = make_service(store)  # no rules given: the journal's latest stay
        await svc.start()
        assert svc.state.rules is not None and svc.state.rules.sha256 == HOUSE.sha256
        round_id, paid = await _play_settled_round(svc)
        assert paid == Decimal("209.00")
        await svc.close()
        return round_id

    round_id = run(go())
    rec = recall_round(store, round_id, "T1")
    assert rec.rules_sha256 == HOUSE.sha256 and settlement_records(rec)[0]["payout"] == "175.00"


def test_the_report_weighs_each_rounds_bets_by_its_own_rules(store: Store) -> None:
    """A day with a round under the shipped rules and two under the house paytable: the theoretical
    win is each round's handle by bet times that bet's edge under the round's own rules."""
    from datetime import UTC, datetime, timedelta
    from fractions import Fraction

    from engine.floor.reports import table_report
    from engine.store.stats import house_edges

    async def go() -> None:
        svc = make_service(store, approval_threshold=Decimal(100000))  # the shipped rules first
        await svc.start()
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
        await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(10))
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "game": None, "number": 4})
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        await svc.load_rules(PITBOSS, HOUSE_TEXT.encode("utf-8"), "house.toml")
        await _play_settled_round(svc)
        await svc.close()

    run(go())
    default, house = house_edges(load_default_rules()), house_edges(HOUSE)
    assert default["straight"] != house["straight"]
    expected = (5 * default["straight"] + 10 * default["red"]) + (
        5 * house["straight"] + 2 * house["split"] + 10 * house["red"]
    )
    day = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    rep = table_report(store, "T1", day - timedelta(days=1), day + timedelta(days=2))  # (at midnight too)
    assert rep.handle == Decimal(32)
    assert rep.theoretical_hold == expected / 32
    assert rep.theoretical_win == (Decimal(expected.numerator) / Decimal(expected.denominator)).quantize(
        Decimal("0.01")
    )
    assert isinstance(rep.theoretical_hold, Fraction)


def test_the_floor_database_gets_the_rules_with_the_forwarded_journal(store: Store, tmp_path: Any) -> None:
    """Forwarded entries are projected centrally: the floor's recall and history use the same rules."""
    from engine.store import open_store
    from engine.store.forward import Forwarder

    round_id = _play_two_rounds(store)
    forget_cached()
    with open_store(str(tmp_path / "floor.sqlite")) as central:
        assert Forwarder(store, central, ["T1"], batch=7).forward_once() > 0
        assert _projections(central) == _projections(store)
        rec = recall_round(central, round_id, "T1")
        assert [s["payout"] for s in settlement_records(rec)] == ["175.00", "34.00", "0.00"]


def test_an_old_journals_rules_changed_entry_is_kept_and_back_filled(store: Store) -> None:
    """Journals of today's schema hold the pit-boss station's `rules.changed` (the legacy spelling of
    table.rules_loaded, text without a name): the store keeps it on append and on a back-fill."""
    from engine.store.rules_store import backfill

    legacy = {
        "sha256": HOUSE.sha256,
        "source": "house.toml",
        "text": HOUSE_TEXT,
        "reason": "approved paytable",
        "by": "pete",
        "role": "pitboss",
        "effective": "next round",
    }
    store.journal.append("T7", "rules.changed", legacy, round_id=None, user="pete")
    subs = schema.rules_submissions
    with store.read() as conn:
        assert conn.execute(sa.select(subs.c.name, subs.c.first_table)).all() == [(HOUSE.name, "T7")]
    with store.begin() as conn:
        conn.execute(sa.delete(subs))
        assert backfill(conn) == 1
    forget_cached()
    assert rules_for(store, HOUSE.sha256) == HOUSE


def test_a_rules_entry_whose_text_is_not_its_sha256_is_not_journaled(store: Store) -> None:
    forged = {"sha256": HOUSE.sha256, "name": HOUSE.name, "text": HOUSE_TEXT.replace("35", "36")}
    with pytest.raises(DrrError, match=f"does not hash to its sha256 {HOUSE.sha256}") as err:
        store.journal.append("T1", "table.rules_loaded", forged, round_id=None, user="pete")
    assert "\n" not in err.value.message and store.journal.head("T1") is None
