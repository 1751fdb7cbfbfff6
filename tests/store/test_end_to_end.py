"""A real headless table (`drr table run`) writes its SQLite journal; the store's commands read it, and the
forwarder copies it to the floor database (PostgreSQL when DRR_TEST_PG_URL is set), where it verifies and
gives the same statistics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from engine.store import open_store
from engine.store.forward import Forwarder
from engine.store.stats import table_stats
from engine.store.verify import verify
from gui.cli import main

DRR = str(Path(sys.executable).with_name("drr"))


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DRR_CONFIG", None)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / "xdg" / var.lower())
    return env


@pytest.mark.slow
def test_headless_table_then_audit_stats_history_and_forwarding(
    tmp_path: Path, central_url: str, table_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "table.sqlite"
    run = subprocess.run(
        [DRR, "table", "run", "--headless", "--wheel", "sim", "--speed", "200", "--rounds", "12",
         "--db", str(db), "--table", table_id, "--seed", "11"],
        capture_output=True, text=True, timeout=300, env=_env(tmp_path),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr

    assert main(["audit", "verify", "--db", str(db), "--table", table_id]) == 0
    assert capsys.readouterr().out.startswith("OK: ")

    # Money in the statistics equals the sum of the journal's own round.settled facts.
    with open_store(str(db)) as store:
        settled = [e.payload for e in store.journal.entries(table_id) if e.type == "round.settled"]
        stats = table_stats(store, table_id)
        results = [e.payload["number"] for e in store.journal.entries(table_id) if e.type == "round.result"]
    assert len(settled) == 12 == stats["hold"]["rounds_settled"]
    wagered = sum(Decimal(p["total_wagered"]) for p in settled)
    returned = sum(Decimal(p["total_returned"]) for p in settled)
    assert Decimal(stats["hold"]["wagered"]) == wagered
    assert Decimal(stats["hold"]["win"]) == wagered - returned
    assert stats["counts"] == [results.count(n) for n in range(37)]

    assert main(["history", "list", "--db", str(db), "--table", table_id, "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(listed) == 12 and all(r["status"] == "settled" for r in listed)
    first = listed[0]["round_id"]
    assert main(["history", "show", first, "--db", str(db), "--json"]) == 0
    recall = json.loads(capsys.readouterr().out)
    types = [e["type"] for e in recall["entries"]]
    assert types[0] == "round.opened" and {"round.bets_closed", "round.result", "round.settled"} <= set(types)

    with open_store(str(db)) as local, open_store(central_url) as central:
        assert Forwarder(local, central, [table_id], batch=50).forward_once() > 0
        assert verify(central, table_id).ok
        assert central.journal.head(table_id) == local.journal.head(table_id)
        remote = table_stats(central, table_id)
    assert remote["counts"] == stats["counts"] and remote["hold"] == stats["hold"]
