"""Where the croupier station's windows go: the croupier's on the croupier's (primary) monitor, the
player display and the bonus screen on the players' monitor(s); with one monitor the bonus screen
stands beside the croupier window, never behind it (the player display behind the bonus screen).

A real table PC has the croupier's touch screen and one or two screens facing the players (the
bonus screen is touched by the players). Those windows never take the keyboard focus
(gui.windows.bonus_screen, player_display), and the croupier's keys are application-wide
(gui.windows.croupier), so a player touching a screen takes nothing from the croupier.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QWidget

MARGIN = 20
SIDE_SHARE = 0.3  # of a single monitor's width, for the bonus screen's column
SIDE_MIN = 400  # the bonus screen's narrowest column: one game's panel and its scroll bar
FRAME_SETTLE_MS = 500  # after show(): the window manager has framed the windows by then
CROUPIER_MIN = 850  # the croupier window's narrowest (its minimum is 834 px) and a window frame


def plan(
    primary: QRect, others: Sequence[QRect], count: int, *, croupier_min: int = CROUPIER_MIN
) -> list[QRect]:
    """Geometries for `count` windows in the order croupier, player display, bonus screen, given the
    primary monitor's and the other monitors' available geometry.

    On one monitor the croupier window keeps at least `croupier_min` pixels and the bonus screen takes
    the column beside it (at 1280x720: 880 and 400, without overlap). A monitor too narrow for both
    (1024x768) gives the croupier window the whole screen and the column lies over its right side:
    there the bonus screen comes to the front only for a game (gui.windows.bonus_screen)."""
    if count <= 0:
        return []
    if others:
        players = list(others)
        # One players' monitor: the display and the bonus screen share it (the bonus screen comes to
        # the front while a game runs); two or more: one each.
        rest = [
            players[min(i, len(players) - 1)].adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)
            for i in range(count - 1)
        ]
        return [primary.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN), *rest]
    if count == 1:
        return [primary.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)]
    side = max(SIDE_MIN, int(primary.width() * SIDE_SHARE))
    side = min(side, primary.width() // 2, primary.width() - croupier_min)
    if side < SIDE_MIN:
        # No room beside it: the croupier's whole screen, the column over its right side.
        main = QRect(primary)
        column = QRect(primary.right() + 1 - SIDE_MIN, primary.y(), SIDE_MIN, primary.height())
        return [main, *[column] * (count - 1)]
    main = QRect(primary.x(), primary.y(), primary.width() - side, primary.height())
    column = QRect(main.right() + 1, primary.y(), side, primary.height())
    # The column beside the croupier window: the bonus screen (the croupier's to watch, shown last, so
    # in front) and behind it the player display, which on one monitor no player sees anyway.
    return [main, *[column] * (count - 1)]


def fit_frame(window: QWidget, rect: QRect) -> None:
    """The window with its frame (title bar, borders) inside `rect`: `setGeometry` places the window's
    inside, so on a 720-pixel screen the title bar pushed the croupier window's bottom row off it.
    The frame is known once the window manager has framed the window: called after `show()`, and
    again a moment later (gui.app)."""
    frame, inner = window.frameGeometry(), window.geometry()
    left, top = inner.x() - frame.x(), inner.y() - frame.y()
    extra_w, extra_h = frame.width() - inner.width(), frame.height() - inner.height()
    if rect.contains(frame) or (extra_w <= 0 and extra_h <= 0):
        return
    window.setGeometry(
        QRect(rect.x() + left, rect.y() + top, rect.width() - extra_w, rect.height() - extra_h)
    )


def keep_keys_away(window: QWidget) -> None:
    """A players' screen (bonus screen, player display) never takes the keyboard: touching it does
    not activate it, so the croupier's window keeps the focus and its keys (gui.screen_layout)."""
    window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    window.setWindowFlag(Qt.WindowType.WindowDoesNotAcceptFocus)
    window.setFocusPolicy(Qt.FocusPolicy.NoFocus)
