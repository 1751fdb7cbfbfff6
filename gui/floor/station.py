"""Starting the floor stations (`drr gui --station surveillance|pitboss --db URL`).

They open the store (the floor's PostgreSQL or a table's SQLite file), ask for a log-in once users
exist (view-only before), and refuse a role that may not see the history or statistics.
"""

from __future__ import annotations

import sys
from typing import Any

from engine.errors import DrrError
from engine.stations import FLOOR, REGISTRY

# What a floor station's user must be allowed (the station registry, engine.stations).
STATION_NEEDS = {s.name: s.permission for s in REGISTRY if s.runs == FLOOR}


def _login(store: Any, station: str) -> Any:
    from engine.store.users import list_users
    from gui import stopping
    from gui.floor.signoff import ask_login

    if not list_users(store):
        return None  # no users yet: view only, every action refused until someone logs in
    user = ask_login(store, station)
    if user is None:
        stopping.raise_if_stopping()  # closed by a stop signal: the station stops, nobody refused
        raise DrrError(f"no log-in: the {station} station did not start")
    if not user.may(STATION_NEEDS[station]):
        raise DrrError(f"{user.name} ({user.role}) may not use the {station} station")
    return user


def surveillance_window(store: Any, user: Any, settings: Any = None) -> Any:
    from engine.config import bias_thresholds
    from engine.floor.alerts import scanner_from_settings
    from engine.rules import load_default_rules, load_rules
    from engine.store.stats import expected_lucky_count, house_edges
    from gui.windows.surveillance import SurveillanceWindow

    rules_path = getattr(settings, "rules_path", None)
    rules = load_rules(rules_path) if rules_path else load_default_rules()
    return SurveillanceWindow(
        store,
        user=user,
        scanner=scanner_from_settings(settings),  # the settings' alert thresholds, else the defaults
        expected_lucky=expected_lucky_count(rules.lucky_counts),
        house_edge=house_edges(rules),
        bias_thresholds=bias_thresholds(settings),  # the chart follows the table's watch's thresholds
    )


def pitboss_window(store: Any, user: Any, settings: Any = None) -> Any:
    from gui.windows.pitboss import PitBossWindow

    return PitBossWindow(store, user=user)


def run_floor_station(station: str, db: str | None, table_id: str = "T1", settings: Any = None) -> int:
    from PySide6.QtWidgets import QApplication

    from engine.store.db import open_store
    from gui import stopping, theme
    from gui.stations import windows_function

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Diamond Rush Roulette")
    theme.apply(app)
    # SIGTERM, Ctrl+C, SIGHUP in any state (the log-in, a sign-off dialog, the window): gui.stopping.
    with stopping.stop_on_signals() as stop:
        try:
            # A station reads a store the tables write: a mistyped path must not become a new empty store.
            store = open_store(db, table=table_id, migrate=False)
        except DrrError as exc:
            if "run drr db upgrade" not in exc.message:
                raise
            store = open_store(db, table=table_id)  # an older schema is upgraded, as before
        try:
            from engine.store.heads import refuse_missing_heads

            with store.read() as conn:  # a chain whose head row was removed: one line, not a blind spot
                refuse_missing_heads(conn)
            # The window built by the function the station registry names for it.
            window = windows_function(station)(store, _login(store, station), settings)
            stop.raise_if_stopping()  # stopped while the window was being built: app.quit came too early
            stop.on_stop(app.quit)
            window.resize(1700, 1000)
            window.show()
            app.exec()
            window.close()  # its store watch stops with it
        finally:
            store.close()
    return stop.exit_code()
