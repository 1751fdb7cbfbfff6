"""From an `engine.bonus_game.BonusGame` to the screens: the `BonusView` the bonus panel draws.

The game itself (box contents, what a pick means, timeouts) lives in the engine and is played by
the table service; this module only translates a game's state (and the preset chosen before its
start) into the view model. Boxes are numbered 1..5 as in the engine.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from engine.bonus_game import BonusGame
from engine.rules import CASH_OUT_FROM_ROUND, RulesSubmission
from gui.view_model import BonusStatus, BonusView, BoxState, BoxView, TimeoutPreset

_END_STATUS = {"x": BonusStatus.LOST, "cash_out": BonusStatus.CASHED_OUT, "completed": BonusStatus.COMPLETED}
_HIDDEN = (BoxView(),) * 5


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
