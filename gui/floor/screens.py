"""Screenshots of the floor stations for `drr screenshots`: a seeded demo floor in a scratch store.

Four tables of real engine rounds (`engine.floor.demo`), one of them with a bias planted by a
corrected result and a manual result, alerts scanned and one acknowledged; then the surveillance
page, the wall, the pit boss's recall of a bonus-game round and a report, each grabbed to PNG.
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget


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


def demo_store(directory: Path) -> object:
    from engine.auth import User
    from engine.floor import actions
    from engine.floor.demo import fill_demo_floor
    from engine.store.db import open_store

    store = open_store(str(directory / "floor-demo.sqlite"))
    fill_demo_floor(store, {"T1": 1200, "T2": 700, "T3": 500, "T4": 400})
    boss = User("pat", "pitboss")
    actions.correct_result(
        store, "T2-00650", 7, "ball bounced out after the sensor read it", boss, table="T2"
    )
    actions.void(store, "T3-00480", "dealer spun before no more bets", boss, table="T3")
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
            surveillance = SurveillanceWindow(store, user=User("sam", "surveillance"), live=False)  # type: ignore[arg-type]
            surveillance.resize(1900, 1500)
            surveillance.show()
            surveillance.scan_alerts([surveillance.current_view])
            alerts = list_alerts(store)  # type: ignore[arg-type]
            if alerts:
                acknowledge_alert(store, alerts[-1].alert_id, User("sam", "surveillance"))  # type: ignore[arg-type]
            surveillance.alerts.refresh()
            paths.append(_save(app, surveillance, out_dir / "surveillance-table.png"))
            surveillance.tabs.setCurrentIndex(1)
            surveillance.refresh_wall()
            paths.append(_save(app, surveillance, out_dir / "surveillance-wall.png"))
            surveillance.close()

            boss = PitBossWindow(store, user=User("pat", "pitboss"))  # type: ignore[arg-type]
            boss.resize(1800, 1050)
            boss.show()
            boss.filters.bonus.setCurrentIndex(1)  # rounds with a Bonus Number hit
            boss.apply_filters()
            row = next(i for i, r in enumerate(boss.model.rows) if r.round_id == "T1-00040")
            boss.view.selectRow(row)
            boss.recall.details.setCurrentIndex(1)
            paths.append(_save(app, boss, out_dir / "pitboss-recall-bonus.png"))
            boss.tabs.setCurrentIndex(1)
            boss.reports.set_period("T1", datetime(2026, 11, 29, tzinfo=UTC))
            boss.reports.show_report()
            paths.append(_save(app, boss, out_dir / "pitboss-report.png"))
            boss.close()
        finally:
            store.close()  # type: ignore[attr-defined]
    return paths
