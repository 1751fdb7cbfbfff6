"""Issue 16: every station stops within 5 s of SIGTERM or SIGINT in every state (sign-in, a modal
dialog, bets open, on hold, mid bonus game), exits 128 + the signal without a traceback, and a table
it ran ends on the clean-shutdown checkpoint (so the next start is not a recovery).

Each case is a real `drr` process (offscreen, a temporary store, settings file and user folders),
run by stop_driver.py, which says when the station reached the state; then the test signals it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.store import open_store
from engine.store.users import add_user
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, drr_env, make_service, some_wagers, wheel
from tests.table.test_bonus_and_recovery import to_bonus

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

DRIVER = Path(__file__).with_name("stop_driver.py")
LIMIT_S = 5.0  # the bound from the signal to the process's exit
START_S = 90.0  # a generous start-up allowance on a loaded machine (not what is measured)
TABLE = "T1"

Prepare = Callable[[TableService], Awaitable[None]]


async def _bets_open(svc: TableService) -> None:
    await svc.start()
    await wheel(svc, {"type": "started", "game": 5})
    await svc.open_bets(CROUPIER)
    await some_wagers(svc)


async def _on_hold(svc: TableService) -> None:
    await _bets_open(svc)
    await wheel(svc, {"type": "result", "game": 5, "number": 17})  # the ball fell before no more bets


async def _mid_bonus(svc: TableService) -> None:
    await to_bonus(svc)
    await svc.bonus_start(CROUPIER, "dora")  # its countdown runs again in the station


def _store(tmp_path: Path, prepare: Prepare | None = None, users: bool = False) -> Path:
    """The table's SQLite journal left in a state by a table service that then went away."""
    db = tmp_path / "table.sqlite"
    with open_store(str(db), table=TABLE) as store:
        if users:
            add_user(store, "ada", "admin", "111111", by=None)
        if prepare is not None:

            async def go() -> None:
                svc = make_service(store)
                await prepare(svc)
                await svc.close()

            asyncio.run(go())
    return db


def _settings(tmp_path: Path, db: Path, station: str = "croupier") -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(
        f'[table]\nid = "{TABLE}"\nstation = "{station}"\n\n'
        f'[database]\nurl = "{db}"\n\n[paths]\nlog_dir = "{tmp_path / "logs"}"\n',
        encoding="utf-8",
    )
    return path


def _start(tmp_path: Path, state: str, args: list[str], settings: Path) -> tuple[subprocess.Popen[str], str]:
    """The station running, in `state`; returns the process and what the driver says it shows."""
    env = drr_env(tmp_path, DRR_CONFIG=str(settings), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), state, "--", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=Path(__file__).parents[2],
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            if line.startswith("READY "):
                return proc, line[len("READY ") :].strip()
            if not line:
                break
        if proc.poll() is not None:
            break
    proc.kill()
    _, err = proc.communicate()
    pytest.fail(f"the station never reached {state!r} (exit {proc.returncode}): {err[-2000:]}")


def _stop(proc: subprocess.Popen[str], sig: signal.Signals) -> tuple[int, float, str]:
    """Send `sig`; the exit code, the seconds it took and the station's stderr."""
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        proc.wait(timeout=LIMIT_S + 5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        _, err = proc.communicate()
        pytest.fail(f"still running {LIMIT_S + 5:g} s after {sig.name}: {err[-2000:]}")
    took = time.monotonic() - sent
    _, err = proc.communicate()
    return proc.returncode, took, err


def _assert_stopped(proc: subprocess.Popen[str], sig: signal.Signals, tmp_path: Path) -> None:
    code, took, err = _stop(proc, sig)
    assert "Traceback" not in err, err
    assert code == 128 + sig, f"exit {code} after {sig.name}: {err[-2000:]}"
    assert took < LIMIT_S, f"{took:.2f} s to stop after {sig.name}"
    print(f"stopped by {sig.name} in {took:.2f} s")
    # The log says why the station stopped (the settings' paths.log_dir).
    lines = [
        json.loads(x) for x in (tmp_path / "logs" / "drr.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    said = [(x["message"], x.get("signal")) for x in lines if x.get("pid", proc.pid) == proc.pid]
    assert ("stop requested", sig.name) in said and ("station stopped", sig.name) in said, (said, err[-3000:])


def _clean_shutdown(db: Path) -> tuple[int, int, str, int]:
    """(head seq, last checkpoint seq, its reason, stations still claiming the table); 0 / "" for none."""
    with open_store(str(db), table=TABLE, migrate=False) as store, store.read() as conn:
        head = conn.execute(
            sa.text("SELECT max(seq) FROM journal WHERE table_id = :t"), {"t": TABLE}
        ).scalar()
        last = conn.execute(
            sa.text("SELECT seq, reason FROM checkpoints WHERE table_id = :t ORDER BY seq DESC LIMIT 1"),
            {"t": TABLE},
        ).first()
        owners = conn.execute(sa.text("SELECT count(*) FROM owners")).scalar()
    seq, reason = (int(last.seq), str(last.reason)) if last is not None else (0, "")
    return int(head or 0), seq, reason, int(owners or 0)


def _started_by_station(db: Path) -> int:
    with open_store(str(db), table=TABLE, migrate=False) as store:
        return sum(
            1
            for e in store.journal.entries(TABLE)
            if e.type == "table.started" and e.payload.get("pid") != os.getpid()
        )


# --- the croupier station (plain `drr`: croupier window, player display, bonus screen) ------------


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_croupier_at_its_sign_in_stops(tmp_path: Path, sig: signal.Signals) -> None:
    db = _store(tmp_path, users=True)
    proc, shows = _start(tmp_path, "login", [], _settings(tmp_path, db))
    assert "croupier login" in shows
    _assert_stopped(proc, sig, tmp_path)
    # Nobody signed in: the table was never claimed nor started, so there is nothing to recover.
    assert _started_by_station(db) == 0
    assert _clean_shutdown(db)[3] == 0


CROUPIER_STATES = [
    # (state prepared in the journal, driver state, what the croupier window shows, signal); one
    # signal per state keeps the suite short: both take the same path (the sign-in above has both).
    pytest.param(None, "window", "READY", signal.SIGTERM, id="idle-SIGTERM"),
    pytest.param(_bets_open, "window", "BETS OPEN", signal.SIGINT, id="bets_open-SIGINT"),
    pytest.param(_on_hold, "window", "ON HOLD", signal.SIGTERM, id="on_hold-SIGTERM"),
    pytest.param(_mid_bonus, "window", "BONUS GAME", signal.SIGINT, id="mid_bonus-SIGINT"),
    pytest.param(_mid_bonus, "window", "BONUS GAME", signal.SIGTERM, id="mid_bonus-SIGTERM"),
    pytest.param(_bets_open, "dialog", "SignOffDialog", signal.SIGTERM, id="void_dialog-SIGTERM"),
]


@pytest.mark.parametrize(("prepare", "state", "expect", "sig"), CROUPIER_STATES)
def test_croupier_stops_and_journals_the_clean_shutdown(
    tmp_path: Path, prepare: Prepare | None, state: str, expect: str, sig: signal.Signals
) -> None:
    db = _store(tmp_path, prepare)
    proc, shows = _start(tmp_path, state, [], _settings(tmp_path, db))
    assert shows.startswith("CroupierWindow") and expect in shows, shows
    _assert_stopped(proc, sig, tmp_path)
    head, checkpoint, reason, owners = _clean_shutdown(db)
    assert _started_by_station(db) == 1
    # The last thing journaled is the clean shutdown, and the table is free: the next start is no recovery.
    assert (checkpoint, reason, owners) == (head, "shutdown", 0)


# --- a player display or bonus screen of its own (follows the journal, owns no table) ---------------


@pytest.mark.parametrize(
    ("station", "prepare", "sig"),
    [
        pytest.param("display", _on_hold, signal.SIGTERM, id="display-SIGTERM"),
        pytest.param("bonus", _mid_bonus, signal.SIGINT, id="bonus-SIGINT"),
    ],
)
def test_display_and_bonus_screen_stop(
    tmp_path: Path, station: str, prepare: Prepare, sig: signal.Signals
) -> None:
    db = _store(tmp_path, prepare)
    before = _clean_shutdown(db)
    args = ["gui", "--station", station, "--db", str(db), "--table", TABLE]
    proc, shows = _start(tmp_path, "window", args, _settings(tmp_path, db, station))
    assert shows.startswith({"display": "PlayerDisplay", "bonus": "BonusScreen"}[station]), shows
    _assert_stopped(proc, sig, tmp_path)
    assert _clean_shutdown(db) == before  # a follower writes nothing to the table's journal


# --- the floor stations -------------------------------------------------------------------------------


def _floor(station: str, state: str, expect: str, sig: signal.Signals) -> object:
    # A store with users asks for the sign-in; without, the station opens view-only at once.
    return pytest.param(station, state, state == "login", expect, sig, id=f"{station}-{state}-{sig.name}")


@pytest.mark.parametrize(
    ("station", "state", "users", "expect", "sig"),
    [
        _floor("surveillance", "login", "login", signal.SIGTERM),
        _floor("surveillance", "window", "SurveillanceWindow", signal.SIGINT),
        _floor("surveillance", "dialog", "RangeDialog", signal.SIGTERM),
        _floor("pitboss", "login", "login", signal.SIGINT),
        _floor("pitboss", "window", "PitBossWindow", signal.SIGTERM),
        _floor("pitboss", "dialog", "SignOffDialog", signal.SIGINT),
    ],
)
def test_floor_station_stops(
    tmp_path: Path, station: str, state: str, users: bool, expect: str, sig: signal.Signals
) -> None:
    db = _store(tmp_path, _bets_open, users=users)
    args = ["gui", "--station", station, "--db", str(db), "--table", TABLE]
    proc, shows = _start(tmp_path, state, args, _settings(tmp_path, db, station))
    assert expect in shows, shows
    _assert_stopped(proc, sig, tmp_path)


def test_a_station_stuck_on_its_qt_thread_is_still_ended_by_the_watchdog(tmp_path: Path) -> None:
    from gui.stopping import FORCE_AFTER_S

    db = _store(tmp_path, _bets_open)
    proc, shows = _start(tmp_path, "stuck", [], _settings(tmp_path, db))
    assert "BETS OPEN" in shows, shows
    time.sleep(0.5)  # the Qt thread is asleep now: nothing of the orderly stop can run
    code, took, err = _stop(proc, signal.SIGTERM)
    assert code == 128 + signal.SIGTERM and "Traceback" not in err
    assert FORCE_AFTER_S - 0.5 < took < LIMIT_S, took
    assert f"did not stop within {FORCE_AFTER_S:g} s of SIGTERM" in err
    head, checkpoint, _, _ = _clean_shutdown(db)
    assert checkpoint < head  # no clean-shutdown checkpoint: the next start recovers from the journal


def test_a_station_under_nohup_keeps_ignoring_the_hang_up_and_stops_on_sigterm(tmp_path: Path) -> None:
    db = _store(tmp_path, _bets_open)
    # `nohup drr`: SIGHUP is ignored from the start, and the station must not take that back.
    with _hang_up_ignored():
        proc, _ = _start(tmp_path, "window", [], _settings(tmp_path, db))
    proc.send_signal(signal.SIGHUP)
    time.sleep(1.0)
    assert proc.poll() is None, "a hang-up stopped a station started under nohup"
    _assert_stopped(proc, signal.SIGTERM, tmp_path)
    head, checkpoint, reason, owners = _clean_shutdown(db)
    assert (checkpoint, reason, owners) == (head, "shutdown", 0)


@contextlib.contextmanager
def _hang_up_ignored() -> Iterator[None]:
    """Children started inside inherit SIGHUP ignored (as nohup leaves it)."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_a_station_run_in_process_gives_the_signal_handlers_back(qapp: object) -> None:
    from gui.stopping import stop_on_signals

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    with stop_on_signals() as stop:
        assert signal.getsignal(signal.SIGTERM) is not before[signal.SIGTERM]
    assert {sig: signal.getsignal(sig) for sig in before} == before
    assert signal.set_wakeup_fd(-1) == -1  # no wakeup fd left behind (and none set by this check)
    assert stop.exit_code() == 0 and stop.exit_code(3) == 3
