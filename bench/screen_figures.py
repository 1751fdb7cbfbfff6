"""GUI benchmarks: time to the croupier window's first frame, and wheel line to winning number on screen.

`gui_first_frame_ms`: median over a few runs of `drr gui --station croupier --first-frame-exit`
in a fresh process on a scratch journal: from just before the process is spawned to the moment
the croupier window paints its first frame (opening the store and recovering the table from the
journal included; the child prints that wall-clock time). Goal <= 1,500 ms. The first start (which
creates the journal) is not counted. Beside it, alternated run by run, its limit
`limit_bare_window_first_frame_ms` (bench.limits: a fresh process with a bare PySide6 window and one
label) and `first_frame_vs_limit`, the station's time over it (goal <= 2.5).

`sensor_to_screen_ms_p99`: a pseudo-terminal stands in for the wheel's serial cable. For each
game the croupier station (offscreen, on the table service with a SQLite journal) opens bets,
the wheel's state-4 line closes them, then the state-5 line is written; the clock starts when
the write of its last byte returns and stops when the croupier's big action button ("Confirm N")
is painted with the number: serial link, SS2 decoder, wheel feed, the service journaling the
result (durable) before publishing it, the adapter, and Qt's paint. 99th percentile in ms over
SCREEN_GAMES games. Goal <= 16 ms beyond the line itself; `sensor_to_screen_vs_limit` is the p99 over one
60 Hz frame (16.7 ms: 1.0 is one frame), `sensor_to_screen_ms_median` the median.

`confirm_result_settlements` and `confirm_result_snapshots`: what one confirmed result costs with
the croupier window attached (offscreen, on the table service with a SQLite journal): the number of
settlement computations (`engine.settlement.settle_round`, counted wherever it is called from) and
of whole-view rebuilds (`engine.table.read_model.ReadModel._build`) from the croupier's confirmation
until the window has redrawn, averaged over CONFIRM_ROUNDS rounds of a few wagers each, one in five
with a bonus game. Goals: 1 and at most 1. `settle_calls_per_round`: the same count over each whole
round played (bets opened to the next round: result, bonus game, settlement and its fold). Goal <= 1.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.limits import FRAME_MS, bare_window_first_frame_ms, interleaved, vs_limit

FIRST_FRAME_RUNS = 5
SCREEN_GAMES = 300
CONFIRM_ROUNDS = 20


def first_frame() -> dict[str, float]:
    env = dict(os.environ)
    if sys.platform.startswith("linux") and not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.sqlite")
        _one_first_frame(env, db)  # the first start creates the journal (its key, its first entries)
        station, bare = interleaved(
            lambda: _one_first_frame(env, db), lambda: bare_window_first_frame_ms(env), FIRST_FRAME_RUNS
        )
    return {
        **station.figures("gui_first_frame_ms"),
        **bare.figures("limit_bare_window_first_frame_ms"),
        "first_frame_vs_limit": vs_limit(station.median, bare.median, rate=False),
    }


def _one_first_frame(env: dict[str, str], db: str) -> float:
    """One fresh process on the journal `db` (the first run creates it, as a first start does)."""
    started = time.time()
    proc = subprocess.run(
        [sys.executable, "-m", "gui.cli", "gui", "--station", "croupier", "--db", db, "--first-frame-exit"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    stamp = next((ln.split()[1] for ln in proc.stdout.splitlines() if ln.startswith("first_frame_at ")), None)
    if proc.returncode != 0 or stamp is None:
        raise RuntimeError(f"croupier station did not start: {proc.stderr.strip()[-400:]}")
    return (float(stamp) - started) * 1000


def sensor_to_screen() -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    from gui import theme
    from gui.app import offscreen_if_headless

    offscreen_if_headless()  # a CI machine or a server has no display: measured offscreen there
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply(app)
    import qasync

    loop = qasync.QEventLoop(app)
    try:
        latencies = loop.run_until_complete(_measure_screen(SCREEN_GAMES))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    p99 = statistics.quantiles(latencies, n=100, method="inclusive")[98]
    return {
        "sensor_to_screen_ms_p99": round(p99, 3),
        "sensor_to_screen_ms_median": round(statistics.median(latencies), 3),
        "sensor_to_screen_vs_limit": vs_limit(p99, FRAME_MS, rate=False),
    }


async def _measure_screen(games: int) -> list[float]:
    import tempfile

    from PySide6.QtCore import QEvent, QObject

    from engine.auth import User
    from engine.rng import SeededRng
    from engine.store.db import open_store
    from engine.table.service import TableService
    from gui.app import WheelFeed
    from gui.table_model import TableModel
    from gui.windows.croupier import CroupierWindow
    from hardware.pty_server import PtyServer
    from hardware.serial_link import SerialLink

    croupier = User("bench", "croupier")
    with (
        tempfile.TemporaryDirectory() as tmp,
        open_store(str(Path(tmp) / "bench.sqlite"), table="B1") as store,
    ):
        service = TableService(store, "B1", rng=SeededRng("bench"), allow_seeded_rng=True, claim=False)
        await service.start()
        table = TableModel(service, croupier, ("Seat 1",))
        table.refresh()
        window = CroupierWindow(table, table.players)
        window.resize(1400, 900)
        window.show()
        painted: dict[str, Any] = {"want": None, "done": None}

        class PaintWatch(QObject):
            def eventFilter(self, obj: QObject, event: QEvent) -> bool:
                if (
                    event.type() == QEvent.Type.Paint
                    and painted["want"]
                    and window.action.text() == painted["want"]
                ):
                    painted["want"] = None
                    painted["done"].set_result(time.perf_counter())
                return False

        watch = PaintWatch()
        window.action.installEventFilter(watch)
        server = PtyServer()
        feed = WheelFeed(table, "bench")
        link = SerialLink(server.path, silence_after=None)
        latencies: list[float] = []
        async with link:
            unsubscribe = link.subscribe(feed.on_event)
            while not link.connected:
                await asyncio.sleep(0.01)
            for index in range(games):
                await service.open_bets(croupier)
                game = index % 256 + 1
                number = index % 37
                # The wheel's state 4 closes bets (the draw is journaled) before its result comes.
                server.write(f"*X;4;{game:03d};  ;0;171;0\r\n{number:>2}\r\n".encode())
                while service.phase != "closed" or table.tasks:
                    await asyncio.sleep(0.002)
                await asyncio.sleep(0.003)  # the "no more bets" screen is painted
                painted["want"] = f"Confirm {number}"
                painted["done"] = asyncio.get_running_loop().create_future()
                os.write(server.master, f"*X;5;{game:03d};{number:>2};0;172;0\r\n".encode())
                started = time.perf_counter()
                try:
                    at = await asyncio.wait_for(painted["done"], 2.0)
                except TimeoutError:
                    raise RuntimeError(f"game {game}: the result {number} never reached the screen") from None
                latencies.append((at - started) * 1000)
                while table.tasks:
                    await asyncio.sleep(0.001)
                await service.confirm_result(croupier)
                await service.settle(croupier)
                await service.next_round(croupier)
            unsubscribe()
        server.close()
        window.close()
        await table.shutdown()
    return latencies


def confirm_costs() -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    from gui import theme
    from gui.app import offscreen_if_headless

    offscreen_if_headless()
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply(app)
    import qasync

    loop = qasync.QEventLoop(app)
    try:
        settlements, snapshots, per_round = loop.run_until_complete(_measure_confirm(app, CONFIRM_ROUNDS))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    return {
        "confirm_result_settlements": settlements / CONFIRM_ROUNDS,
        "confirm_result_snapshots": snapshots / CONFIRM_ROUNDS,
        "settle_calls_per_round": per_round / CONFIRM_ROUNDS,
    }


class _Counted:
    """Counts the calls of `settle_round` (wherever it was imported) and of the model's view build."""

    def __init__(self) -> None:
        self.settlements = 0
        self.snapshots = 0
        self._undo: list[Callable[[], None]] = []

    def __enter__(self) -> _Counted:
        import importlib

        import engine.settlement
        from engine.table.read_model import ReadModel

        # Every module on the confirmation's path is loaded first, so its `settle_round` is patched.
        for name in ("engine.round", "engine.table.service", "engine.table.settlements"):
            importlib.import_module(name)

        original = engine.settlement.settle_round

        def settle_round(*args: Any, **kwargs: Any) -> Any:
            self.settlements += 1
            return original(*args, **kwargs)

        for module in list(sys.modules.values()):
            if getattr(module, "settle_round", None) is original:
                self._swap(module, "settle_round", settle_round)
        build = ReadModel._build

        def build_view(model: ReadModel) -> None:
            self.snapshots += 1
            build(model)

        self._swap(ReadModel, "_build", build_view)
        return self

    def _swap(self, owner: object, name: str, value: object) -> None:
        before = getattr(owner, name)
        setattr(owner, name, value)
        self._undo.append(lambda: setattr(owner, name, before))

    def __exit__(self, *_: object) -> None:
        for undo in self._undo:
            undo()

    def reset(self) -> None:
        self.settlements = self.snapshots = 0


async def _measure_confirm(app: Any, rounds: int) -> tuple[int, int, int]:
    from decimal import Decimal

    from engine.auth import User
    from engine.bets import BetKind, inside_bet, outside_bet
    from engine.rng import SeededRng
    from engine.store.db import open_store
    from engine.table.service import TableService
    from gui.table_model import TableModel
    from gui.windows.croupier import CroupierWindow

    croupier = User("bench", "croupier")
    settlements = snapshots = per_round = 0
    with (
        tempfile.TemporaryDirectory() as tmp,
        open_store(str(Path(tmp) / "bench.sqlite"), table="B1") as store,
        _Counted() as counted,
    ):
        service = TableService(store, "B1", rng=SeededRng("confirm"), allow_seeded_rng=True, claim=False)
        await service.start()
        table = TableModel(service, croupier, ("Seat 1", "Seat 2"))
        window = CroupierWindow(table, table.players)
        window.resize(1400, 900)
        window.show()
        app.processEvents()
        for index in range(rounds):
            counted.reset()
            await service.open_bets(croupier)
            await service.place_wager(croupier, "Seat 1", outside_bet(BetKind.RED), Decimal(10))
            await service.place_wager(croupier, "Seat 1", inside_bet([index % 37]), Decimal(5))
            await service.place_wager(croupier, "Seat 2", inside_bet([17, 20]), Decimal(2))
            bonus_round = index % 5 == 4
            if bonus_round:  # Seat 2 covers every number: the Bonus Number wins a bonus game
                await service.place_wager(croupier, "Seat 2", inside_bet([0]), Decimal(1))
                for line in range(6):
                    six = inside_bet(range(6 * line + 1, 6 * line + 7))
                    await service.place_wager(croupier, "Seat 2", six, Decimal(1))
            await service.no_more_bets(croupier)
            round_ = service.round
            assert round_ is not None and round_.draw is not None
            number = round_.draw.bonus_number if bonus_round else (index * 7) % 37
            await service.wheel_event({"type": "result", "game": None, "number": number})
            app.processEvents()
            before = counted.settlements
            counted.snapshots = 0
            table.confirm_result()
            while table.tasks:
                await asyncio.gather(*list(table.tasks))
            app.processEvents()
            settlements += counted.settlements - before
            snapshots += counted.snapshots
            if service.state.round is not None and service.state.round.bonus_players:
                for player in service.state.round.bonus_players:
                    await service.bonus_start(croupier, player)
                    while player in service.state.games and not service.state.games[player].finished:
                        await service.bonus_pick(croupier, player, 1)
            await service.settle(croupier)
            await service.next_round(croupier)
            app.processEvents()
            per_round += counted.settlements
        window.close()
        await table.shutdown()
    return settlements, snapshots, per_round


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {
    "gui_first_frame": first_frame,
    "gui_sensor_to_screen": sensor_to_screen,
    "gui_confirm_result": confirm_costs,
}
