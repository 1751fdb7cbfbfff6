"""`drr alerts`, `drr pitboss` and `drr report`: the same role checks as the stations, from the shell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.store import Store, schema
from gui.cli import main
from tests.floor.helpers import PINS
from tests.floor.played import DemoFloor


@pytest.fixture
def floor(demo_floor: DemoFloor) -> Store:
    # A manual result (round 26) among them; the demo floor tests/gui/test_pitboss.py and
    # tests/floor/test_floor_engine.py play too, one template per test process (issue 29.2).
    return demo_floor({"T1": 45}, users=True)


def _last_type(store: Store, table: str) -> str:
    j = schema.journal
    with store.read() as conn:
        return str(
            conn.execute(
                sa.select(j.c.type).where(j.c.table_id == table).order_by(j.c.seq.desc()).limit(1)
            ).scalar()
        )


def test_correct_approve_and_settings_for_a_pitboss_refused_for_a_croupier(
    floor: Store, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", store_url]
    for user in ("cody", "sam"):
        code = main(["pitboss", "correct", "T1-000005", "--number", "3", *db, "--reason", "misread",
                     "--user", user, "--pin", PINS[user]])  # fmt: skip
        assert code == 3
        assert "may not correct result" in capsys.readouterr().err
    # Nothing journaled: the chain still ends where the table left it (the croupier cleared the felt).
    assert _last_type(floor, "T1") == EntryType.TABLE_NEXT_ROUND
    assert main(["pitboss", "correct", "T1-000005", "--number", "3", *db, "--reason", "misread",
                 "--user", "pat", "--pin", "0000"]) == 3  # fmt: skip
    assert "wrong PIN" in capsys.readouterr().err
    old = next(
        json.loads(line)["result"]
        for line in _history_json(store_url, capsys)
        if json.loads(line)["round_id"] == "T1-000005"
    )
    new = (old + 1) % 37
    assert main(["pitboss", "correct", "T1-000005", "--number", str(new), *db, "--reason", "misread",
                 "--user", "pat", "--pin", PINS["pat"]]) == 0  # fmt: skip
    assert f"result {old} corrected to {new} by pat" in capsys.readouterr().out
    assert main(["pitboss", "approve", "T1-000006", *db, "--reason", "checked", "--user", "pat",
                 "--pin", PINS["pat"]]) == 0  # fmt: skip
    assert _last_type(floor, "T1") == "round.payout_approved"
    assert main(["pitboss", "settings", "max_bet=500", "--table", "T1", *db, "--reason", "new limits",
                 "--user", "pat", "--pin", PINS["pat"]]) == 0  # fmt: skip
    assert _last_type(floor, "T1") == "table.settings_changed"
    assert main(["pitboss", "settings", "max_bet", "--table", "T1", *db, "--reason", "x", "--user", "pat",
                 "--pin", PINS["pat"]]) == 1  # fmt: skip
    assert "is not KEY=VALUE" in capsys.readouterr().err


def _history_json(url: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    # Reading a store that has users needs a reader's sign-in (issue 13: was readable anonymously).
    sam = ["--user", "sam", "--pin", PINS["sam"]]
    assert main(["history", "list", "--db", url, "--table", "T1", "--json", *sam]) == 0
    return capsys.readouterr().out.splitlines()


def test_rules_are_shown_first_and_loaded_with_yes(
    floor: Store, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = "resources/rules/default.toml"
    args = ["pitboss", "rules", rules, "--table", "T1", "--db", store_url, "--reason", "approved paytable",
            "--user", "pat", "--pin", PINS["pat"]]  # fmt: skip
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "Game math" in out and "run again with --yes" in out
    assert _last_type(floor, "T1") != "table.rules_loaded"
    assert main([*args, "--yes"]) == 0
    assert _last_type(floor, "T1") == "table.rules_loaded"


def test_alerts_scan_list_and_ack(floor: Store, store_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    db = ["--db", store_url]
    sam = ["--user", "sam", "--pin", PINS["sam"]]
    assert main(["alerts", "scan", *db]) == 3  # a store with users: reading needs a sign-in (issue 13)
    assert "needs --user" in capsys.readouterr().err
    assert main(["alerts", "list", *db]) == 3
    assert "needs --user" in capsys.readouterr().err
    assert main(["alerts", "list", *db, "--user", "cody", "--pin", PINS["cody"]]) == 3  # a croupier
    capsys.readouterr()
    assert main(["alerts", "scan", *db, *sam]) == 0
    assert "new alert(s)" in capsys.readouterr().out
    assert main(["alerts", "list", "--json", *db, *sam]) == 0
    alerts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert alerts and all(a["acknowledged_by"] is None for a in alerts)
    target = alerts[0]["alert_id"]
    assert main(["alerts", "ack", target, *db, "--user", "cody", "--pin", PINS["cody"]]) == 3
    capsys.readouterr()
    assert main(["alerts", "ack", target, *db, "--user", "sam", "--pin", PINS["sam"], "--note", "seen"]) == 0
    assert f"alert {target} acknowledged by sam" in capsys.readouterr().out
    assert main(["alerts", "list", "--open", "--json", *db, *sam]) == 0
    still_open = {json.loads(line)["alert_id"] for line in capsys.readouterr().out.splitlines()}
    assert target not in still_open and len(still_open) == len(alerts) - 1


def test_report_prints_and_writes_csv(
    floor: Store, store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_csv = tmp_path / "t1.csv"
    assert (
        main(["report", "--table", "T1", "--day", "2026-11-29", "--db", store_url, "--csv", str(out_csv)])
        == 3  # a store that has users: a reader must sign in (issue 13)
    )
    capsys.readouterr()
    sam = ["--user", "sam", "--pin", PINS["sam"]]
    assert (
        main(
            ["report", "--table", "T1", "--day", "2026-11-29", "--db", store_url, "--csv", str(out_csv), *sam]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "Rounds                 45" in printed and "Theoretical win" in printed
    assert out_csv.read_text(encoding="utf-8").startswith("Table,From (UTC)")
    assert main(["report", "--table", "T1", "--day", "29/11/2026", "--db", store_url]) == 1
    assert "is not a date" in capsys.readouterr().err
