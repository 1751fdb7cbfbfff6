"""Starting the stations: QApplication + qasync event loop, windows on screens, orderly shutdown.

`run_default` is plain `drr` / `make run`: the croupier station with the player display and
the bonus screen as separate windows (on a second screen when there is one), the virtual wheel
and the table service on the local SQLite journal (user data directory). `run_station` serves
`drr gui --station … --wheel … --db … --table …`. After a crash the service rebuilds the table
from the journal, so the screens open on the round where it stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject

from engine import stations
from engine.errors import DrrError
from gui import stopping
from gui.wheel_link import CLOSE_SHOWN_S, WheelFeed

__all__ = ["WheelFeed", "croupier_windows", "run_default", "run_station"]


def run_default(args: argparse.Namespace) -> int:
    """Plain `drr`: the station the settings file names (embedded default: the croupier, with the
    player display and the bonus screen), its wheel and journal (default: the virtual wheel and
    the local SQLite journal)."""
    settings = getattr(args, "settings", None)
    station = getattr(args, "station", None) or (settings.station if settings is not None else "croupier")
    return run_station(
        station=station,
        wheel=settings.wheel_link_spec if settings is not None else "sim",
        rules=str(settings.rules_path) if settings is not None and settings.rules_path else None,
        db=settings.database_url if settings is not None else None,
        table_id=settings.table_id if settings is not None else "T1",
        all_windows=True,
        settings=settings,
    )


PLAYERS = ("Seat 1", "Seat 2", "Seat 3", "Seat 4", "Seat 5", "Seat 6")
# Who the station runs as while the user store has no users yet (a fresh install): a croupier,
# never more; `drr users add` creates real users and from then on the login is required.
UNSET_USER = ("croupier", "croupier")


async def _login(store: Any, station: str, table_id: str, parent: Any) -> Any:
    """The signed-in user (DrrError if the login is cancelled); none is asked before users exist."""
    from engine.auth import User
    from engine.store.users import authenticate, list_users
    from gui.windows.login import LoginDialog

    if not list_users(store):
        return User(*UNSET_USER)
    dialog = LoginDialog(
        station, lambda name, pin: authenticate(store, name, pin, table=table_id, station=station), parent
    )
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    dialog.finished.connect(lambda code: _resolve(done, code))
    dialog.open()  # not exec(): a nested event loop would stall the asyncio tasks
    if await done != LoginDialog.DialogCode.Accepted or dialog.user is None:
        stopping.raise_if_stopping()  # closed by a stop signal: the station stops, nobody refused
        raise DrrError("login cancelled", 1)
    return dialog.user


async def _start_table(
    table: Any,
    store: Any,
    user: Any,
    rules_path: str | None,
    table_id: str,
    threshold: Any = None,
    clock: dict[str, Any] | None = None,
    approved_digest: str | None = None,
    settings: Any = None,
) -> None:
    """The table service on the store, started (recovery from the journal included), attached to the
    station's table model (`gui.table_model.TableModel`, "starting" until now); `clock`: its betting
    and auto-confirm seconds (`round_clock_options`); `settings`: the installation's (its sequential
    bias thresholds, as every other path reads them: engine.config.bias_thresholds)."""
    from pathlib import Path

    from engine.config import bias_thresholds
    from engine.floor.actions import check_station_start
    from engine.rng import SystemRng
    from engine.store.users import authenticate
    from engine.table.service import TableService

    text = Path(rules_path).read_bytes() if rules_path else None
    extra: dict[str, Any] = {"approval_threshold": threshold} if threshold is not None else {}
    extra.update(clock or {})
    # Rules and thresholds are a pit boss's or admin's to load, on this path too (issue 24).
    check_station_start(
        store,
        table_id,
        user,
        rules_text=text,
        large_payout=threshold,
        auto_confirm_seconds=extra.get("auto_confirm_seconds"),
    )
    # The software digest approved in the settings file: the gate (engine.table.gate) refuses play on another.
    extra["approved_digest"] = approved_digest
    extra["bias_thresholds"] = bias_thresholds(settings)
    service = TableService(store, table_id, rules_text=text, rng=SystemRng(), station="croupier", **extra)
    await service.start(user=user.name)

    def approve(name: str, pin: str) -> Any:
        return authenticate(store, name, pin, table=table_id, station="croupier")

    table.attach(service, user, authenticate=approve)


def round_clock_options(spec: str, settings: Any) -> dict[str, Any]:
    """The service's betting time (only for a wheel the table starts) and auto-confirmation, from the
    settings file (engine.config: wheel.drive, table.betting_seconds, table.auto_confirm_seconds)."""
    from engine.config import Settings
    from hardware.wheel_source import commanded

    s = settings if settings is not None else Settings()
    drives = commanded(spec, s.wheel_drive)
    return {
        "betting_seconds": s.betting_seconds if drives else None,
        "auto_confirm_seconds": s.auto_confirm_seconds or None,
    }


def _resolve(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _place_on_screens(app: Any, windows: list[Any]) -> None:
    """The croupier window on the primary screen, the player display and bonus screen on the other
    screen(s), or beside the croupier window on a single one (gui.screen_layout)."""
    import shiboken6
    from PySide6.QtCore import QTimer

    from gui.screen_layout import FRAME_SETTLE_MS, fit_frame, plan

    primary = app.primaryScreen()
    others = [s.availableGeometry() for s in app.screens() if s is not primary]
    geometries = plan(primary.availableGeometry(), others, len(windows))
    for window, geometry in zip(windows, geometries, strict=True):
        # A window over the croupier's (one narrow monitor) comes forward only for a bonus game.
        if geometry.intersects(geometries[0]) and window is not windows[0]:
            window.over_croupier = True
        window.setGeometry(geometry)
        window.show()
        fit_frame(window, geometry)

    # The window manager frames the windows a moment after they are shown: their frames fitted again,
    # but not a window closed and deleted meanwhile (a station stopped at once, or a display closed).
    def refit() -> None:
        for window, geometry in zip(windows, geometries, strict=True):
            if shiboken6.isValid(window) and window.isVisible():
                fit_frame(window, geometry)

    QTimer.singleShot(FRAME_SETTLE_MS, windows[0], refit)  # dropped with the croupier window
    for window in windows[1:]:
        if getattr(window, "over_croupier", False):
            window.lower()
    windows[0].raise_()
    windows[0].activateWindow()  # the keyboard is the croupier's (the other windows never take it)


def run_station(
    *,
    station: str,
    wheel: str = "sim",
    rules: str | None = None,
    db: str | None = None,
    table_id: str = "T1",
    all_windows: bool = False,
    first_frame_exit: bool = False,
    settings: Any = None,
) -> int:
    """`settings` (engine.config.Settings) gives the large-payout threshold and the wheel's
    capture folder and silence limit; None keeps the embedded defaults."""
    entry = stations.station(station)  # an unknown station: one line
    from gui.qt_libs import check_before_start

    check_before_start()  # a missing desktop library is one line here, not Qt's abort later
    if entry.runs == stations.FLOOR:
        from gui.floor.station import run_floor_station

        return run_floor_station(station, db, table_id, settings)
    import qasync
    from PySide6.QtWidgets import QApplication

    from engine.rules_play import load_rules_for_play
    from gui import theme

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Diamond Rush Roulette")
    app.setQuitOnLastWindowClosed(False)
    theme.apply(app)
    # The Rules Submission file is read (and checked) before anything is shown: a bad file is a
    # one-line error, not a station that starts and then fails.
    # Only what `drr rules check` accepts is played (engine.rules_play): its lines and exit 2.
    first_rules = load_rules_for_play(rules)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    # SIGTERM, Ctrl+C, SIGHUP: the same orderly shutdown as closing the main window (gui.stopping).
    with stopping.stop_on_signals() as stop, loop:
        loop.run_until_complete(
            _serve(
                app, first_rules, station, wheel, rules, db, table_id, all_windows, first_frame_exit, settings
            )
        )
    return stop.exit_code()


async def _serve(
    app: Any,
    first_rules: Any,
    station: str,
    wheel: str,
    rules: str | None,
    db: str | None,
    table_id: str,
    all_windows: bool,
    first_frame_exit: bool,
    settings: Any,
) -> None:
    # The windows come up at once on the table model still "starting" and redraw from the journal
    # as soon as the table service (or the journal follower) is attached to it.
    from gui.seat_names import load_seats, save_seats
    from gui.table_model import TableModel

    players = load_seats(table_id, PLAYERS)  # the names the croupier gave the seats last time
    table = TableModel.starting(first_rules, players, table_id)
    # A display or bonus screen never runs the table (not even as the settings file's plain `drr`).
    follows = stations.station(station).runs == stations.FOLLOWER
    chips = settings.chip_values if settings is not None else None
    windows = _build_windows(station, table, all_windows, read_only=follows, chips=chips)
    main = windows[0]
    if hasattr(main, "seatsChanged"):
        main.seatsChanged.connect(lambda names: save_seats(table_id, names))
    painted: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    main.firstPainted.connect(lambda: _resolve(painted, time.time()))
    closing = asyncio.Event()
    # Closing the main window ends the station; the others are displays and may be re-opened. While
    # the wheel's log is read at the close the window stays (its outcome is shown on it); a second
    # close does not wait.
    held = {"open": False}

    def keep_open() -> bool:
        # Never on a stop signal: the station then has FORCE_AFTER_S to end, and no log is read.
        stop = stopping.current()
        return held["open"] and not (stop is not None and stop.stopping)

    main.installEventFilter(_CloseWatcher(closing.set, main, keep_open=keep_open))
    # So do Ctrl+C and a service manager's SIGTERM: the same orderly shutdown, journal checkpointed.
    stopping.on_stop(closing.set)
    if first_frame_exit:
        main.show()
    else:
        _place_on_screens(app, windows)
    first_frame_at = await painted
    if first_frame_exit:
        # Wall-clock time of the first painted frame: the benchmark subtracts its own spawn time.
        print(f"first_frame_at {first_frame_at:.6f}", flush=True)
    if follows:
        # A player display or bonus screen of its own (another monitor, another PC): it follows
        # the journal the croupier station's process writes, and never claims the table.
        try:
            await _follow(table, db, table_id, closing, first_frame_exit)
        finally:
            for window in windows:
                window.close()
        return
    from engine.store.db import open_store

    store = open_store(db, table=table_id)
    try:
        user = await _login(store, station, table_id, main)
        threshold = settings.large_payout_threshold if settings is not None else None
        await _start_table(
            table,
            store,
            user,
            rules,
            table_id,
            threshold,
            round_clock_options(wheel, settings),
            getattr(settings, "approved_digest", None),
            settings,
        )
        if first_frame_exit:
            await table.shutdown()
            return
        # Who deals is journaled (table.dealer_changed) and shown; without users nobody could sign
        # in again, so the station offers no log-out then.
        table.sign_in_dealer(user)
        if hasattr(main, "dealer_bar"):
            from engine.store.users import list_users

            main.dealer_bar.set_accounts(bool(list_users(store)))
        link = WheelFeed(table, wheel, settings=settings, say=_teller(main))
        try:
            link.start()
        except DrrError as exc:
            table.irregularity.emit(f"no wheel: {exc.message}; enter results manually")
        held["open"] = link.reconciles
        # (Not over a reason already shown, such as what holds the round after a restart.)
        if user.name == UNSET_USER[0] and hasattr(main, "show_reason") and not main.reason.text():
            main.show_reason(
                "No users are set up yet: running as a croupier. Create users with `drr users add`."
            )
        await closing.wait()
        # The table's close: the wheel's own log held against the journal, as `drr table run` does
        # (hardware.wheel_session), the outcome on the croupier's screen for a moment.
        # Not on a stop signal: a signalled station has FORCE_AFTER_S to end (gui.stopping).
        stop = stopping.current()
        if link.reconciles and not (stop is not None and stop.stopping):
            if table.tasks:  # the croupier's last commands first
                await asyncio.gather(*table.tasks, return_exceptions=True)
            said = len(link.said)
            await link.close_table(store, table_id, _signed_in(store, table, user))
            if len(link.said) > said:
                await asyncio.sleep(CLOSE_SHOWN_S)
        held["open"] = False
        # Orderly shutdown: stop the wheel, let the table finish its commands and checkpoint the journal.
        await link.stop()
        await table.shutdown()
    finally:
        held["open"] = False
        for window in windows:
            window.close()
        store.close()


async def _follow(table: Any, db: str | None, table_id: str, closing: asyncio.Event, once: bool) -> None:
    """Show the table as its journal says until `closing`; `once`: attach and stop (the benchmark)."""
    from engine.auth import User
    from engine.store.db import open_store
    from engine.table.follower import JournalFollower
    from gui.floor.watch import StoreWatch

    store = open_store(db, table=table_id, migrate=False)
    watch = StoreWatch(store)
    try:
        follower = JournalFollower(store, table_id)

        def attach_when_ready() -> None:
            # Until the croupier station has loaded its Rules Submission there is nothing to show.
            if table.source is None and follower.rules is not None:
                viewer = User("viewer", "surveillance")  # every command is refused by the follower anyway
                table.attach(follower, viewer)

        def moved(_tables: object) -> None:
            follower.poll()
            attach_when_ready()

        watch.changed.connect(moved)
        watch.failed.connect(table.irregularity.emit)
        attach_when_ready()
        if once:
            return
        watch.start()
        await closing.wait()
    finally:
        watch.stop()
        store.close()


def _build_windows(
    station: str, table: Any, all_windows: bool, read_only: bool = False, chips: Any = None
) -> list[Any]:
    """The station's windows, built by the function the station registry names for it."""
    from gui.stations import windows_function

    built: list[Any] = windows_function(station)(
        table, all_windows=all_windows, read_only=read_only, chips=chips
    )
    return built


def croupier_windows(table: Any, *, all_windows: bool, read_only: bool, chips: Any) -> list[Any]:
    """The croupier's window; `all_windows`: the player display and the bonus screen beside it."""
    from gui.windows.bonus_screen import BonusScreen
    from gui.windows.croupier import CroupierWindow
    from gui.windows.player_display import PlayerDisplay

    extra = {"chips": chips} if chips is not None else {}
    # Without the bonus window the croupier station plays the bonus games itself (issue 25).
    windows: list[Any] = [CroupierWindow(table, table.players, own_bonus=not all_windows, **extra)]
    if all_windows:
        windows += [PlayerDisplay(table), BonusScreen(table)]
    return windows


def display_windows(table: Any, *, all_windows: bool, read_only: bool, chips: Any) -> list[Any]:
    from gui.windows.player_display import PlayerDisplay

    return [PlayerDisplay(table)]


def bonus_windows(table: Any, *, all_windows: bool, read_only: bool, chips: Any) -> list[Any]:
    from gui.windows.bonus_screen import BonusScreen

    return [BonusScreen(table, read_only=read_only)]


class _CloseWatcher(QObject):
    """Turns closing the main window into the orderly shutdown. While `keep_open()` the first close
    only starts it (the window stays for what the close shows); a second close goes through."""

    def __init__(
        self, on_close: Callable[[], None], window: QObject, keep_open: Callable[[], bool] = lambda: False
    ) -> None:
        super().__init__(window)
        self._on_close = on_close
        self._window = window
        self._keep_open = keep_open
        self._asked = 0

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close and obj is self._window:
            self._on_close()
            self._asked += 1
            if self._asked == 1 and self._keep_open():
                event.ignore()
                return True
        return False


def _teller(main: Any) -> Callable[[str], None]:
    """Where the croupier reads what the wheel session found: the window's reason line (a hold's reason
    on it is not covered by the wheel's identity at connect; the close's outcome always shows)."""

    def tell(text: str) -> None:
        show = getattr(main, "show_reason", None)
        reason = getattr(main, "reason", None)
        if show is None:
            return
        if text.startswith("the wheel connected") and reason is not None and reason.text():
            return
        show(text)

    return tell


def _signed_in(store: Any, table: Any, user: Any) -> Any:
    """Who closes the table (the journal's `by` of the reconciliation): the station's signed-in user;
    nobody while the store has no users (the station then runs as an unnamed croupier)."""
    from engine.store.users import list_users

    if not list_users(store):
        return None
    return getattr(table, "user", None) or user


def offscreen_if_headless() -> None:
    """Render without a display when there is none (screenshots, CI)."""
    if (
        sys.platform.startswith("linux")
        and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
