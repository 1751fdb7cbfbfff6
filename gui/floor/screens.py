"""Screenshots of the floor stations for `drr screenshots`: a seeded demo floor in a scratch store.

Four tables of real engine rounds (`engine.floor.demo`, manual results among them), a corrected
result and a void by a pit boss, alerts scanned and one acknowledged; then the surveillance page,
the wall, the pit boss's recall of a bonus-game round and a report, each grabbed to PNG.
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget

from engine.errors import DrrError
from engine.store.db import Store

SIZE = (1920, 1080)  # the README's screen size, as gui.screenshots.SIZE


def _settle(app: QApplication, seconds: float = 0.4) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def _save(app: QApplication, widget: QWidget, path: Path) -> Path:
    _settle(app)
    if not widget.grab().save(str(path)):
        raise OSError(f"cannot write {path}")
    return path


# Rounds per table, played through the table service: about 8.5 ms a round on a scratch SQLite
# store on a quiet machine (30 ms with the machine busy), so 1,000 rounds take ~9 s; the old direct
# writes put 2,800 in ~20 s. Enough for every chart, the report and a bonus-game recall.
DEMO_TABLES = {"T1": 400, "T2": 250, "T3": 200, "T4": 150}


def demo_store(directory: Path) -> Store:
    from engine.auth import User
    from engine.floor import actions
    from engine.floor.demo import fill_demo_floor
    from engine.store.db import open_store

    store = open_store(str(directory / "floor-demo.sqlite"), durable=False)  # a scratch store
    fill_demo_floor(store, DEMO_TABLES)
    boss = User("pat", "pitboss")
    corrected, voided = f"T2-{DEMO_TABLES['T2'] - 50:06d}", f"T3-{DEMO_TABLES['T3'] - 20:06d}"
    why = "ball bounced out after the sensor read it"
    try:
        actions.correct_result(store, corrected, 7, why, boss, table="T2")
    except DrrError:  # the ball really was on 7
        actions.correct_result(store, corrected, 8, why, boss, table="T2")
    actions.void(store, voided, "dealer spun before no more bets", boss, table="T3")
    return store


def floor_shots(app: QApplication, out_dir: Path) -> list[Path]:
    from engine.auth import User
    from engine.floor.alerts import acknowledge_alert, list_alerts
    from gui.windows.pitboss import PitBossWindow
    from gui.windows.surveillance import SurveillanceWindow

    paths: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="drr-floor-shots-") as tmp:
        store = demo_store(Path(tmp))
        try:
            surveillance = SurveillanceWindow(store, user=User("sam", "surveillance"), live=False)
            surveillance.resize(*SIZE)
            surveillance.show()
            surveillance.scan_alerts([surveillance.current_view])
            alerts = list_alerts(store)
            if alerts:
                acknowledge_alert(store, alerts[-1].alert_id, User("sam", "surveillance"))
            surveillance.alerts.refresh()
            paths.append(_save(app, surveillance, out_dir / "surveillance-table.png"))
            surveillance.tabs.setCurrentIndex(1)
            surveillance.refresh_wall()
            paths.append(_save(app, surveillance, out_dir / "surveillance-wall.png"))
            surveillance.close()

            boss = PitBossWindow(store, user=User("pat", "pitboss"))
            boss.resize(*SIZE)
            boss.show()
            boss.filters.bonus.setCurrentIndex(1)  # rounds with a Bonus Number hit
            boss.apply_filters()
            row = next(i for i, r in enumerate(boss.model.rows) if r.round_id == "T1-000040")
            boss.view.selectRow(row)
            boss.recall.details.setCurrentIndex(1)
            paths.append(_save(app, boss, out_dir / "pitboss-recall-bonus.png"))
            boss.tabs.setCurrentIndex(1)
            boss.reports.set_period("T1", datetime(2026, 11, 29, tzinfo=UTC))
            boss.reports.show_report()
            paths.append(_save(app, boss, out_dir / "pitboss-report.png"))
            boss.close()
        finally:
            store.close()
    return paths
