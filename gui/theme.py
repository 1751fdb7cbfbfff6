"""The look of every station: one palette, the QSS from `resources/theme.qss`, SVG icons.

Colours are named for what they mean on the table (Lucky gold, Bonus diamond blue, win
green) so a widget never picks a colour by taste. Player chip colours come from the
Okabe-Ito palette, which stays distinct for the common forms of colour blindness; each
player also gets a chip shape so colour is never the only cue.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import count

from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from resources import resource_path

BACKGROUND = QColor("#0e1318")
PANEL = QColor("#171e26")
PANEL_EDGE = QColor("#2a3440")
TEXT = QColor("#eef1f4")
TEXT_DIM = QColor("#9aa6b2")
FELT = QColor("#0b5236")
FELT_DARK = QColor("#083c28")
FELT_LINE = QColor("#e9e3c9")
NUMBER_RED = QColor("#c3262e")
NUMBER_BLACK = QColor("#16181b")
NUMBER_GREEN = QColor("#13804f")
LUCKY = QColor("#f5c542")
LUCKY_TEXT = QColor("#1a1200")
BONUS = QColor("#5fd4ff")
WIN = QColor("#38d67a")
WARN = QColor("#ffb020")
DANGER = QColor("#ff5a52")


class ChipShape(enum.StrEnum):
    CIRCLE = "circle"
    SQUARE = "square"
    DIAMOND = "diamond"
    HEXAGON = "hexagon"
    TRIANGLE = "triangle"
    PENTAGON = "pentagon"


_PLAYER_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#CC79A7", "#D55E00", "#0072B2", "#E8E8E8")
_SHAPES = tuple(ChipShape)


@dataclass(frozen=True, slots=True)
class PlayerStyle:
    """How one player's chips look: colour, shape and the colour of the value printed on them."""

    colour: str
    shape: ChipShape
    seat: int

    @property
    def qcolor(self) -> QColor:
        return QColor(self.colour)

    @property
    def text_colour(self) -> QColor:
        c = QColor(self.colour)
        # Dark text on light chips, light text on dark ones: relative luminance, not hue.
        lum = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF()
        return QColor("#111111") if lum > 0.45 else QColor("#ffffff")


def player_style(seat: int) -> PlayerStyle:
    """The style of seat 0, 1, 2, …: colour and shape both change from seat to seat."""
    return PlayerStyle(_PLAYER_COLOURS[seat % len(_PLAYER_COLOURS)], _SHAPES[seat % len(_SHAPES)], seat)


def player_styles(players: Iterable[str]) -> dict[str, PlayerStyle]:
    return {p: player_style(i) for i, p in enumerate(players)}


def seat_styles(players: Iterable[str], seats: Mapping[str, int]) -> dict[str, PlayerStyle]:
    """Each player's style by the seat their chips were placed from (as the croupier's felt drew
    them); a player with no seat on record takes the first seat style nobody else has."""
    names = list(players)
    styles = {p: player_style(seats[p]) for p in names if p in seats}
    taken = {s.seat for s in styles.values()}
    free = (i for i in count() if i not in taken)
    for p in names:
        if p not in styles:
            styles[p] = player_style(next(free))
    return styles


def font(point_size: float, bold: bool = False) -> QFont:
    f = QFont(QGuiApplication.font())
    f.setPointSizeF(point_size)
    f.setBold(bold)
    return f


@cache
def icon(name: str) -> QIcon:
    """An SVG icon from resources/icons (Qt renders it sharp at any device pixel ratio)."""
    return QIcon(str(resource_path("icons", f"{name}.svg")))


def stylesheet() -> str:
    return resource_path("theme.qss").read_text(encoding="utf-8")


def palette() -> QPalette:
    """The dark palette under the QSS, so every plain widget starts dark too."""
    pal = QPalette()
    role = QPalette.ColorRole
    for r, c in (
        (role.Window, BACKGROUND),
        (role.WindowText, TEXT),
        (role.Base, QColor("#0b1015")),
        (role.AlternateBase, PANEL),
        (role.Text, TEXT),
        (role.Button, QColor("#222c37")),
        (role.ButtonText, TEXT),
        (role.Highlight, QColor("#2f4a64")),
        (role.HighlightedText, TEXT),
        (role.ToolTipBase, PANEL),
        (role.ToolTipText, TEXT),
        (role.PlaceholderText, TEXT_DIM),
    ):
        pal.setColor(r, c)
    return pal


def apply(app: QApplication) -> None:
    """Give the whole application the casino theme."""
    app.setStyle("Fusion")
    app.setPalette(palette())
    base = QFont(app.font())
    base.setPointSizeF(max(base.pointSizeF(), 11.0))
    app.setFont(base)
    app.setStyleSheet(stylesheet())
