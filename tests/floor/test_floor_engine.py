"""engine/floor: power calculation, sequence tests, alerts, signed-off actions by role, history pages,
reports and recall — against a real store (SQLite, or PostgreSQL with DRR_TEST_PG_URL)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.auth import AuthenticationFailed, PermissionDenied
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.floor import actions
from engine.floor.alerts import AlertScanner, acknowledge_alert, list_alerts
from engine.floor.history_page import HistoryQuery, fetch_page
from engine.floor.power import detectable_ratio, spins_needed, verdict
from engine.floor.recall import recall_round
from engine.floor.reports import report_csv, table_report
from engine.floor.sequence import Spin, dealer_signature, repeats
from engine.floor.surveillance import floor_tables, table_view
from engine.floor.windows import everything, last_spins, period_bounds, shift_bounds
from engine.rules import load_default_rules
from engine.store import Store, schema
from engine.store.history import list_rounds
from engine.store.stats import house_edges, table_stats
from engine.wheel_layout import WHEEL_ORDER, wheel_distance
from tests.floor.helpers import PINS, USERS, add_users, import_spins
from tests.floor.played import DemoFloor
from tests.payloads import RULES_SHA


def test_spins_needed_falls_with_the_size_of_the_bias_and_inverts() -> None:
    n12 = spins_needed(1.2)
    assert 10_000 < n12 < 30_000
    assert spins_needed(1.5) < n12 < spins_needed(1.1)
    assert detectable_ratio(n12) == pytest.approx(1.2, abs=0.01)
    assert detectable_ratio(0) is None


def test_verdict_speaks_plainly() -> None:
    fair = {"spins": 1000, "chi_square": {"p_value": 0.5}, "z_scores": {"flagged": []}}
    assert verdict(fair).startswith("no evidence of bias at 1,000 spins; a 1.2x number needs ~")
    biased = {"spins": 5000, "chi_square": {"p_value": 1e-6}, "z_scores": {"flagged": [17]}}
    assert "possible bias at 5,000 spins" in verdict(biased) and "17" in verdict(biased)


def test_distance_is_clockwise_pockets_on_the_wheel() -> None:
    assert wheel_distance(0, 32) == 1
    assert wheel_distance(32, 0) == 36
    assert wheel_distance(26, 0) == 1


def test_dealer_signature_flags_a_dealer_who_lands_a_fixed_distance() -> None:
    import random

    rng = random.Random(3)
    spins = [Spin(0, "steady")]
    for _ in range(800):
        pos = (WHEEL_ORDER.index(spins[-1].number) + rng.choice((9, 10, 11))) % 37
        spins.append(Spin(WHEEL_ORDER[pos], "steady"))
    for _ in range(800):
        spins.append(Spin(rng.randrange(37), "random"))
    by = {d["dealer"]: d for d in dealer_signature(spins)}
    assert by["steady"]["flagged"] and by["steady"]["p_value"] < 1e-10
    assert not by["random"]["flagged"]


def test_repeats_beyond_chance() -> None:
    assert repeats([5] * 6 + list(range(30)))["flagged"]
    calm = repeats(list(range(37)) * 5)
    assert calm["repeats"] == 0 and not calm["flagged"]


def test_shift_bounds_wrap_midnight() -> None:
    start, end = shift_bounds(datetime(2026, 11, 29, 3, 0, tzinfo=UTC))
    assert (start.day, start.hour, end.day, end.hour) == (28, 22, 29, 6)


def test_table_view_statistics_are_drr_stats(demo_floor: DemoFloor, tmp_path: Path) -> None:
    store = demo_floor({"T1": 60}, bonus_every=20)
    import_spins(store, tmp_path, "T2", [n % 37 for n in range(2000)])
    assert floor_tables(store) == ["T1", "T2"]
    for window in (last_spins(100), everything()):
        view = table_view(store, "T1", window)
        assert view.stats["counts"] == table_stats(store, "T1", **window.stats_kwargs())["counts"]
        assert view.layout["counts"] == view.stats["counts"]
        assert view.wheel["counts"] == [view.stats["counts"][n] for n in WHEEL_ORDER]
        assert view.layout["band_low"] <= view.layout["expected"] <= view.layout["band_high"]
    view = table_view(store, "T1", everything())
    assert view.rotor and {d for _, _, d in view.rotor} == {"cw", "ccw"}
    assert sum(view.bonus_odds.values()) >= 3  # one bonus game every 20 rounds, at least one player each


def test_alerts_are_raised_once_and_acknowledged_by_role(demo_floor: DemoFloor) -> None:
    store, users = demo_floor({"T1": 60}, users=True), USERS
    actions.void(store, "T1-000010", "dealer error", users["pitboss"], table="T1")
    scanner = AlertScanner(payout_threshold=Decimal("400"))
    first = scanner.scan(store, ["T1"])
    kinds = {a.kind for a in first}
    assert {"void", "manual result", "large payout"} <= kinds
    assert all(a.at is not None and a.at.startswith("2026-11-29") for a in first if a.kind != "void")
    assert AlertScanner(payout_threshold=Decimal("400")).scan(store, ["T1"]) == []  # once only
    target = first[0]
    with pytest.raises(PermissionDenied):
        acknowledge_alert(store, target.alert_id, users["croupier"])
    acknowledge_alert(store, target.alert_id, users["surveillance"], "seen on camera")
    acked = {a.alert_id: a for a in list_alerts(store)}[target.alert_id]
    assert acked.acknowledged_by == "sam" and acked.acknowledged_at is not None
    with pytest.raises(DrrError, match="was acknowledged by sam"):
        acknowledge_alert(store, target.alert_id, users["pitboss"])


def _journal_types(store: Store, table: str) -> list[str]:
    j = schema.journal
    with store.read() as conn:
        return list(
            conn.execute(sa.select(j.c.type).where(j.c.table_id == table).order_by(j.c.seq)).scalars()
        )


@pytest.mark.parametrize("role", ["croupier", "surveillance"])
def test_every_pitboss_action_is_refused_to_other_roles(demo_floor: DemoFloor, role: str) -> None:
    store, users = demo_floor({"T1": 5}, users=True), USERS
    user = users[role]
    before = _journal_types(store, "T1")
    candidate = actions.read_rules_candidate(Path("resources/rules/default.toml"))
    for attempt in (
        lambda: actions.void(store, "T1-000001", "why", user, table="T1"),
        lambda: actions.correct_result(store, "T1-000002", 5, "why", user, table="T1"),
        lambda: actions.approve_payout(store, "T1-000003", "why", user, table="T1"),
        lambda: actions.change_settings(store, "T1", {"max_bet": "500"}, "why", user),
        lambda: actions.load_rules(store, "T1", candidate, "why", user),
    ):
        with pytest.raises(PermissionDenied, match=f"{user.name} \\({role}\\) may not"):
            attempt()
    assert _journal_types(store, "T1") == before
    with pytest.raises(PermissionDenied):
        actions.authorize(store, user.name, PINS[user.name], "void_round", station="pitboss")
    with pytest.raises(AuthenticationFailed):
        actions.authorize(store, "pat", "0000", "void_round", station="pitboss")


def test_pitboss_actions_are_journaled_and_keep_both_results(demo_floor: DemoFloor) -> None:
    store, users = demo_floor({"T1": 5}, users=True), USERS
    boss = actions.authorize(store, "pat", PINS["pat"], "correct_result", station="pitboss")
    assert boss == users["pitboss"]
    row = next(r for r in list_rounds(store) if r["round_id"] == "T1-000002")
    new = (row["result"] + 1) % 37
    counts_before = table_stats(store, "T1")["counts"]
    assert actions.correct_result(store, "T1-000002", new, "misread", boss, table="T1") == row["result"]
    counts_after = table_stats(store, "T1")["counts"]
    assert counts_after[new] == counts_before[new] + 1
    assert counts_after[row["result"]] == counts_before[row["result"]] - 1
    rec = recall_round(store, "T1-000002", "T1")
    assert (rec.original_result, rec.result) == (row["result"], new)
    with pytest.raises(DrrError, match="already has the result"):
        actions.correct_result(store, "T1-000002", new, "again", boss, table="T1")
    with pytest.raises(DrrError, match="give a reason"):
        actions.approve_payout(store, "T1-000003", "  ", boss, table="T1")
    actions.approve_payout(store, "T1-000003", "big win checked", boss, table="T1")
    actions.void(store, "T1-000004", "dealer error", boss, table="T1")
    with pytest.raises(DrrError, match="unknown table setting"):
        actions.change_settings(store, "T1", {"colour": "blue"}, "why", boss)
    actions.change_settings(store, "T1", {"max_bet": "500", "dealer": "eli"}, "new limits", boss)
    assert actions.current_settings(store, "T1") == {"max_bet": "500", "dealer": "eli"}
    candidate = actions.read_rules_candidate(Path("resources/rules/default.toml"))
    assert "Game math" in candidate.report or "to 1" in candidate.report
    actions.load_rules(store, "T1", candidate, "new paytable approved", boss)
    types = _journal_types(store, "T1")
    for kind in ("round.result_corrected", "round.payout_approved", "round.voided", "table.settings_changed",
                 "table.rules_loaded"):  # fmt: skip
        assert kind in types
    j = schema.journal
    with store.read() as conn:
        # The pit boss's entry (the table journaled its own rules_loaded when it started, as tables do).
        payload = conn.execute(
            sa.select(j.c.payload).where(j.c.type == "table.rules_loaded", j.c.user_name == "pat")
        ).scalar_one()
    assert json.loads(payload)["effective"] == "next round"


def test_a_bad_rules_submission_is_refused_with_its_violations(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[payouts]\nstraight = 'lots'\n", encoding="utf-8")
    with pytest.raises(DrrError) as info:
        actions.read_rules_candidate(bad)
    assert "bad.toml" in info.value.message


def test_history_pages_by_keyset_cover_every_round_once(store: Store, tmp_path: Path) -> None:
    import_spins(store, tmp_path, "T9", [(7 * n) % 37 for n in range(1234)])
    seen: list[str] = []
    cursor = None
    while True:
        rows, cursor = fetch_page(store, HistoryQuery(table="T9"), cursor, 100)
        seen += [r.round_id for r in rows]
        times = [r.time for r in rows]
        assert times == sorted(times, reverse=True)
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 1234
    rows, _ = fetch_page(store, HistoryQuery(table="T9", result=0, sort="time", descending=False), None, 1000)
    assert rows and all(r.result == 0 for r in rows)
    assert [r.time for r in rows] == sorted(r.time for r in rows)


def test_history_filters_irregular_and_hits(demo_floor: DemoFloor) -> None:
    store, users = demo_floor({"T1": 45}, users=True), USERS
    actions.void(store, "T1-000007", "test", users["pitboss"], table="T1")
    irregular, _ = fetch_page(store, HistoryQuery(table="T1", irregular=True), None, 500)
    assert "T1-000007" in {r.round_id for r in irregular}
    assert all(r.irregular for r in irregular)
    bonus, _ = fetch_page(store, HistoryQuery(table="T1", bonus_hit=True), None, 500)
    assert bonus and all(r.bonus_hit for r in bonus)
    found, _ = fetch_page(store, HistoryQuery(round_id="T1-000040"), None, 5)
    assert [r.round_id for r in found] == ["T1-000040"]


def test_report_figures_match_the_rounds(demo_floor: DemoFloor) -> None:
    # A manual result (26) and a bonus game (40) among them; any size checks the sums: the demo floor
    # other tests play too, one template per test process (issue 29.2).
    store = demo_floor({"T1": 40})
    since, until = datetime(2026, 11, 29, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)
    rep = table_report(store, "T1", since, until)
    rounds = [r for r in list_rounds(store) if r["table"] == "T1"]
    assert rep.rounds == len(rounds)
    assert rep.handle == sum(Decimal(r["wagered"]) for r in rounds if r["status"] == "settled")
    assert rep.paid == sum(Decimal(r["paid"]) for r in rounds if r["status"] == "settled")
    assert rep.returned == sum(Decimal(r["returned"]) for r in rounds if r["status"] == "settled")
    assert rep.win == rep.handle - rep.returned
    stats = table_stats(store, "T1", since=since, until=until, house_edge=house_edges(load_default_rules()))
    assert rep.theoretical_win == Decimal(stats["hold"]["theoretical_win"])
    assert rep.hold is not None and float(rep.hold) == pytest.approx(stats["hold"]["actual"])
    assert rep.largest[0].paid == max(Decimal(r["paid"]) for r in rounds)
    csv_text = report_csv([rep])
    assert csv_text.splitlines()[0].startswith("Table,From (UTC)")
    assert f"{rep.handle:.2f}" in csv_text


def test_recall_of_a_bonus_round_shows_every_step(demo_floor: DemoFloor) -> None:
    store = demo_floor({"T1": 40})
    rec = recall_round(store, "T1-000040", "T1")
    assert rec.result == rec.bonus_number
    assert rec.bonus_outcomes and rec.settlements
    picks = [s for s in rec.bonus_steps if s.kind == "bonus.box_picked"]
    assert picks and all("picked box" in s.text for s in picks)
    assert {w.player for w in rec.wagers} >= {"Anna", "Bob", "Dev", "Carla"}
    # The wheel's messages as the service journals them (the old demo wrote `wheel.rotor_speed`).
    assert [e.type for e in rec.wheel] == [
        EntryType.WHEEL_ROTOR,
        EntryType.WHEEL_LAUNCHED,
        EntryType.WHEEL_NO_MORE_BETS,
        EntryType.WHEEL_RESULT,
    ]
    assert rec.total_wagered == sum(w.amount for w in rec.wagers)


def test_wheel_faults_and_a_silent_table_raise_alerts(store: Store) -> None:
    from datetime import timedelta

    j = store.journal
    j.append("T5", "round.opened", {"round_id": "r1", "rules_sha256": RULES_SHA, "dealer": "dana"},
             round_id="r1", user="dana",
             time="2026-11-29T10:00:00.000000Z")  # fmt: skip
    j.append(
        "T5", "wheel.miss_spin", {"game": 7}, round_id="r1", user="wheel", time="2026-11-29T10:00:30.000000Z"
    )
    j.append("T5", "wheel.link", {"state": "disconnected", "detail": "cable"}, round_id=None, user="wheel",
             time="2026-11-29T10:01:00.000000Z")  # fmt: skip
    scanner = AlertScanner(silent_after=timedelta(minutes=10))
    alerts = scanner.scan(store, ["T5"], now=datetime(2026, 11, 29, 10, 5, tzinfo=UTC))
    assert [(a.kind, a.severity) for a in alerts] == [
        ("sensor fault", "warning"),
        ("sensor fault", "critical"),
    ]
    assert scanner.scan(store, ["T5"], now=datetime(2026, 11, 29, 10, 5, tzinfo=UTC)) == []
    later = scanner.scan(store, ["T5"], now=datetime(2026, 11, 29, 10, 30, tzinfo=UTC))
    assert [a.kind for a in later] == ["table silent"]
    assert "round is unfinished: bets are open" in later[0].message


def test_an_rng_fault_raises_one_critical_alert(store: Store) -> None:
    from engine.rng import HealthFailure
    from tests.rng.test_health import Stuck
    from tests.table.helpers import CROUPIER, make_service, some_wagers

    async def play() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        svc.rng.inner = Stuck()  # the source died: every value 0
        for _ in range(8):  # 40 bits of repeats already seen: the draw's first value fails the test
            svc.rng.randbelow(37)
        with pytest.raises(HealthFailure):
            await svc.no_more_bets(CROUPIER)

    import asyncio

    asyncio.run(play())
    scanner = AlertScanner()
    alerts = [a for a in scanner.scan(store, ["T1"]) if a.kind == "rng fault"]
    assert [(a.severity, a.table, a.round_id) for a in alerts] == [("critical", "T1", "T1-000001")]
    assert "repetition count test failed" in alerts[0].message
    assert scanner.scan(store, ["T1"]) == []
    assert AlertScanner().scan(store, ["T1"]) == []  # a new scanner (a restarted station): still once
    assert [a.kind for a in list_alerts(store)].count("rng fault") == 1


def test_a_payout_waiting_at_the_table_is_approved_with_its_amount(store: Store) -> None:
    from engine.floor.demo import play_rounds

    users = add_users(store)
    # The table confirms the result and the round waits for its settlement (the pit boss signs first).
    assert play_rounds(store, "T1", 1, seed="pending", leave_last_unsettled=True) == ["T1-000001"]
    rec = recall_round(store, "T1-000001", "T1")
    assert "not settled yet" in rec.replay_note
    expected = sum((s.payout for s in rec.settlements), Decimal(0))
    amount = actions.approve_payout(
        store, "T1-000001", "large straight-up win, camera checked", users["pitboss"]
    )
    assert amount == expected
    assert _journal_types(store, "T1")[-1] == "round.payout_approved"
    # The table then settles the round (the demo's croupier): it pays what the pit boss approved.
    play_rounds(store, "T1", 0, seed="pending")
    settled = [e for e in store.journal.entries("T1") if e.type == EntryType.ROUND_SETTLED]
    assert len(settled) == 1 and Decimal(settled[0].payload["total_paid"]) == amount


def test_alert_thresholds_come_from_the_settings() -> None:
    from engine.config import Settings
    from engine.floor.alerts import scanner_from_settings

    scanner = scanner_from_settings(Settings(payout_alert_threshold=Decimal("750"), silent_table_minutes=3,
                                    bias_alert_p_value=0.0001))  # fmt: skip
    assert (scanner.payout_threshold, scanner.silent_after.total_seconds(), scanner.bias_p) == (
        Decimal("750"),
        180,
        0.0001,
    )
    default = scanner_from_settings(None)
    assert (default.payout_threshold, default.bias_p) == (
        Settings().payout_alert_threshold,
        Settings().bias_alert_p_value,
    )


def test_recall_of_a_round_voided_after_settlement_keeps_its_payouts(demo_floor: DemoFloor) -> None:
    from engine.store.history import void_round

    store, users = demo_floor({"T1": 3}, users=True), USERS
    before = recall_round(store, "T1-000002", "T1")
    void_round(store, "T1-000002", "wrong ball in play", users["pitboss"], table="T1")
    rec = recall_round(store, "T1-000002", "T1")
    assert rec.record.status == "void"
    assert "voided by" in rec.replay_note and "after settlement" in rec.replay_note
    assert rec.settlements == before.settlements and rec.settlements


def test_irregular_filter_and_payout_sort_use_their_indexes(tmp_path: Path) -> None:
    # A page of these at a million rounds is a full scan without the indexes of migration 0005.
    from sqlalchemy.dialects import sqlite

    from engine.store import open_store

    with open_store(str(tmp_path / "plan.sqlite")) as store, store.read() as conn:
        for query, index in (
            (HistoryQuery(irregular=True), "ix_rounds_irregular"),
            (HistoryQuery(table="T1", irregular=True), "ix_rounds_table_irregular"),
            (HistoryQuery(sort="paid"), "ix_rounds_paid"),
            (HistoryQuery(table="T1", sort="paid"), "ix_rounds_table_paid"),
        ):
            r = schema.rounds
            select = (
                sa.select(r.c.round_id)
                .where(*query.where())
                .order_by(query.sort_column().desc(), r.c.table_id.desc(), r.c.round_id.desc())
                .limit(201)
            )
            sql = str(select.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
            plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql))
            assert index in plan, (query, plan)


def test_a_tables_own_silent_after_minutes_is_used_for_the_silent_alert(store: Store) -> None:
    from datetime import timedelta

    from engine.store.canonical import parse_time

    users = add_users(store)
    opened = {"round_id": "r1", "rules_sha256": RULES_SHA, "dealer": "dana"}
    store.journal.append("T6", "round.opened", opened, round_id="r1", user="dana", time="2026-11-29T10:00Z")
    scanner = AlertScanner(silent_after=timedelta(minutes=10))
    assert scanner.scan(store, ["T6"], now=datetime(2026, 11, 29, 10, 4, tzinfo=UTC)) == []
    actions.change_settings(store, "T6", {"silent_after_minutes": "3"}, "busy pit", users["pitboss"])
    last = parse_time(next(store.journal.entries("T6", 2)).time)
    assert scanner.scan(store, ["T6"], now=last + timedelta(minutes=2)) == []
    alerts = scanner.scan(store, ["T6"], now=last + timedelta(minutes=4))
    assert [a.kind for a in alerts] == ["table silent"] and "over 3 min" in alerts[0].message


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"min_bet": "100", "max_bet": "1"}, "min_bet 100 is above max_bet 1"),
        ({"large_payout": "1e400"}, "large_payout '1e400' is not an amount"),
        ({"large_payout": "Infinity"}, "large_payout 'Infinity' is not an amount"),
        ({"max_bet": "0"}, "must be a positive amount"),
        ({"large_payout": "99999999999"}, "is not an amount"),
    ],
)
def test_settings_are_bounded_and_consistent(store: Store, changes: dict[str, str], message: str) -> None:
    # Issue 13 item 7: min 100 with max 1 and large_payout = 1e400 (no approval ever) were accepted.
    boss = add_users(store)["pitboss"]
    with pytest.raises(DrrError, match=re.escape(message)):
        actions.change_settings(store, "T1", changes, "why", boss)
    actions.change_settings(store, "T1", {"max_bet": "50"}, "why", boss)
    with pytest.raises(DrrError, match="min_bet 100 is above max_bet 50"):
        actions.change_settings(store, "T1", {"min_bet": "100"}, "why", boss)
    assert actions.current_settings(store, "T1") == {"max_bet": "50"}


def test_a_reports_period_is_the_day_or_one_of_its_three_shifts() -> None:
    """`drr floor report --day --shift` and the pit boss's reports take their period from one place."""
    day = datetime(2026, 11, 29, 17, 5, tzinfo=UTC)  # any time of the day: that day's periods

    def at(d: int, h: int = 0) -> datetime:
        return datetime(2026, 11, d, h, tzinfo=UTC)

    assert period_bounds(day) == (at(29), at(30))
    assert [period_bounds(day, s) for s in (1, 2, 3)] == [(at(29, 6), at(29, 14)), (at(29, 14), at(29, 22)),
                                                         (at(29, 22), at(30, 6))]  # fmt: skip
