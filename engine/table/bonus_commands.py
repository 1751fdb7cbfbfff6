"""The table service's bonus-game commands: presets, start, pick, cash out, the timers' tick.

A mixin of engine.table.service.TableService on engine.table.service_core.ServiceCore (the write path,
the guards, the shared steps); split from the service by concern, behaviour unchanged."""

from __future__ import annotations

from fractions import Fraction

from engine.auth import User, require
from engine.bonus_game import PRESETS, BonusEvent, BonusGame, GameEnded, Preset
from engine.errors import IllegalTransition
from engine.rng import HealthFailure
from engine.round import (
    BonusOutcome,
    BonusStarted,
    Phase,
    RoundState,
    apply,
    bonus_needed,
)
from engine.store.records import Entry
from engine.table.gate import Play
from engine.table.service_core import (
    TIMER_USER,
    ServiceCore,
    Step,
)
from engine.table_events import (
    PlayerBonusEvent,
    PresetSet,
)


class BonusCommands(ServiceCore):
    """The table service's bonus-game commands (see engine.table.service)."""

    async def start_bonus_games(self, user: User) -> list[Entry]:
        """With winning wagers only, the croupier has entered the chips covering the result: the
        bonus games of those who won on the Bonus Number with an inside wager start now (in a round
        entered during betting they start with the result)."""
        require(user, "settle_round")
        async with self._lock:
            s = self._round(Phase.RESULT, doing="start the bonus games")
            self._no_hold("start the bonus games")
            players = bonus_needed(s)
            if not players:
                raise IllegalTransition("no bonus game to start: nobody won on the Bonus Number")
            started = BonusStarted(players)
            apply(s, started)
            return await self._run(user.name, [(started, s.round_id)])

    async def set_bonus_preset(self, user: User, player: str, preset: Preset) -> list[Entry]:
        """What the timer does in rounds 3-6 of `player`'s next bonus game: "cash_out" or "random"."""
        require(user, "bonus_pick")
        if preset not in PRESETS:
            raise IllegalTransition(f"timer preset must be 'cash_out' or 'random', not {preset!r}")
        async with self._lock:
            if player in self.state.games:
                raise IllegalTransition(f"the bonus game of {player} has started; its preset is fixed")
            return await self._run(user.name, [(PresetSet(player, preset), self.state.round_id)])

    async def bonus_start(self, user: User, player: str) -> list[Entry]:
        require(user, "bonus_pick")
        async with self._lock:
            s = self._round(Phase.BONUS, doing="start a bonus game")
            if player not in s.bonus_players:
                raise IllegalTransition(f"{player} has no bonus game in this round")
            if player in self.state.games:
                raise IllegalTransition(f"the bonus game of {player} has already started")
            self._play(Play.BONUS)
            preset = self.state.presets.get(player, "cash_out")
            try:
                game = BonusGame.start(
                    s.rules, self.rng, player=player, preset=preset, clock=self.clock,
                    seal=self.state.box_seal(player),
                )  # fmt: skip
            except HealthFailure as failure:
                await self._journal_rng_fault(user.name, failure, s.round_id)
                raise
            return await self._run(user.name, self._bonus_events(s, player, list(game.events)))

    async def bonus_pick(self, user: User, player: str, box: int) -> list[Entry]:
        require(user, "bonus_pick")
        async with self._lock:
            s, game = self._scratch(player)
            self._play(Play.BONUS)
            try:
                picked = game.pick(box)  # the next round's boxes are drawn here
            except HealthFailure as failure:
                await self._journal_rng_fault(user.name, failure, s.round_id)
                raise
            return await self._run(user.name, self._bonus_events(s, player, picked))

    async def bonus_cash_out(self, user: User, player: str) -> list[Entry]:
        require(user, "cash_out")
        async with self._lock:
            s, game = self._scratch(player)
            return await self._run(user.name, self._bonus_events(s, player, game.cash_out()))

    async def tick_bonus_games(self) -> list[Entry]:
        """Apply the timeout rule to every game whose countdown ran out (the timers call this)."""
        async with self._lock:
            if self.state.round is None or self.state.round.phase is not Phase.BONUS:
                return []
            if not self._may(Play.BONUS):
                return []  # tilted: no box is drawn; a pit boss voids the round or clears the tilt
            events: list[Step] = []
            s = self.state.round
            for player in list(self.state.games):
                scratch = self._scratch(player)[1]
                try:
                    events += self._bonus_events(s, player, scratch.tick())
                except HealthFailure as failure:  # a timer cannot be refused: journal it, go on
                    events += self._rng_fault_steps(failure, s.round_id)
            return await self._run(TIMER_USER, events)

    def _scratch(self, player: str) -> tuple[RoundState, BonusGame]:
        """A copy of `player`'s game to decide the next step on (the real one only folds journaled facts)."""
        s = self._round(Phase.BONUS, doing="play a bonus game")
        game = self.state.games.get(player)
        if game is None:
            raise IllegalTransition(f"{player} has no bonus game running (start it first)")
        copy = BonusGame.replay(
            game.events, rules=s.rules, rng=self.rng, clock=self.clock, seal=self.state.box_seal(player)
        )
        copy.deadline = game.deadline  # a restart's fresh countdown is not among the game's events
        return s, copy

    def _bonus_events(self, s: RoundState, player: str, events: list[BonusEvent]) -> list[Step]:
        out: list[Step] = [(PlayerBonusEvent(player, e), s.round_id) for e in events]
        for e in events:
            if isinstance(e, GameEnded):
                outcome = BonusOutcome(player, Fraction(e.outcome))
                apply(s, outcome)
                out.append((outcome, s.round_id))
        return out
