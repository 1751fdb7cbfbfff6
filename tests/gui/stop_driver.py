"""Runs `drr` (gui.cli.main, what the `drr` command runs) with the arguments after `--` and prints
one line `READY <what the station shows>` once the station reached the state named first:

- `login`: the sign-in dialog is up;
- `window`: the station's main window is up (the croupier's on the table rebuilt from the journal);
- `dialog`: then one of the station's own modal dialogs is open (the croupier's void sign-off, the pit
  boss's sign-off, surveillance's custom range), each in its nested event loop;
- `stuck`: the main window is up, then the Qt thread blocks for a minute (what the watchdog is for).

The stop-signal tests (test_stop_signals.py) signal the process only after that line, so each
state is the one they mean. Nothing here stops the station: that is what is being tested.
"""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog, QWidget


def _main_window() -> QWidget | None:
    from gui.windows.bonus_screen import BonusScreen
    from gui.windows.croupier import CroupierWindow
    from gui.windows.pitboss import PitBossWindow
    from gui.windows.player_display import PlayerDisplay
    from gui.windows.surveillance import SurveillanceWindow

    kinds = (CroupierWindow, PitBossWindow, SurveillanceWindow, PlayerDisplay, BonusScreen)
    shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, kinds) and w.isVisible()]
    # The croupier's window first: plain `drr` shows the player display and bonus screen as well.
    shown.sort(key=lambda w: not isinstance(w, CroupierWindow))
    return shown[0] if shown else None


def _shows(window: QWidget) -> str | None:
    """What the window shows, or None while it is still starting."""
    label = getattr(window, "phase_label", None)
    if label is None:
        return type(window).__name__
    text = str(label.text())
    return None if text == "STARTING" else f"{type(window).__name__} {text}"


def _open_dialog(window: QWidget) -> None:
    from gui.windows.croupier import CroupierWindow
    from gui.windows.pitboss import PitBossWindow
    from gui.windows.surveillance import RangeDialog

    if isinstance(window, CroupierWindow):
        window.ask_void()  # the pit boss's sign-off (a no-spin is refused before no more bets)
    elif isinstance(window, PitBossWindow):
        window.sign_off("acknowledge_alert", "Acknowledge alert", "a test alert")
    else:
        RangeDialog(window).exec()


def main() -> int:
    state, rest = sys.argv[1], sys.argv[2:]
    assert rest[0] == "--", "usage: stop_driver.py STATE -- DRR-ARGS…"
    app = QApplication(sys.argv[:1])
    poll = QTimer(app)
    poll.setInterval(50)
    opened: list[bool] = []

    def ready(what: str) -> None:
        poll.stop()
        print(f"READY {what}", flush=True)

    def check() -> None:
        modal = QApplication.activeModalWidget()
        if state == "login":
            if isinstance(modal, QDialog) and "login" in modal.windowTitle():
                ready(modal.windowTitle())
            return
        window = _main_window()
        shows = _shows(window) if window is not None else None
        if shows is None or window is None:
            return
        if state == "window":
            ready(shows)
        elif state == "stuck":
            ready(shows)
            QTimer.singleShot(200, lambda: time.sleep(60))
        elif not opened:
            opened.append(True)
            QTimer.singleShot(0, lambda: _open_dialog(window))  # runs its own nested loop
        elif isinstance(modal, QDialog):
            ready(f"{shows} / {type(modal).__name__}")

    poll.timeout.connect(check)
    poll.start()
    from gui import cli

    return cli.main(rest[1:])


if __name__ == "__main__":
    sys.exit(main())
