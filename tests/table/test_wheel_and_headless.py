"""The wheel link feeding the table service: its events journaled as they are, whole rounds on the
in-process virtual wheel, and the `drr table run` command's refusals."""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.rng import SeededRng
from engine.store import Store
from engine.store.verify import verify
from engine.table.headless import HeadlessTable, RoundSummary
from engine.wheel_events import (
    WheelBallNotDetected,
    WheelLaunched,
    WheelMissSpin,
    WheelNoMoreBets,
    WheelResult,
    WheelRotor,
    WheelStarted,
    WheelWarning,
)
from gui.cli import main
from hardware.events import CommandReply
from hardware.protocol import get_protocol
from hardware.table_bridge import for_table, table_events
from hardware.wheel_source import open_wheel
from tests.table.helpers import CROUPIER, make_service

NOW = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)


def test_a_parsed_status_line_is_the_engine_s_event_journaled_as_it_is(store: Store) -> None:
    """No renaming between the wire and the journal: the SS2 protocol's events are the engine's
    wheel events, and the service journals each with its own type and payload."""
    protocol = get_protocol("ss2")
    lines = ["*X;2;012;  ;0;171;0", "*X;3;012;  ;2;171;0", "*X;4;012;  ;2;171;0", "17", "*X;5;012;17;0;171;0"]
    parsed = [e for line in lines for e in protocol.feed_line(line, NOW.replace(tzinfo=None))]
    events = [e for e in map(for_table, parsed) if e is not None]
    assert [type(e) for e in events] == [
        WheelStarted,
        WheelRotor,
        WheelWarning,
        WheelLaunched,
        WheelMissSpin,
        WheelNoMoreBets,
        WheelWarning,
        WheelResult,
    ]
    assert all(e.type is EntryType(f"wheel.{e.kind}") for e in events)
    result = events[-1]
    assert isinstance(result, WheelResult) and (result.game, result.number, result.warnings) == (12, 17, ())
    # A pocket a single-zero wheel lacks is a doubtful spin at the source, not a result.
    later = [e for line in ["*X;5;013;00;0;171;0"] * 2 for e in protocol.feed_line(line, NOW)]
    (double_zero,) = [e for e in later if isinstance(e, WheelResult | WheelBallNotDetected)]
    assert isinstance(double_zero, WheelBallNotDetected) and "00" in (double_zero.reason or "")
    assert for_table(CommandReply(game=None, time=NOW, command="P", text="OK")) is None

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        for event in events:
            await svc.wheel_event(event)

    asyncio.run(go())
    journaled = [e for e in store.journal.entries("T1") if e.type.startswith("wheel.")]
    assert [(e.type, e.payload) for e in journaled[:2]] == [
        ("wheel.started", {"game": 12, "time": "2026-11-29T15:00:00.000"}),
        ("wheel.rotor", {"game": 12, "time": "2026-11-29T15:00:00.000", "rpm": "17.1", "direction": "cw"}),
    ]
    assert [e.type for e in journaled] == [e.type for e in events]
    assert all(
        e.payload == ev.to_json()
        for e, ev in zip(journaled, events, strict=True)
        if e.type != EntryType.WHEEL_RESULT
    )
    # The result goes through the spin's hold (the miss-spin) and is journaled with the table's verdict,
    # and the rotor's speed last reported before it (issue 26: the game's physics).
    assert journaled[-1].payload == {**result.to_json(), "accepted": False, "rpm": "17.1"}


def test_the_service_takes_typed_events_and_their_mapping_form(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.wheel_event(WheelStarted(game=4, time=NOW))
        await svc.open_bets(CROUPIER)
        assert svc.state.expected_game == 4
        await svc.wheel_event({"type": "no_more_bets", "game": 4})
        assert svc.state.round is not None and svc.state.round.phase.value == "closed"
        # The link's own messages are not wheel events: the bridge keeps them away from the table.
        with pytest.raises(DrrError, match="not CommandReply"):
            await svc.wheel_event(CommandReply(game=None, time=NOW, command="P"))  # type: ignore[arg-type]
        with pytest.raises(DrrError, match="unknown wheel event type 'command_reply'"):
            await svc.wheel_event(CommandReply(game=None, time=NOW, command="P").to_json())

    asyncio.run(go())
    kinds = [e.type for e in store.journal.entries("T1")]
    assert (
        "wheel.started" in kinds and "wheel.no_more_bets" in kinds and not any("command" in k for k in kinds)
    )


def test_whole_rounds_on_the_virtual_wheel_with_faults(store: Store) -> None:
    lines: list[RoundSummary] = []

    async def go() -> tuple[Any, list[tuple[int, int]]]:
        svc = make_service(store, seed=21)
        await svc.start()
        headless = HeadlessTable(svc, rounds=4, choices=SeededRng(2), on_round=lines.append)
        link = open_wheel("sim:free,miss@2,launch@3", speed=250, seed=9)
        async with link as wheel:

            async def events() -> Any:
                async for ev in table_events(wheel):
                    if isinstance(ev, WheelMissSpin):
                        asyncio.get_running_loop().create_task(wheel.command("*R", timeout=2))
                    yield ev

            totals = await asyncio.wait_for(headless.run(events()), timeout=60)
            history = list(wheel.wheel.history)  # type: ignore[attr-defined]
        await svc.close()
        return totals, history

    totals, history = asyncio.run(go())
    assert totals.settled + totals.voided == 4 and len(lines) == 4
    assert totals.irregularities >= 2  # the miss-spin and the failed launch
    # Every settled result is a number the virtual wheel really produced for that game.
    results = [e.payload for e in store.journal.entries("T1") if e.type == "round.result"]
    assert results and all((r["game"], r["number"]) in history for r in results)
    kinds = {e.type for e in store.journal.entries("T1")}
    assert {"wheel.miss_spin", "wheel.launch_failed", "round.irregularity"} <= kinds
    # Every settled round had one wager of each kind on the felt.
    assert all(s.wagers == 15 for s in lines if s.status == "settled")
    report = verify(store, "T1")
    assert report.ok and report.rounds == 4


def test_drr_table_run_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("DRR_CONFIG", raising=False)
    db = str(tmp_path / "t.sqlite")
    assert main(["table", "run", "--db", db, "--table", "T1", "--wheel", "sim"]) == 2
    assert "needs --headless" in capsys.readouterr().err
    assert main(["table", "run", "--headless", "--db", db, "--table", "T1", "--wheel", "telepathy"]) == 2
    assert "telepathy" in capsys.readouterr().err
    missing = str(tmp_path / "nope.toml")
    code = main(
        ["table", "run", "--headless", "--db", db, "--table", "T1", "--wheel", "sim", "--rules", missing]
    )
    assert code == 1 and "cannot read the Rules Submission" in capsys.readouterr().err


def test_drr_table_run_completes_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("DRR_CONFIG", raising=False)
    db = str(tmp_path / "t.sqlite")
    args = ["table", "run", "--headless", "--wheel", "sim", "--speed", "250", "--rounds", "2", "--db", db]
    assert main([*args, "--table", "T9", "--seed", "4"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in out[:2]] == ["T9-000001", "T9-000002"]
    assert out[-1].startswith("done: 2 rounds settled")
    assert main(["audit", "verify", "--db", db, "--table", "T9"]) == 0
    assert capsys.readouterr().out.startswith("OK: ")


def test_headless_rounds_with_bonus_games_on_a_fake_wheel(store: Store) -> None:
    """A fake wheel that always lands on the Bonus Number: bonus games are played out by the random
    policy, large payouts approved by the pit boss, and every round settles once."""
    lines: list[RoundSummary] = []

    async def go() -> Any:
        svc = make_service(store, seed=5, approval_threshold=Decimal("500"))
        await svc.start()
        headless = HeadlessTable(svc, rounds=6, choices=SeededRng(8), on_round=lines.append)

        async def fake_wheel() -> Any:
            for game in range(1, 40):
                yield {"type": "started", "game": game}
                yield {"type": "launched", "game": game}
                yield {"type": "no_more_bets", "game": game}
                draw = svc.round.draw if svc.round is not None else None
                yield {"type": "result", "game": game, "number": draw.bonus_number if draw else 0}

        totals = await headless.run(fake_wheel())
        await svc.close()
        return totals

    totals = asyncio.run(go())
    assert totals.settled == 6 and len(lines) == 6
    assert totals.bonus_games >= 2
    kinds = [e.type for e in store.journal.entries("T1")]
    assert kinds.count("bonus.ended") == kinds.count("round.bonus_outcome") == totals.bonus_games
    assert kinds.count("round.settled") == 6
    assert verify(store, "T1").ok


def test_one_writer_per_table_and_an_orderly_sigterm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second `drr table run` on a table that is running is refused naming the owner; SIGTERM ends the
    first with its summary and exit 0."""
    import os
    import signal
    import subprocess
    import sys

    from tests.table.helpers import drr_env

    db = tmp_path / "t.sqlite"
    drr = str(Path(sys.executable).with_name("drr"))
    args = [
        "table",
        "run",
        "--headless",
        "--wheel",
        "sim",
        "--speed",
        "200",
        "--db",
        str(db),
        "--table",
        "T1",
    ]
    env = drr_env(tmp_path)
    proc = subprocess.Popen([drr, *args, "--rounds", "0"], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline().startswith("T1-000001")
        second = subprocess.run(
            [drr, *args, "--rounds", "1"], capture_output=True, text=True, env=env, timeout=60
        )
        assert second.returncode == 1
        assert "already in use by headless" in second.stderr and f"pid {proc.pid}" in second.stderr
        os.kill(proc.pid, signal.SIGTERM)
        rest = proc.stdout.read()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
    assert "stopped after" in rest and rest.strip().splitlines()[-1].startswith("done: ")


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX device path and SIGTERM")
def test_a_wheel_port_that_does_not_open_is_reported_on_stderr(tmp_path: Path) -> None:
    """`--wheel serial:PORT` with no such port: the run waits for the wheel (the link retries) and says
    so on stderr instead of sitting silent; SIGTERM still ends it in order."""
    import os
    import signal
    import subprocess

    from tests.table.helpers import drr_env

    drr = str(Path(sys.executable).with_name("drr"))
    port = str(tmp_path / "no-such-port")
    args = ["table", "run", "--headless", "--wheel", f"serial:{port}", "--rounds", "1"]
    proc = subprocess.Popen(
        [drr, *args, "--db", str(tmp_path / "t.sqlite"), "--table", "T1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=drr_env(tmp_path),
    )
    assert proc.stderr is not None and proc.stdout is not None
    try:
        line = proc.stderr.readline()  # within the 3 s grace plus a start; the pipe ends if the run dies
        assert f"the wheel on serial:{port}" in line and "not connected" in line, line
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert "stopped after 0 rounds" in proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
