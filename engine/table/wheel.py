"""The wheel as the table service sees it: plain dicts, so the engine never imports `hardware`.

A wheel event reaches `TableService.wheel_event` as a mapping (hardware/table_bridge.py converts
the link's typed events; tests and replays build them by hand)::

    {"type": "result", "game": 151, "number": 24, "warnings": [], "time": "2026-11-29T15:00:01.123Z"}

=================  =============================================================  =============
type               meaning                                                        extra keys
=================  =============================================================  =============
started            a game starts: place your bets (wheel state 1/2)               -
launched           the ball is launched (state 3); bets still open                -
no_more_bets       the wheel's state 4: the service closes bets (draw) if open    -
result             the winning number (state 5)                                   number, warnings
closed             the wheel is off (state 6)                                     -
ball_not_detected  no ball in state 4/7: the spin is doubtful                     reason
warning            the wheel's warning flags changed                              warnings, advice
miss_spin          the ball ran with the rotor: a void spin                       -
launch_failed      the launch failed                                              -
gap                game counter jumped: games were played unseen                  previous
restart            the wheel was power-cycled                                     previous
rotor              rotor speed and direction (journaled at most every 10 s)       rpm, direction
link               the link to the wheel went up or down                          state, detail
=================  =============================================================  =============

Every event may carry `game` (the wheel's counter, int or None) and `time` (text). Unknown types
and malformed fields raise `DrrError` naming what is wrong.

The wheel link's own dicts (hardware/events.py `to_json()`: "game_started", "warning_changed",
...) are accepted as well and translated here (`check_wheel_event`); the link's replies, self-tests
and raw sensor lines mean nothing to the table and translate to None.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NotRequired, TypedDict

from engine.errors import DrrError

WHEEL_TYPES: Final = (
    "started",
    "launched",
    "no_more_bets",
    "result",
    "closed",
    "ball_not_detected",
    "warning",
    "miss_spin",
    "launch_failed",
    "gap",
    "restart",
    "rotor",
    "link",
)
# Events that make the spin in progress doubtful: nothing may be settled on it until resolved.
DOUBTFUL: Final = frozenset({"miss_spin", "launch_failed", "ball_not_detected", "gap", "restart", "closed"})


# The wheel link's event names (hardware/events.py) and the table's names for them.
LINK_NAMES: Final = {
    "game_started": "started",
    "ball_launched": "launched",
    "table_closed": "closed",
    "warning_changed": "warning",
    "game_number_gap": "gap",
    "wheel_restart": "restart",
    "rotor_speed": "rotor",
    "link_state": "link",
    "result_mismatch": "warning",
}
LINK_IGNORED: Final = frozenset(
    {"command_reply", "self_test", "bonus_number", "sensor", "unreadable_line", "game_counter_wrapped"}
)
_POCKET_LABELS: Final = {37: "00", 38: "000", 39: "0000"}


class WheelEvent(TypedDict):
    """The plain form of a wheel event (see the module docstring)."""

    type: str
    game: NotRequired[int | None]
    time: NotRequired[str]
    number: NotRequired[int]
    warnings: NotRequired[list[str]]
    rpm: NotRequired[str]
    direction: NotRequired[str]
    reason: NotRequired[str]
    advice: NotRequired[str]
    previous: NotRequired[int]
    state: NotRequired[str]
    detail: NotRequired[str]


def _from_link(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """The table's form of one of the wheel link's own dicts (None: nothing for the table)."""
    kind = ev.get("type")
    if kind in LINK_IGNORED:
        return None
    out = dict(ev)
    if kind in LINK_NAMES:
        out["type"] = LINK_NAMES[kind]
    if kind == "warning_changed":
        out["warnings"] = list(ev.get("active") or [])
    elif kind == "result_mismatch":
        out["warnings"] = ["result_mismatch"]
        out["advice"] = f"number line {ev.get('number_line')} vs status line {ev.get('status_number')}"
    elif kind == "result" and ev.get("number") in _POCKET_LABELS:
        # 00/000/0000 cannot come from a single-zero wheel: a misconfigured or faulty sensor.
        label = _POCKET_LABELS[ev["number"]]
        return {**out, "type": "ball_not_detected", "reason": f"pocket {label} is not on a single-zero wheel"}
    return out


def check_wheel_event(ev: Mapping[str, Any]) -> WheelEvent | None:
    """A clean copy of `ev` in the table's form (only the known keys), None for a link event the table
    does not use, or DrrError naming the bad field."""
    if not isinstance(ev, Mapping):
        raise DrrError(f"a wheel event must be a mapping, not {type(ev).__name__}")
    link = _from_link(ev)
    if link is None:
        return None
    ev = link
    kind = ev.get("type")
    if kind not in WHEEL_TYPES:
        raise DrrError(f"unknown wheel event type {kind!r}; known: {', '.join(WHEEL_TYPES)}")
    out: dict[str, Any] = {"type": kind}
    game = ev.get("game")
    if game is not None and (isinstance(game, bool) or not isinstance(game, int) or game < 0):
        raise DrrError(f"wheel event {kind}: game {game!r} is not a game number")
    out["game"] = game
    if ev.get("time") is not None:
        out["time"] = str(ev["time"])
    if kind == "result":
        number = ev.get("number")
        if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 36:
            raise DrrError(f"wheel result {number!r} is not a number 0-36 (single-zero wheel)")
        out["number"] = number
    if "warnings" in ev:
        warnings = ev["warnings"]
        if not isinstance(warnings, list | tuple) or not all(isinstance(w, str) for w in warnings):
            raise DrrError(f"wheel event {kind}: warnings {warnings!r} must be a list of names")
        out["warnings"] = list(warnings)
    if kind == "rotor":
        direction = ev.get("direction")
        if direction not in ("cw", "ccw"):
            raise DrrError(f"wheel rotor direction {direction!r} must be 'cw' or 'ccw'")
        out["direction"] = direction
        out["rpm"] = str(ev.get("rpm", ""))
    for key in ("reason", "advice", "state", "detail") if kind == "link" else ("reason", "advice"):
        if ev.get(key) is not None:
            out[key] = str(ev[key])
    if isinstance(ev.get("previous"), int):
        out["previous"] = ev["previous"]
    return out  # type: ignore[return-value]
