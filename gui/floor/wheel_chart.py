"""The surveillance page's wheel physics chart (issue 26): the rotor's speed at each game's result, by
direction (● clockwise, ▲ counter-clockwise; a game the direction alarm names, turning the same way as
the wheel's game before, is ringed red), with the alarm band, and games per hour over the last games.
The games are the page's (engine.floor.surveillance: `SurveillancePage.games`, folded by
engine.floor.wheel_alarms.TableWatch); the band is the settings' (`wheel_alarms.rpm_low` / `rpm_high`)."""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from engine.floor.wheel_alarms import GameWatch, WatchSettings, hourly_rate
from gui import theme
from gui.widgets.charts.base import ThemedPlot

RATE_GAMES = 10  # games per hour is taken over this many games up to each one


class RpmPerGame(ThemedPlot):
    def __init__(self) -> None:
        super().__init__(
            "Rotor rpm at each result (● cw, ▲ ccw; red ring: not reversed)", left="rpm", bottom="games"
        )
        self.cw = self.plot([], [], pen=None, symbol="o", symbolSize=6, symbolBrush=theme.BONUS)
        self.ccw = self.plot([], [], pen=None, symbol="t", symbolSize=7, symbolBrush=theme.WARN)
        self.same = self.plot(
            [],
            [],
            pen=None,
            symbol="o",
            symbolSize=12,
            symbolBrush=None,
            symbolPen=pg.mkPen(theme.DANGER, width=2),
        )
        dash = pg.mkPen(theme.LUCKY, width=1, style=Qt.PenStyle.DashLine)
        self.low = pg.InfiniteLine(angle=0, movable=False, pen=dash)
        self.high = pg.InfiniteLine(angle=0, movable=False, pen=dash)
        self.addItem(self.low)
        self.addItem(self.high)
        self.points = 0
        self.not_reversed = 0

    def update_data(self, games: Sequence[GameWatch], settings: WatchSettings) -> None:
        timed = [(i, g) for i, g in enumerate(games) if g.rpm is not None]
        cw = [(i, float(g.rpm or 0)) for i, g in timed if g.direction == "cw"]
        ccw = [(i, float(g.rpm or 0)) for i, g in timed if g.direction != "cw"]
        # The watch's own verdict (wheel_alarms.TableWatch: against the wheel's previous game counter),
        # not the result drawn before: a game whose result was entered by hand sits between them.
        same = [(i, float(g.rpm or 0)) for i, g in timed if settings.alternate and g.not_reversed]
        for curve, points in ((self.cw, cw), (self.ccw, ccw), (self.same, same)):
            curve.setData([p[0] for p in points], [p[1] for p in points])
        self.points, self.not_reversed = len(timed), len(same)
        low, high = float(settings.rpm_low), float(settings.rpm_high)
        self.low.setValue(low)
        self.high.setValue(high)
        rpms = [p[1] for p in cw + ccw] + [low, high]
        self.getPlotItem().setRange(
            xRange=(-1, max(len(games), 1)), yRange=(min(rpms) - 1, max(rpms) + 1), padding=0
        )


class GamesPerHour(ThemedPlot):
    def __init__(self) -> None:
        super().__init__(
            f"Games per hour (last {RATE_GAMES} games; gold: the target)", left="games/h", bottom="games"
        )
        self.rate = self.plot([], [], pen=pg.mkPen(theme.WIN, width=2))
        self.target = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen(theme.LUCKY, width=1, style=Qt.PenStyle.DashLine)
        )
        self.addItem(self.target)
        self.values: list[float] = []

    def update_data(self, games: Sequence[GameWatch], settings: WatchSettings) -> None:
        xs, ys = [], []
        for i in range(1, len(games)):
            rate = hourly_rate([g.time for g in games[max(0, i + 1 - RATE_GAMES) : i + 1]])
            if rate is not None:
                xs.append(i)
                ys.append(float(rate))
        self.values = ys
        self.rate.setData(xs, ys)
        self.target.setVisible(bool(settings.games_per_hour))
        self.target.setValue(settings.games_per_hour)
        top = max([*ys, float(settings.games_per_hour), 1.0])
        self.getPlotItem().setRange(xRange=(0, max(len(games), 1)), yRange=(0, top * 1.1), padding=0)


class WheelPhysicsChart(QWidget):
    """Rotor speed and direction per game beside games per hour."""

    def __init__(self, settings: WatchSettings | None = None) -> None:
        super().__init__()
        self.settings = settings or WatchSettings()
        self.rpm = RpmPerGame()
        self.rate = GamesPerHour()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.rpm, 3)
        layout.addWidget(self.rate, 2)

    def update_data(self, games: Sequence[GameWatch]) -> None:
        self.rpm.update_data(games, self.settings)
        self.rate.update_data(games, self.settings)
