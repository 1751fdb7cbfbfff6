"""`drr screenshots DIR`: each station rendered offscreen with demo data, one PNG each.

The pictures come from real engine rounds on a seeded demo table (gui.demo), so they show
what the stations really draw; the README uses them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget

SIZE = (1600, 1000)


def _settle(app: QApplication, seconds: float = 0.6) -> None:
    """Let layouts settle and the reveal animations finish before grabbing."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def _grab(app: QApplication, window: QWidget, path: Path, size: tuple[int, int] = SIZE) -> Path:
    window.resize(*size)
    window.show()
    _settle(app)
    if not window.grab().save(str(path)):
        raise OSError(f"cannot write {path}")
    window.close()
    return path


def render_all(out_dir: Path) -> list[Path]:
    """Every station: the table's (croupier, player display, bonus screen), then the floor's."""
    from gui.floor.screens import floor_shots

    app, paths = render_table_stations(out_dir)
    return paths + floor_shots(app, out_dir)


def render_table_stations(out_dir: Path) -> tuple[QApplication, list[Path]]:
    from gui import demo, theme
    from gui.windows.bonus_screen import BonusScreen
    from gui.windows.croupier import CroupierWindow
    from gui.windows.player_display import PlayerDisplay

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply(app)
    out_dir.mkdir(parents=True, exist_ok=True)
    from gui.local_table import LocalTable
    from gui.view_model import SensorHealth

    shots: list[tuple[str, Callable[[], QWidget], tuple[int, int]]] = []

    def croupier(factory: Callable[[], LocalTable]) -> Callable[[], QWidget]:
        def make() -> QWidget:
            table = factory()
            window = CroupierWindow(table, table.players)
            table.set_sensor_health(SensorHealth(True, "virtual wheel", 0.8))
            return window

        return make

    shots.append(("croupier-lucky-numbers.png", croupier(demo.croupier_with_lucky), SIZE))
    shots.append(("croupier-lucky-win.png", croupier(demo.croupier_after_lucky_win), SIZE))
    shots.append(("player-display.png", lambda: PlayerDisplay(demo.croupier_after_lucky_win()), (1600, 900)))
    shots.append(("bonus-game.png", lambda: BonusScreen(demo.bonus_mid_round()), (1500, 760)))
    return app, [_grab(app, make(), out_dir / name, size) for name, make, size in shots]
