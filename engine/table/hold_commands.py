"""The table service's holds and remedies: dispute, no-spin, void, correction, a pit boss's
resolution or the sensor's number (engine.table.holds says which remedy a hold allows).

A mixin of engine.table.service.TableService on engine.table.service_core.ServiceCore (the write path,
the guards, the shared steps); split from the service by concern, behaviour unchanged."""

from __future__ import annotations

from dataclasses import replace

from engine.auth import User, require
from engine.errors import DrrError, IllegalTransition
from engine.round import (
    NoSpin,
    Phase,
    ResultCorrected,
    ResultRecorded,
    RoundVoided,
    apply,
)
from engine.store.records import Entry
from engine.table import gate_actions, wheel_drive
from engine.table.holds import ACCEPT_SENSOR, hold_remedies
from engine.table.service_core import (
    MISMATCH_HOLD,
    ServiceCore,
)
from engine.table_events import (
    Irregularity,
    IrregularityResolved,
)


class HoldCommands(ServiceCore):
    """The table service's holds and remedies (see engine.table.service)."""

    async def dispute_result(self, user: User, reason: str) -> list[Entry]:
        """The croupier disputes the wheel's result before it is confirmed: it is not confirmed
        automatically, the round is on hold (a no-spin, or a pit boss's manual result or void ends it)."""
        require(user, "confirm_result")
        async with self._lock:
            s = self._round(Phase.CLOSED, doing="dispute a result")
            pending = self.state.pending_result
            if pending is None:
                raise IllegalTransition("there is no wheel result to dispute")
            self._no_hold("dispute the result")
            if not reason.strip():
                raise IllegalTransition("a dispute needs a reason (what the croupier saw)")
            why = f"the croupier disputes the wheel's {pending.number}: {reason.strip()}"
            hold = Irregularity(wheel_drive.DISPUTED, why, pending.game, pending.number)
            return await self._run(user.name, [(hold, s.round_id)])

    def hold_confirmation(self, user: User) -> bool:
        """The croupier opens a dialog about the wheel's pending result (a dispute, a manual result):
        its automatic confirmation stops at once, before anything is awaited, so the number cannot be
        confirmed behind the dialog (issue 25 point 1). Nothing is journaled (a look is not a fact);
        `resume_confirmation` after the dialog journals a fresh countdown if the result still waits.
        Returns whether a confirmation was stopped."""
        require(user, "confirm_result")
        self._need_started()
        pending = self.state.pending_result
        if pending is None:
            return False
        self._review = pending.seq
        self._round_timer.cancel()
        self._round_timer.schedule()  # re-read: the betting time never runs here, so nothing is due
        return True

    async def resume_confirmation(self, user: User) -> list[Entry]:
        """The croupier's dialog closed: a result still waiting, undisputed, gets the whole countdown
        again (`table.auto_confirm_due` with a fresh deadline), as after a restart; a dispute or a
        recorded result in between leaves nothing to resume."""
        require(user, "confirm_result")
        async with self._lock:
            self._need_started()
            reviewed, self._review = self._review, None
            confirm, pending = self.state.drive.confirm, self.state.pending_result
            if reviewed is None or confirm is None or pending is None or pending.seq != reviewed:
                self._schedule_timers()
                return []
            if self.state.hold is not None or self.state.manual_entry is not None:
                self._schedule_timers()
                return []
            fresh = replace(confirm, deadline=self.clock() + confirm.seconds)
            return await self._run(user.name, [(fresh, self.state.round_id)])

    async def correct_result(self, user: User, number: int, reason: str) -> list[Entry]:
        """A pit boss corrects a misread result before any bonus game or settlement.

        A bonus game starts with the confirmation that makes it due (`round.bonus_started` in the same
        transaction): once a player has seen the boxes, a result under it can no longer change, so the
        remedy for a wrong result then is a void (every wager returned), never a correction."""
        require(user, "correct_result")
        async with self._lock:
            if self.state.round is not None and self.state.round.phase is Phase.BONUS:
                raise IllegalTransition(
                    "cannot correct the result: a bonus game was started on it; "
                    "if the result was wrong, void the round (every wager is returned)"
                )
            s = self._round(Phase.RESULT, doing="correct the result")
            assert s.result is not None
            event = ResultCorrected(s.result, number, reason.strip(), by=user.name)
            return await self._run(user.name, self._result_events(s, event))

    async def no_spin(self, user: User, reason: str) -> list[Entry]:
        """The spin does not count: same wagers, same draw, the ball is spun again; resolves a hold."""
        require(user, "no_spin")
        async with self._lock:
            s = self._round(Phase.CLOSED, Phase.RESULT, doing="call a no-spin")
            st = self.state
            # The wheel game this no-spin cancels: its late result must not count for the re-spin.
            game = st.pending_result.game if st.pending_result is not None else None
            if game is None and st.hold is not None and st.hold.kind not in ("gap", "restart"):
                game = st.hold.game  # (after a gap or restart the hold names the new counter, not the spin)
            if game is None:
                game = st.expected_game
            event = NoSpin(reason.strip(), game)
            apply(s, event)
            return await self._run(user.name, [(event, s.round_id)])

    async def void(self, user: User, reason: str) -> list[Entry]:
        """A pit boss cancels the round; every wager is returned."""
        require(user, "void_round")
        async with self._lock:
            s = self._round(Phase.OPEN, Phase.CLOSED, Phase.RESULT, Phase.BONUS, doing="void the round")
            event = RoundVoided(reason.strip())
            apply(s, event)
            self._stop_timers()
            return await self._run(user.name, [(event, s.round_id)])

    async def resolve_irregularity(self, user: User, reason: str) -> list[Entry]:
        """A pit boss acknowledges the irregularity on hold; the round goes on in its phase (a fresh
        wheel result, or a manual result, is then needed)."""
        require(user, "resolve_irregularity")
        async with self._lock:
            hold = self.state.hold
            if hold is None:
                raise IllegalTransition("there is no irregularity to resolve")
            if not reason.strip():
                raise IllegalTransition("resolving an irregularity needs a reason")
            if hold.kind == MISMATCH_HOLD:
                raise IllegalTransition(
                    f"the result is doubtful ({hold.reason}): enter the result manually, "
                    "call a no-spin or void the round"
                )
            resolved = IrregularityResolved(hold.kind, "acknowledged", reason.strip())
            return await self._run(user.name, [(resolved, self.state.round_id)])

    async def accept_sensor_result(self, user: User, reason: str) -> list[Entry]:
        """A pit boss, having looked at the wheel, records the number the sensor reported for this
        round's spin that put it on hold (engine.table.holds says which holds carry one); the hold is
        resolved and the result recorded in one transaction."""
        require(user, "resolve_irregularity")
        async with self._lock:
            s = self._round(Phase.CLOSED, doing="accept the sensor's number")
            hold = self.state.hold
            if hold is None:
                raise IllegalTransition("the round is not on hold: the croupier confirms the wheel's result")
            if not reason.strip():
                raise IllegalTransition("accepting the sensor's number needs a reason")
            remedies = hold_remedies(hold, s.phase, self.state.expected_game)
            if remedies.sensor_number is None:
                raise IllegalTransition(
                    f"cannot accept the sensor's number: {remedies.refused[ACCEPT_SENSOR]}"
                )
            resolved = IrregularityResolved(hold.kind, "sensor_number_accepted", reason.strip())
            event = ResultRecorded(
                remedies.sensor_number,
                "sensor",
                reason.strip(),
                game=hold.game if hold.game is not None else self.state.expected_game,
                direction=self._direction,
                confirmed_by=user.name,
            )
            return await self._run(user.name, [(resolved, s.round_id), *self._result_events(s, event)])

    async def clear_tilt(self, user: User, reason: str) -> list[Entry]:
        """A pit boss clears the RNG tilt (engine.table.gate): the generator runs its start-up test
        again first; cleared (table.tilt_cleared, with who and the test's result) only if it passes,
        else the fault is journaled again and the table stays tilted (DrrError)."""
        async with self._lock:
            self._need_started()
            steps, cleared = gate_actions.clear_steps(self.state, self.rng, user, reason)
            self._rng_fault_journaled = not cleared
            entries = await self._run(user.name, [(p, self.state.round_id) for p in steps])
            if not cleared:
                why = self.rng.failure.message if self.rng.failure is not None else "the test failed"
                raise DrrError(f"table {self.table} stays tilted: the generator failed its test again: {why}")
            return entries
