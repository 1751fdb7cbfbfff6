"""The station registry: every station `drr gui --station` starts, how it runs and what builds its windows.

The one place stations are spelled (the settings file's `table.station`, `drr gui --station`, the
log-in's permission, the GUI's start all read it): a new station is its entry here and its window
module. A station's windows are named as "module:function" (the engine imports no Qt; gui.app and
gui.floor.station import the function when the station starts). Its function takes, by how it runs:

- TABLE, FOLLOWER: `(table, *, all_windows, read_only, chips) -> list of windows` (the first is the
  main window; a TABLE station runs the table service, a FOLLOWER follows the journal another
  station's service writes and never claims the table);
- FLOOR: `(store, user, settings) -> window` (a floor station reads the floor's or a table's store).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from engine.errors import DrrError

Runs = Literal["table", "follower", "floor"]
TABLE: Final = "table"
FOLLOWER: Final = "follower"
FLOOR: Final = "floor"


@dataclass(frozen=True)
class Station:
    """One station: its name, how it runs, the permission (engine.auth) its user needs at the log-in,
    the function that builds its windows and one line saying what it is."""

    name: str
    runs: Runs
    permission: str
    windows: str  # "module:function" (see the module docstring)
    what: str


REGISTRY: Final[tuple[Station, ...]] = (
    Station("croupier", TABLE, "open_bets", "gui.app:croupier_windows", "the croupier's screen"),
    Station("display", FOLLOWER, "view_tables", "gui.app:display_windows", "the player display"),
    Station("bonus", FOLLOWER, "bonus_pick", "gui.app:bonus_windows", "the bonus game screen"),
    Station(
        "surveillance",
        FLOOR,
        "view_stats",
        "gui.floor.station:surveillance_window",
        "surveillance: every table's figures and alerts",
    ),
    Station("pitboss", FLOOR, "view_history", "gui.floor.station:pitboss_window", "the pit boss's station"),
)
BY_NAME: Final[dict[str, Station]] = {s.name: s for s in REGISTRY}
STATIONS: Final[tuple[str, ...]] = tuple(BY_NAME)
DEFAULT: Final = "croupier"


def station(name: str) -> Station:
    """The registry's entry for `name`; an unknown name is refused in one line."""
    found = BY_NAME.get(name)
    if found is None:
        raise DrrError(f"unknown station {name!r}; choose one of {', '.join(STATIONS)}")
    return found


def named(runs: Runs) -> tuple[str, ...]:
    """The stations that run so (TABLE, FOLLOWER or FLOOR), in the registry's order."""
    return tuple(s.name for s in REGISTRY if s.runs == runs)


def spoken() -> str:
    """The stations for a help text: "croupier, display, bonus, surveillance or pitboss"."""
    return ", ".join(STATIONS[:-1]) + " or " + STATIONS[-1]
