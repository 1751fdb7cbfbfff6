"""Issue 13 item 4: `drr db forward` compares heads on every run, whatever the lengths of the two chains."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.store import Store, open_store
from engine.store.forward import ChainDivergence, Forwarder
from gui.cli import main
from tests.store.helpers import play_round


def _play(store: Store, table: str, rounds: int, salt: int = 0, start: int = 0) -> None:
    for i in range(start, start + rounds):
        play_round(store, table, f"{table}-r{i}", (i * 7 + salt) % 37, paid="5.00")


def _alerts(central: Store) -> list[dict[str, object]]:
    return [dict(e.payload) for e in central.journal.entries("floor") if e.type == "alert.raised"]


@pytest.mark.parametrize("case", ["forged_same_length", "reset_shorter"])
def test_divergent_heads_stop_forward_with_an_alert(
    case: str, tmp_path: Path, central_url: str, table_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_store(str(tmp_path / "first.sqlite"), table=table_id) as first:
        _play(first, table_id, 10)
        with open_store(central_url) as central:
            assert Forwarder(first, central, [table_id]).forward_once() == 50
    other = tmp_path / "other.sqlite"
    with open_store(str(other), table=table_id) as second:
        # Same length but other results (a forged copy), or a journal reset to 2 rounds.
        _play(second, table_id, 10 if case == "forged_same_length" else 2, salt=3)
    rc = main(["db", "forward", "--db", str(other), "--to", central_url, "--table", table_id, "--once"])
    out = capsys.readouterr()
    assert rc != 0
    assert "diverge" in out.out + out.err and "Traceback" not in out.err
    with open_store(central_url) as central:
        alerts = _alerts(central)
        assert [a["kind"] for a in alerts] == ["chain_divergence"] and alerts[0]["table"] == table_id
        with open_store(str(other), table=table_id) as second, pytest.raises(ChainDivergence):
            Forwarder(second, central, [table_id]).forward_once()


def test_matching_heads_still_forward(tmp_path: Path, central: Store, table_id: str) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table=table_id) as local:
        _play(local, table_id, 2)
        assert Forwarder(local, central, [table_id]).forward_once() == 10
        assert Forwarder(local, central, [table_id]).forward_once() == 0
        _play(local, table_id, 1, salt=5, start=2)
        assert Forwarder(local, central, [table_id]).forward_once() == 5
    assert _alerts(central) == []
