"""The table service's wheel events: each wheel message journaled as it is, then acted on.

A mixin of engine.table.service.TableService on engine.table.service_core.ServiceCore (the write path,
the guards, the shared steps); split from the service by concern, behaviour unchanged."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from engine.rng import HealthFailure
from engine.round import (
    Phase,
    ResultBeforeClose,
)
from engine.store.records import Entry
from engine.table import wheel_drive
from engine.table.gate import Play
from engine.table.holds import WHAT
from engine.table.service_core import (
    MISMATCH_HOLD,
    ROTOR_JOURNAL_S,
    WHEEL_USER,
    ServiceCore,
    Step,
    _seconds,
)
from engine.table.wheel import DOUBTFUL, check_wheel_event
from engine.table_events import (
    AutoConfirmDue,
    Irregularity,
)
from engine.wheel_events import (
    WheelBallNotDetected,
    WheelClosed,
    WheelEvent,
    WheelLaunched,
    WheelLaunchFailed,
    WheelMissSpin,
    WheelNoMoreBets,
    WheelResult,
    WheelRotor,
    WheelStarted,
    WheelWarning,
    with_verdict,
)

log = logging.getLogger("drr.table")  # the service's logger (engine.table.service_core)


class WheelCommands(ServiceCore):
    """The table service's wheel events (see engine.table.service)."""

    async def wheel_event(self, ev: WheelEvent | Mapping[str, Any]) -> list[Entry]:
        """A message from the wheel (an engine.wheel_events event, or its mapping form): journaled
        as it is (`ev.type`, `ev.to_json()`), then acted on."""
        event = check_wheel_event(ev)
        async with self._lock:
            self._need_started()
            if isinstance(event, WheelRotor):
                self._direction = event.direction
                if event.rpm:  # a stopped rotor (launching, idle) says nothing of the game's speed
                    self._rpm = event.rpm
                # Throttled into the journal for surveillance's rotor speed and direction trend.
                now = self.clock()
                last = self._rotor_logged
                if last is not None and now - last[0] < ROTOR_JOURNAL_S and last[1] == self._direction:
                    return []
                self._rotor_logged = (now, self._direction)
                round_id = self.state.round_id if self.state.in_play else None
                return await self._run(WHEEL_USER, [(event, round_id)])
            if isinstance(event, WheelStarted):
                self._wheel_game_at_open = event.game
            elif isinstance(event, WheelLaunched | WheelNoMoreBets | WheelResult):
                self._wheel_game_at_open = None
            steps = self._other_spin(event) or self._wheel_events(event)
            self._in_flight.seen(event)
            return await self._run(WHEEL_USER, steps)

    def _other_spin(self, ev: WheelEvent) -> list[Step]:
        """Another spin's message (a later one while the round waits, or the one under way as bets
        opened): journaled as it is, without the round's id, and not acted on (engine.table.wheel_drive)."""
        note = wheel_drive.other_spin(self.state, ev, self._before_open)
        if note is None:
            return []
        if isinstance(ev, WheelResult):
            ev = with_verdict(ev, accepted=False, note=note, direction=self._direction, rpm=self._rpm)
        log.info("wheel %s ignored for round %s: %s", ev.kind, self.state.round_id, note)
        return [(ev, None)]

    def _wheel_events(self, ev: WheelEvent) -> list[Step]:
        st = self.state
        s = st.round if st.in_play else None
        rid = s.round_id if s is not None else None
        game = ev.game
        out: list[Step] = []

        def irregular(what: str, reason: str, number: int | None = None) -> None:
            out.append((Irregularity(what, reason, game, number), rid))

        if isinstance(ev, WheelResult):
            number = ev.number
            accepted = False
            note: str | None = None
            if s is None:
                note = "no round in play"
            elif s.phase is Phase.OPEN:
                event = ResultBeforeClose(number, f"wheel result {number} (game {game}) before no more bets")
                out.append((event, rid))
            elif s.phase is not Phase.CLOSED:
                note = f"round already {s.phase.value}"
            elif game is not None and game in st.no_spin_games:
                note = f"game {game} was called a no-spin"
            elif st.hold is not None:
                irregular(
                    "doubtful_result",
                    f"result {number} while the round is on hold ({WHAT.get(st.hold.kind, st.hold.kind)})",
                    number,
                )
            elif (why := wheel_drive.unlaunched(st, game)) is not None:
                irregular("result_not_launched", f"result {number}: {why}", number)
            elif st.expected_game is not None and game is not None and game != st.expected_game:
                irregular(
                    "unexpected_game",
                    f"result {number} for game {game}, the spin is game {st.expected_game}",
                    number,
                )
            elif ev.number_line is not None and ev.number_line != number:
                # The bare number line and the status line disagree: which one is the ball's pocket
                # is unknown, so the round is held before anything can be confirmed or settled.
                irregular(MISMATCH_HOLD, f"number line {ev.number_line} vs status line {number}", number)
            elif ev.warnings:
                irregular("result_with_warnings", f"result {number} with {', '.join(ev.warnings)}", number)
            elif st.pending_result is not None:
                irregular("second_result", f"result {number} after {st.pending_result.number}", number)
            else:
                accepted = True
            journaled = with_verdict(
                ev, accepted=accepted, note=note, direction=self._direction, rpm=self._rpm
            )
            confirm = _seconds(self._settings().get("auto_confirm_seconds"), self.auto_confirm_seconds)
            if accepted and confirm:  # a clean result confirms itself unless disputed (0/None: off)
                out.append((AutoConfirmDue(number, game, confirm, self.clock() + confirm), rid))
            return [(journaled, rid), *out]
        out.insert(0, (ev, rid))
        if s is None:
            return out
        if (
            isinstance(ev, WheelWarning)
            and ev.is_mismatch
            and s.phase in (Phase.CLOSED, Phase.RESULT)
            and (st.hold is None or st.hold.kind != MISMATCH_HOLD)
            and not (game is not None and game in st.no_spin_games)
        ):
            # (A game already called a no-spin: its doubt was dealt with; holding again would journal
            # a second irregularity and no-spin for the one fault, and order a second re-spin.)
            # A mismatch reported on its own (the result came without its number line, or before
            # this warning): the result is doubtful whatever was accepted; hold before settling.
            irregular(MISMATCH_HOLD, ev.advice or "number line vs status line")
        elif isinstance(ev, WheelNoMoreBets) and s.phase is Phase.OPEN:
            if not self._may(Play.DRAW):
                return out  # tilted (engine.table.gate): the wheel's message is kept, no draw is made
            try:
                out.append(self._close_event(s))  # the wheel's state 4 closes bets when the croupier has not
            except HealthFailure as failure:  # the wheel's message is kept; bets stay open, no draw
                out += self._rng_fault_steps(failure, rid)
        elif ev.type in DOUBTFUL and (
            s.phase is Phase.CLOSED
            or (s.phase is Phase.OPEN and isinstance(ev, WheelMissSpin | WheelLaunchFailed))
        ):
            # In state 3 (bets still open) only a miss-spin or failed launch touches this spin.
            why = (
                "the wheel stopped (state 6) during the spin"
                if isinstance(ev, WheelClosed)
                else ev.kind.replace("_", " ")
            )
            reason = ev.reason if isinstance(ev, WheelBallNotDetected) else None
            irregular(ev.kind, reason or why)
        return out
