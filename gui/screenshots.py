"""`drr screenshots DIR`: each station rendered offscreen with demo data, one PNG each.

The pictures come from real rounds played through the table service on seeded demo tables
(gui.demo, scratch stores removed afterwards), so they show what the stations really draw; the
README uses them. Every picture is a 1920x1080 window (`SIZE`), the floor stations' too.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget

SIZE = (1920, 1080)  # every picture at the README's screen size (issue 29 point 3)
SETTLE_S = 0.6  # layouts settle and the reveal animations finish before a grab


def render_all(out_dir: Path) -> list[Path]:
    """Every station: the table's (croupier, player display, bonus screen), then the floor's."""
    from gui.floor.screens import floor_shots

    app, paths = render_table_stations(out_dir)
    return paths + floor_shots(app, out_dir)


def render_table_stations(out_dir: Path) -> tuple[QApplication, list[Path]]:
    """The croupier window, the player display and the bonus screen on demo tables; the service runs
    on a qasync loop for as long as the pictures take, and is closed before the floor's turn."""
    import qasync

    from gui import demo, theme
    from gui.table_model import TableModel
    from gui.widgets.status import SensorHealth
    from gui.windows.bonus_screen import BonusScreen
    from gui.windows.croupier import CroupierWindow
    from gui.windows.player_display import PlayerDisplay

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply(app)
    out_dir.mkdir(parents=True, exist_ok=True)

    def croupier(table: TableModel) -> QWidget:
        window = CroupierWindow(table, table.players)
        table.set_sensor_health(SensorHealth(True, "virtual wheel", 0.8))
        return window

    Make = Callable[[Path], Awaitable[TableModel]]
    shots: list[tuple[str, Make, Callable[[TableModel], QWidget], tuple[int, int]]] = [
        ("croupier-lucky-numbers.png", demo.croupier_with_lucky, croupier, SIZE),
        ("croupier-lucky-win.png", demo.croupier_after_lucky_win, croupier, SIZE),
        ("player-display.png", demo.croupier_after_lucky_win, PlayerDisplay, SIZE),
        ("bonus-game.png", demo.bonus_mid_round, BonusScreen, SIZE),
    ]

    async def grab(
        make: Make, show: Callable[[TableModel], QWidget], path: Path, size: tuple[int, int]
    ) -> Path:
        with tempfile.TemporaryDirectory(prefix="drr-shots-") as tmp:
            table = await make(Path(tmp))
            try:
                window = show(table)
                window.resize(*size)
                window.show()
                await asyncio.sleep(SETTLE_S)  # the Qt event loop runs meanwhile: layout, paint, animations
                if not window.grab().save(str(path)):
                    raise OSError(f"cannot write {path}")
                window.close()
            finally:
                await demo.close_table(table)
        return path

    async def render() -> list[Path]:
        return [await grab(make, show, out_dir / name, size) for name, make, show, size in shots]

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    quit_on_close = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)  # closing a grabbed window must not end the loop mid-way
    try:
        paths = loop.run_until_complete(render())
    finally:
        app.setQuitOnLastWindowClosed(quit_on_close)
        loop.close()
        asyncio.set_event_loop(None)
    return app, paths
