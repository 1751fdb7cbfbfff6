"""Bridge from an `engine.bonus_game.BonusGame` to the screens: commands in, a `BonusView` out.

The game itself (box contents, what a pick means, timeouts) lives in the engine; this
module only holds the preset chosen before the start and translates the game's state into
the view model the bonus panel draws. Boxes are numbered 1..5 as in the engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Protocol

from engine.bonus_game import BonusEvent, BonusGame
from engine.errors import IllegalTransition
from engine.rng import Rng
from engine.rules import CASH_OUT_FROM_ROUND, RulesSubmission
from gui.view_model import BonusStatus, BonusView, BoxState, BoxView, TimeoutPreset

_END_STATUS = {"x": BonusStatus.LOST, "cash_out": BonusStatus.CASHED_OUT, "completed": BonusStatus.COMPLETED}
_HIDDEN = (BoxView(),) * 5


class BonusBridge(Protocol):
    def view(self) -> BonusView: ...
    def start(self) -> list[BonusEvent]: ...
    def pick(self, box: int) -> list[BonusEvent]: ...
    def cash_out(self) -> list[BonusEvent]: ...
    def tick(self) -> list[BonusEvent]: ...
    def set_preset(self, preset: TimeoutPreset) -> None: ...


class EngineBonus:
    """One player's game on the engine. Commands raise ValueError with the engine's reason."""

    def __init__(
        self, player: str, rules: RulesSubmission, rng: Rng, clock: Callable[[], float] = time.time
    ) -> None:
        self.player = player
        self._rules = rules
        self._rng = rng
        self._clock = clock
        self._preset = TimeoutPreset.CASH_OUT
        self.game: BonusGame | None = None

    def set_preset(self, preset: TimeoutPreset) -> None:
        if self.game is not None:
            raise ValueError("the timeout preset is set before the bonus game starts (§ 617b.12(i)(2))")
        self._preset = preset

    def _do(self, step: Callable[[], list[BonusEvent]]) -> list[BonusEvent]:
        try:
            return step()
        except IllegalTransition as exc:
            raise ValueError(exc.message) from None

    def start(self) -> list[BonusEvent]:
        if self.game is not None:
            raise ValueError(f"{self.player}'s bonus game has already started")
        try:
            preset: Any = self._preset.value
            self.game = BonusGame.start(
                self._rules, self._rng, player=self.player, preset=preset, clock=self._clock
            )
        except IllegalTransition as exc:
            raise ValueError(exc.message) from None
        return list(self.game.events)

    def _started(self) -> BonusGame:
        if self.game is None:
            raise ValueError(f"{self.player}'s bonus game has not started")
        return self.game

    def pick(self, box: int) -> list[BonusEvent]:
        game = self._started()
        return self._do(lambda: game.pick(box))

    def cash_out(self) -> list[BonusEvent]:
        return self._do(self._started().cash_out)

    def tick(self) -> list[BonusEvent]:
        return [] if self.game is None else self._do(self.game.tick)

    def view(self) -> BonusView:
        return bonus_view(self.player, self.game, self._preset, self._rules)


def bonus_view(
    player: str, game: BonusGame | None, preset: TimeoutPreset, rules: RulesSubmission
) -> BonusView:
    """What the bonus panel draws for `player`'s game (None: not started, the preset still open)."""

    def view(status: BonusStatus, rnd: int, boxes: tuple[BoxView, ...], **extra: Any) -> BonusView:
        return BonusView(
            player=player,
            status=status,
            round=rnd,
            boxes=boxes,
            timer_seconds=rules.bonus_timer_seconds,
            cash_out_from_round=CASH_OUT_FROM_ROUND,
            **extra,
        )

    if game is None:
        return view(BonusStatus.SETUP, 1, _HIDDEN, picks=(), preset=preset)
    picks = tuple(p.content for p in game.picks if isinstance(p.content, Fraction))
    revealed: tuple[BoxView, ...] = ()
    if game.boxes is not None and game.picks:
        picked = game.picks[-1].box
        revealed = tuple(_box(c, i + 1 == picked) for i, c in enumerate(game.boxes))
    played_preset = TimeoutPreset(game.preset)
    if game.finished:
        assert game.end_reason is not None
        last_pick_round = game.picks[-1].round if game.picks else 0
        # An X or the sixth pick ends the game on the round just revealed; a cash-out ends it
        # on a round whose boxes stay closed, after the previous round's reveal.
        shows_last = game.end_reason != "cash_out" and last_pick_round == game.round
        return view(
            _END_STATUS[game.end_reason],
            game.round,
            revealed if shows_last else _HIDDEN,
            picks=picks,
            previous=() if shows_last else revealed,
            preset=played_preset,
            final_odds=game.outcome,
        )
    return view(
        BonusStatus.PLAYING,
        game.round,
        _HIDDEN,
        picks=picks,
        previous=revealed,
        preset=played_preset,
        seconds_left=game.time_left(),
        deadline=game.deadline if game.time_left() is not None else None,
    )


def _box(content: Fraction | str, picked: bool) -> BoxView:
    if isinstance(content, str):
        return BoxView(BoxState.X, None, picked)
    return BoxView(BoxState.MULTIPLIER, content, picked)


def make_bonus_bridge(player: str, rules: RulesSubmission, rng: Rng) -> BonusBridge:
    return EngineBonus(player, rules, rng)
