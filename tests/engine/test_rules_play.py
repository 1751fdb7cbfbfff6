"""Issue 23 finding 5: a table plays only the Rules Submission `drr rules check` accepts, on every load
path, refused with the check's own lines and exit 2; a seeded generator only on a demo's or test's store."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from engine.errors import DrrError
from engine.math.rules_gate import check_rules_file
from engine.rng import SeededRng, SystemRng
from engine.rules import default_rules_path, parse_rules
from engine.rules_play import (
    RefusedForPlay,
    problems_for_play,
    production_rounds,
    rules_for_play,
    seeded_play_problem,
    store_purpose,
)
from engine.store import open_store
from engine.table.service import TableService
from gui.cli import main

BASE = default_rules_path().read_text(encoding="utf-8")
# Chapter 617a's base odds with the Lucky draw on top: 111.9208% on a straight up (issue 23's 111.92%).
OVER_100 = (
    BASE.replace("straight = 29", "straight = 35")
    .replace("split = 14", "split = 17")
    .replace("street = 9 ", "street = 11 ")
    .replace("corner = 6.5", "corner = 8")
    .replace("six_line = 4", "six_line = 5")
)
REASON = "payouts.straight: Straight up returns 111.9208% to the player"


@pytest.fixture
def bad_rules(tmp_path: Path) -> Path:
    f = tmp_path / "house-loses.toml"
    f.write_text(OVER_100, encoding="utf-8")
    return f


@pytest.fixture(autouse=True)
def _own_dirs(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "keys"))
    monkeypatch.delenv("DRR_CONFIG", raising=False)


def test_the_verdict_is_the_checks_own(bad_rules: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = parse_rules(OVER_100.encode())  # structurally valid: the math refuses it
    _, check_lines = check_rules_file(bad_rules)
    assert problems_for_play(rules) == check_lines and any(REASON in line for line in check_lines)
    assert problems_for_play(parse_rules(BASE.encode())) == []
    assert main(["rules", "check", str(bad_rules)]) == 1
    err = capsys.readouterr().err
    assert all(line in err for line in problems_for_play(rules))
    with pytest.raises(RefusedForPlay) as refused:
        rules_for_play(OVER_100.encode(), source="x.toml")
    assert refused.value.exit_code == 2 and refused.value.violations == check_lines


def _entries(db: Path, table: str) -> list[str]:
    if not db.exists():
        return []
    with open_store(str(db), table=table) as store:
        return [e.type for e in store.journal.entries(table)]


def test_drr_table_run_headless_refuses_it(
    tmp_path: Path, bad_rules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "t.sqlite"
    args = ["table", "run", "--headless", "--wheel", "sim", "--speed", "250", "--rounds", "1"]
    assert main([*args, "--db", str(db), "--table", "T1", "--rules", str(bad_rules)]) == 2
    err = capsys.readouterr().err
    assert REASON in err and "NOT valid" in err and "Traceback" not in err
    assert "round.opened" not in _entries(db, "T1")


def test_the_table_service_refuses_it_at_start_and_from_a_pit_boss(tmp_path: Path) -> None:
    from engine.auth import User

    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
        svc = TableService(store, "T1", rules_text=OVER_100.encode(), rng=SystemRng())
        with pytest.raises(RefusedForPlay) as refused:
            asyncio.run(svc.start())
        assert REASON in refused.value.message
        assert [e.type for e in store.journal.entries("T1")] == []
        svc = TableService(store, "T1", rng=SystemRng())

        async def load() -> None:
            await svc.start()
            try:
                await svc.load_rules(User("pat", "pitboss"), OVER_100.encode())
            finally:
                await svc.close()

        with pytest.raises(RefusedForPlay):
            asyncio.run(load())


def test_bets_do_not_open_under_a_refused_submission_an_older_program_journaled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate (engine.table.gate) asks the same check before bets open: a journal whose latest Rules
    Submission was loaded before the check existed is not played under it."""
    from engine.auth import User
    from engine.table import round_commands
    from engine.table.gate import TableTilted

    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:

        async def older_program_loads_it() -> None:
            svc = TableService(store, "T1", rng=SystemRng())
            await svc.start()
            with monkeypatch.context() as m:  # the load as it was: structure only
                m.setattr(round_commands, "rules_for_play", lambda text, source="": parse_rules(text))
                await svc.load_rules(User("pat", "pitboss"), OVER_100.encode())
            await svc.close()

        asyncio.run(older_program_loads_it())

        async def open_bets() -> None:
            svc = TableService(store, "T1", rng=SystemRng())
            await svc.start()
            try:
                await svc.open_bets(User("cora", "croupier"))
            finally:
                await svc.close()

        with pytest.raises(TableTilted) as refused:
            asyncio.run(open_bets())
        assert REASON in str(refused.value) and "drr rules check accepts" in str(refused.value)
        assert "round.opened" not in [e.type for e in store.journal.entries("T1")]


def test_the_croupier_station_refuses_it(
    tmp_path: Path, bad_rules: Path, capsys: pytest.CaptureFixture[str], qapp: object
) -> None:
    db = tmp_path / "t.sqlite"
    args = ["gui", "--station", "croupier", "--table", "T1", "--db", str(db), "--rules", str(bad_rules)]
    assert main([*args, "--first-frame-exit"]) == 2
    err = capsys.readouterr().err
    assert REASON in err and "Traceback" not in err
    assert _entries(db, "T1") == []


ROUND = {
    "lucky": {"17": "199"},
    "bonus_number": 8,
    "result": 17,
    "wagers": [{"id": "w1", "player": "anna", "bet": "straight", "numbers": [17], "amount": "10"}],
}


def test_drr_settle_refuses_it(tmp_path: Path, bad_rules: Path, capsys: pytest.CaptureFixture[str]) -> None:
    round_file = tmp_path / "round.json"
    round_file.write_text(json.dumps(ROUND), encoding="utf-8")
    ok = tmp_path / "ok.toml"
    ok.write_text(BASE, encoding="utf-8")
    assert main(["settle", str(round_file), "--rules", str(ok)]) == 0
    capsys.readouterr()
    assert main(["settle", str(round_file), "--rules", str(bad_rules)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and REASON in out.err and "Traceback" not in out.err


def test_drr_certify_refuses_it_with_exit_2(
    tmp_path: Path, bad_rules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "pack"
    assert main(["certify", str(pack), "--rules", str(bad_rules)]) == 2
    err = capsys.readouterr().err
    assert REASON in err and "Traceback" not in err
    assert not pack.exists() or not any(pack.iterdir())


# -- a seeded generator only on a demo's or a test's store ----------------------------------------


def _headless(db: Path, *extra: str, rounds: int = 1) -> list[str]:
    args = ["table", "run", "--headless", "--wheel", "sim", "--speed", "250", "--rounds", str(rounds)]
    return [*args, "--db", str(db), "--table", "T1", *extra]


def test_seed_is_refused_on_a_store_that_played_production_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "prod.sqlite"
    assert main(_headless(db)) == 0  # the OS generator: a production round
    capsys.readouterr()
    with open_store(str(db), table="T1") as store:
        assert store_purpose(store, "T1") == "production"
        assert "1 production round(s)" in (seeded_play_problem(store, "T1") or "")
    assert main(_headless(db, "--seed", "4")) == 2
    err = capsys.readouterr().err
    assert "--seed is refused" in err and "production round" in err and "Traceback" not in err
    assert _entries(db, "T1").count("table.started") == 1  # nothing journaled by the refused start


def test_seed_is_refused_on_a_store_created_for_production(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
        svc = TableService(store, "T1", rng=SystemRng())
        asyncio.run(svc.start())
        asyncio.run(svc.close())
        seeded = TableService(store, "T1", rng=SeededRng(1), allow_seeded_rng=True)
        with pytest.raises(DrrError) as refused:
            asyncio.run(seeded.start())
        assert refused.value.exit_code == 2 and "created by a production table" in refused.value.message


def test_seed_plays_on_a_demo_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "demo.sqlite"
    assert main(_headless(db, "--seed", "4")) == 0
    assert main(_headless(db, "--seed", "5")) == 0
    with open_store(str(db), table="T1") as store:
        assert store_purpose(store, "T1") == "demo/test"
        assert seeded_play_problem(store, "T1") is None


def test_the_days_report_never_counts_seeded_rounds_as_production_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from datetime import UTC, datetime, timedelta
    from decimal import Decimal

    from engine.floor.reports import table_report
    from engine.store.history import list_rounds

    db = tmp_path / "demo-then-production.sqlite"
    assert main(_headless(db, "--seed", "4", rounds=2)) == 0
    now = datetime.now(UTC)
    since, until = now - timedelta(days=1), now + timedelta(days=1)
    with open_store(str(db), table="T1") as store:
        demo = table_report(store, "T1", since, until)
    assert (demo.rounds, demo.seeded, demo.only_seeded) == (2, 2, True)
    assert dict(demo.figures())["Play"] == "seeded (tests and demos): not production"
    assert main(_headless(db)) == 0  # a production round on the same store
    with open_store(str(db), table="T1") as store:
        rep = table_report(store, "T1", since, until)
        rounds = [r for r in list_rounds(store) if r["table"] == "T1"]
    production = [r for r in rounds if r["round_id"] not in {"T1-000001", "T1-000002"}]
    assert len(rounds) == 3 and len(production) == 1
    assert (rep.rounds, rep.settled, rep.seeded, rep.only_seeded) == (1, 1, 2, False)
    assert rep.handle == sum(Decimal(r["wagered"]) for r in production)
    assert rep.returned == sum(Decimal(r["returned"]) for r in production)
    figures = dict(rep.figures())
    assert figures["Play"] == "production (2 seeded rounds left out)"
    assert figures["Seeded rounds (tests and demos)"] == "2" and figures["Rounds"] == "1"


def test_an_old_journals_round_closed_draws_count_as_production_rounds(tmp_path: Path) -> None:
    """An early journal spells the draw `round.closed` and names no generator: those rounds were a
    production table's, so a seeded generator may not play on after them (the count read only the
    new spelling before, and let --seed on)."""
    from engine.journal_types import write
    from engine.round import RoundOpened
    from engine.store.records import NewEvent

    with open_store(str(tmp_path / "old.sqlite"), table="T1") as store:
        opened = write(RoundOpened("T1-000001", "0" * 64), table="T1", round_id="T1-000001")
        old_draw = {"lucky": [[17, "199"]], "bonus_number": 5}
        store.journal.append_many([opened, NewEvent("T1", "round.closed", old_draw, round_id="T1-000001")])
        assert production_rounds(store, "T1") == 1
        assert "1 production round(s)" in (seeded_play_problem(store, "T1") or "")


def test_production_rounds_are_counted_in_sql_not_draw_by_draw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seeded draw and a production one: the count is one, and no draw's payload is typed for it
    (a store of a million rounds was read and typed entry by entry; issue 22's final read)."""
    import json

    import engine.journal_types as journal_types
    from engine.store.records import NewEvent

    db = tmp_path / "mixed.sqlite"
    assert main(_headless(db, "--seed", "4")) == 0  # a seeded round
    with open_store(str(db), table="T1") as store:
        seeded = next(e for e in store.journal.entries("T1") if e.type == "round.bets_closed")
        draw = json.loads(seeded.payload_text)
        assert draw["draw"]["rng"].startswith("seeded:")
        draw["draw"]["rng"] = "system"  # the same draw, by the OS generator: a production round's
        store.journal.append_many([NewEvent("T1", "round.bets_closed", draw, round_id=seeded.round_id)])

        def typed(*_args: object) -> object:
            raise AssertionError("a draw was typed to count it")

        # Every typing of a payload goes through the registry's _parse (journal_types.read and parse).
        monkeypatch.setattr(journal_types, "_parse", typed)
        assert production_rounds(store, "T1") == 1
