"""The wheel's physics watched game by game, and the floor-ops alarms a surveillance officer reads from
them (issue 26; pure: no store, no hardware).

A game is one wheel result: the rotor speed and direction the wheel last reported before the ball
settled, and the misfires and failed launches of that game (`GameWatch`). `alarms(games, settings)`
names what is out of line over a list of games (`drr wheel decode` users, the capture tests);
`TableWatch` follows one table's journal entry by entry (the alert scanner, engine.floor.alerts) and
says the alarms as each game ends:

- `direction_not_alternated`: the rotor turned the same way as in the game before, on a wheel set to
  reverse every game (SS2 mode bit 1; a commanded wheel: the table alternates `*u 1` / `*u 3`). The
  game before is the wheel's previous game counter, not the previous result: a game whose result was
  entered by hand (or never came) still turned the rotor, and its rotor reports say which way; a game
  before that nothing was heard of is not compared;
- `rotor_speed`: the rotor speed at the result outside the band. The guide's default `*T s` range is
  14.0-17.5 rpm with a random change of up to `*T m` 1.5 rpm after no-more-bets, and the real capture b
  reads 14.2-19.9 rpm at its results: the default band is 12.5-20.5;
- `misfires`: misfires and failed launches above a rate (per game) over the last `window` games,
  said once when the rate crosses it (again only after it fell back);
- `games_per_hour`: fewer games per hour than the target, per table and per dealer (the croupier
  signed in at the station), over the last hour of play (breaks longer than SESSION_GAP_S left out),
  once at least MIN_GAMES games were played; said once when it falls below;
- `ball_not_detected`: the wheel found no ball (`wheel.ball_not_detected`: no ball for 5 s in state 4,
  state 7, or a pocket a single-zero wheel has not) in at least `ball_not_detected` of the last
  `window` games (0: off), said as it happens, once until the count falls back below. The round it
  happened in is held and alerted as a sensor fault whatever this says (engine.floor.alerts); this
  alarm is the sensor's health over the shift;
- `wheel_clock`: the wheel's clock (`*d g`, read at connect: `wheel.identity`, and again at each
  reconciliation and every `wheel.clock_check_minutes`: `wheel.clock`) more than
  `clock_drift_seconds` away from the table PC's.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from engine.entry_types import EntryType
from engine.journal_types import Payload, Unknown
from engine.round import RoundOpened
from engine.store.canonical import parse_time
from engine.table_events import DealerChanged
from engine.wheel_events import (
    WheelBallNotDetected,
    WheelClock,
    WheelIdentity,
    WheelLaunchFailed,
    WheelMissSpin,
    WheelResult,
    WheelRotor,
)

# The entry types a TableWatch reads (the rotor's, the results, misfires, launches, dealers, identity).
WHEEL_PHYSICS = (
    EntryType.WHEEL_RESULT,
    EntryType.WHEEL_MISS_SPIN,
    EntryType.WHEEL_LAUNCH_FAILED,
    EntryType.WHEEL_BALL_NOT_DETECTED,
    EntryType.WHEEL_IDENTITY,
    EntryType.WHEEL_CLOCK,
    EntryType.TABLE_DEALER_CHANGED,
)
SESSION_GAP_S = 600  # a pause longer than this between results is a break, not slow play
GAME_COUNTER_MAX = 256  # the SS2's game counter wraps after 256 (guide § 4.1)
MIN_GAMES = 5  # games per hour is judged once this many games were played (4 intervals)
RATE_SPAN = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class WatchSettings:
    """The alarms' thresholds (engine.config's `wheel_alarms.*` keys)."""

    rpm_low: Decimal = Decimal("12.5")
    rpm_high: Decimal = Decimal("20.5")
    alternate: bool = True  # the wheel reverses every game (mode bit 1 / the table alternates starts)
    misfire_rate: Fraction = Fraction(1, 10)  # misfires + failed launches per game, over `window`
    window: int = 20
    games_per_hour: int = 30  # below this: an alarm (0: off)
    clock_drift_seconds: int = 60
    ball_not_detected: int = 1  # games with no ball found, over `window`, that raise the alarm (0: off)


@dataclass(frozen=True, slots=True)
class GameWatch:
    game: int | None
    time: datetime
    number: int
    rpm: Decimal | None
    direction: str | None
    misfires: int
    launch_failures: int
    dealer: str | None = None
    no_ball: int = 0  # the wheel's "ball not detected" reports since the game before's result
    # The direction alarm fired on this game (TableWatch's verdict: against the wheel's previous game
    # counter, heard or not), so the surveillance chart rings exactly the games the alerts name.
    not_reversed: bool = False


@dataclass(frozen=True, slots=True)
class Alarm:
    # direction_not_alternated, rotor_speed, misfires, games_per_hour, ball_not_detected, wheel_clock
    kind: str
    game: int | None
    detail: str  # in a surveillance officer's words
    dealer: str | None = None  # games_per_hour: the dealer's own rate (None: the table's)


def hourly_rate(times: list[datetime]) -> Fraction | None:
    """Results per hour of play from their times in order: the intervals between consecutive ones,
    breaks (longer than SESSION_GAP_S) left out (None: no interval to measure). The pit boss's report
    gives each dealer's games per hour with it too (engine.floor.reports)."""
    gaps = [Fraction((b - a).total_seconds()) for a, b in itertools.pairwise(times)]
    play = [g for g in gaps if 0 < g <= SESSION_GAP_S]
    return Fraction(len(play)) * 3600 / sum(play) if play else None


def games_per_hour(games: list[GameWatch]) -> Fraction | None:
    """`hourly_rate` of the games' result times."""
    return hourly_rate([g.time for g in games])


def previous_game(game: int) -> int:
    """The wheel's game counter before `game` (it runs 1-256, then wraps to 1)."""
    return (game - 2) % GAME_COUNTER_MAX + 1


def follows(before: GameWatch | None, game: GameWatch) -> bool:
    """`game` is the wheel's next game after `before` (counters unknown: taken as consecutive)."""
    if before is None:
        return False
    return before.game is None or game.game is None or before.game == previous_game(game.game)


def game_alarms(
    before: GameWatch | None, game: GameWatch, settings: WatchSettings, *, was: str | None = None
) -> list[Alarm]:
    """The alarms one game raises on its own (its speed; its direction against the game before).
    `was`: the rotor's direction in the wheel's previous game; by default `before`'s when `before`
    is that game (a game between them, unheard, makes the direction unknown: not compared)."""
    if was is None and follows(before, game):
        assert before is not None
        was = before.direction
    out: list[Alarm] = []
    if game.rpm is not None and not settings.rpm_low <= game.rpm <= settings.rpm_high:
        out.append(
            Alarm(
                "rotor_speed",
                game.game,
                f"rotor at {game.rpm} rpm at the result, outside {settings.rpm_low}-{settings.rpm_high}",
            )
        )
    if settings.alternate and game.direction is not None and game.direction == was:
        out.append(
            Alarm(
                "direction_not_alternated",
                game.game,
                f"rotor turned {game.direction} again (the wheel is set to reverse every game)",
            )
        )
    return out


def misfire_alarm(recent: list[GameWatch], settings: WatchSettings) -> Alarm | None:
    faults = sum(g.misfires + g.launch_failures for g in recent)
    if recent and Fraction(faults, len(recent)) > settings.misfire_rate:
        return Alarm(
            "misfires",
            recent[-1].game,
            f"{faults} misfires or failed launches in the last {len(recent)} games",
        )
    return None


def no_ball_alarm(
    recent: list[GameWatch], pending: int, game: int | None, settings: WatchSettings
) -> Alarm | None:
    """`ball_not_detected` over the last games (`recent`) and the reports since the last result."""
    count = sum(g.no_ball for g in recent) + pending
    if not settings.ball_not_detected or count < settings.ball_not_detected:
        return None
    games = len(recent) + (1 if pending else 0)
    return Alarm(
        "ball_not_detected",
        game,
        f"the wheel found no ball {count} times in the last {games} games "
        f"(alarm at {settings.ball_not_detected}): check the ball sensor and the camera",
    )


def rate_alarm(games: list[GameWatch], settings: WatchSettings, dealer: str | None = None) -> Alarm | None:
    rate = games_per_hour(games)
    if not settings.games_per_hour or rate is None or rate >= settings.games_per_hour:
        return None
    who = f"dealer {dealer}: " if dealer is not None else ""
    return Alarm(
        "games_per_hour",
        games[-1].game,
        f"{who}{float(rate):.1f} games per hour, below the target {settings.games_per_hour}",
        dealer,
    )


def alarms(games: list[GameWatch], settings: WatchSettings = WatchSettings()) -> list[Alarm]:
    """Every alarm over a list of games (each game's own, then the rates over the whole list)."""
    out: list[Alarm] = []
    for before, game in zip([None, *games], games, strict=False):
        out += game_alarms(before, game, settings)
    recent = games[-settings.window :]
    last = games[-1].game if games else None
    for found in (
        misfire_alarm(recent, settings),
        no_ball_alarm(recent, 0, last, settings),
        rate_alarm(games, settings),
    ):
        if found is not None:
            out.append(found)
    return out


def clock_alarm(identity: WheelIdentity | WheelClock, settings: WatchSettings) -> Alarm | None:
    """The wheel's clock as read at connect (`wheel.identity`) or again later (`wheel.clock`)."""
    offset = identity.offset
    if offset is None or abs(offset) <= settings.clock_drift_seconds:
        return None
    way = "ahead of" if offset > 0 else "behind"
    return Alarm(
        "wheel_clock",
        identity.game,
        f"the wheel's clock is {abs(offset)} s {way} the table PC's (more than "
        f"{settings.clock_drift_seconds} s): the wheel's log times cannot be matched to the journal's",
    )


@dataclass
class TableWatch:
    """One table's wheel followed through its journal entries (`feed`, in chain order)."""

    settings: WatchSettings = field(default_factory=WatchSettings)
    games: deque[GameWatch] = field(default_factory=lambda: deque(maxlen=500))
    dealer: str | None = None
    by_dealer: dict[str, deque[GameWatch]] = field(default_factory=dict)
    direction: str | None = None  # the rotor's last reported direction
    # game counter -> the rotor's direction in that game, from its rotor reports and its result (the
    # last few games): the direction alarm compares a game with the wheel's game before, heard or not.
    game_directions: dict[int, str] = field(default_factory=dict)
    misfires: int = 0
    launch_failures: int = 0
    no_ball: int = 0  # "ball not detected" reports since the last result
    over: set[str] = field(default_factory=set)  # the rate alarms standing (said once until cleared)

    def feed(self, p: Payload | Unknown, time: datetime | str) -> list[Alarm]:
        """The alarms this entry raises (most entries: none). `time`: the entry's (its journal text is
        read only for a result)."""
        if isinstance(p, DealerChanged) or (isinstance(p, RoundOpened) and p.dealer is not None):
            self.dealer = p.dealer  # who deals from now on (a round's own dealer: its setting)
        elif isinstance(p, WheelRotor):
            self.direction = p.direction
            if p.game is not None and p.rpm:  # a stopped rotor (launching, idle) turns no way
                self._turned(p.game, p.direction)
        elif isinstance(p, WheelMissSpin):
            self.misfires += 1
        elif isinstance(p, WheelLaunchFailed):
            self.launch_failures += 1
        elif isinstance(p, WheelBallNotDetected):
            self.no_ball += 1
            return self._once("ball_not_detected", self._no_ball(p.game))
        elif isinstance(p, WheelIdentity | WheelClock):
            found = clock_alarm(p, self.settings)
            return [found] if found is not None else []
        elif isinstance(p, WheelResult):
            return self._game(p, time if isinstance(time, datetime) else parse_time(time))
        return []

    def _game(self, p: WheelResult, time: datetime) -> list[Alarm]:
        before = self.games[-1] if self.games else None
        if before is not None and p.game is not None and before.game == p.game:
            return []  # the same game heard again (its verdict), not a new game
        direction = p.direction or self.direction
        game = GameWatch(
            p.game,
            time,
            p.number,
            p.rpm,
            direction,
            self.misfires,
            self.launch_failures,
            self.dealer,
            self.no_ball,
        )
        self.misfires = self.launch_failures = self.no_ball = 0
        was = None
        if p.game is not None:
            was = self.game_directions.get(previous_game(p.game))
            if direction is not None:
                self._turned(p.game, direction)
        out = game_alarms(before, game, self.settings, was=was)
        if any(a.kind == "direction_not_alternated" for a in out):
            game = replace(game, not_reversed=True)
        self.games.append(game)
        recent = list(self.games)[-self.settings.window :]
        out += self._once("misfires", misfire_alarm(recent, self.settings))
        if self._no_ball(p.game) is None:  # fallen back below: the next one is said again
            self.over.discard("ball_not_detected")
        out += self._once("games_per_hour", self._rate(list(self.games)))
        if self.dealer is not None:
            mine = self.by_dealer.setdefault(self.dealer, deque(maxlen=500))
            mine.append(game)
            out += self._once(f"games_per_hour:{self.dealer}", self._rate(list(mine), self.dealer))
        return out

    def _no_ball(self, game: int | None) -> Alarm | None:
        recent = list(self.games)[-self.settings.window :]
        if self.no_ball:  # the game without a ball is one of the window's games
            recent = recent[1:] if len(recent) >= self.settings.window else recent
        return no_ball_alarm(recent, self.no_ball, game, self.settings)

    def _turned(self, game: int, direction: str) -> None:
        self.game_directions.pop(game, None)  # kept in the order heard: the oldest go first
        self.game_directions[game] = direction
        while len(self.game_directions) > 16:
            del self.game_directions[next(iter(self.game_directions))]

    def _rate(self, games: list[GameWatch], dealer: str | None = None) -> Alarm | None:
        last = games[-1].time
        span = [g for g in games if last - g.time <= RATE_SPAN]
        if len(span) < MIN_GAMES:
            return None
        return rate_alarm(span, self.settings, dealer)

    def _once(self, key: str, alarm: Alarm | None) -> list[Alarm]:
        if alarm is None:
            self.over.discard(key)
            return []
        if key in self.over:
            return []
        self.over.add(key)
        return [alarm]
