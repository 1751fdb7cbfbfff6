"""The bonus game (§ 617b.12(h)-(k)): every path, the timer rules, and replay from events."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from engine.bonus_game import (
    BonusGame,
    BoxesPlaced,
    BoxPicked,
    CashedOut,
    GameEnded,
    GameStarted,
    Preset,
    TimerExpired,
    X,
    event_from_json,
    events_from_json,
    events_to_json,
)
from engine.errors import IllegalTransition
from engine.rng import SeededRng
from engine.rules import MULTIPLIER_BOXES, load_default_rules

RULES = load_default_rules()
T = RULES.bonus_timer_seconds


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def new_game(seed: int = 1, preset: Preset = "cash_out") -> tuple[BonusGame, FakeClock]:
    clock = FakeClock()
    return BonusGame.start(RULES, SeededRng(seed), player="anna", preset=preset, clock=clock), clock


def hidden(game: BonusGame) -> tuple[object, ...]:
    """The current round's boxes, as a test (not the player) may see them in the events."""
    placed = [e for e in game.events if isinstance(e, BoxesPlaced)]
    assert placed[-1].round == game.round
    return placed[-1].boxes


def box_with(game: BonusGame, multiplier: bool) -> int:
    boxes = hidden(game)
    return next(i + 1 for i, b in enumerate(boxes) if (b != X) == multiplier)


def play_multipliers(game: BonusGame, rounds: int) -> list[Fraction]:
    """Pick a multiplier in each of the next `rounds` rounds; return what was picked."""
    got = []
    for _ in range(rounds):
        box = box_with(game, True)
        value = hidden(game)[box - 1]
        game.pick(box)
        assert isinstance(value, Fraction)
        got.append(value)
    return got


def test_start_places_five_multipliers_in_round_1() -> None:
    game, _ = new_game()
    assert (game.round, game.running_sum, game.outcome, game.boxes) == (1, 0, None, None)
    assert all(b != X and b in RULES.bonus_rounds[0] for b in hidden(game))
    assert game.deadline == 1_000.0 + T
    assert not game.can_cash_out


@pytest.mark.parametrize("seed", range(5))
def test_each_round_has_the_regulation_mix_of_boxes(seed: int) -> None:
    game, _ = new_game(seed)
    play_multipliers(game, 6)
    placed = [e for e in game.events if isinstance(e, BoxesPlaced)]
    assert [e.round for e in placed] == [1, 2, 3, 4, 5, 6]
    for e in placed:
        multipliers = [b for b in e.boxes if b != X]
        assert len(multipliers) == MULTIPLIER_BOXES[e.round - 1]
        assert all(m in RULES.bonus_rounds[e.round - 1] for m in multipliers)


@pytest.mark.parametrize("x_round", [2, 3, 4, 5, 6])
def test_x_in_any_round_pays_the_round_1_multiplier(x_round: int) -> None:
    game, _ = new_game(x_round)
    picked = play_multipliers(game, x_round - 1)
    new = game.pick(box_with(game, False))
    assert game.finished and game.end_reason == "x"
    assert game.outcome == picked[0] == game.round1_multiplier
    assert game.running_sum == sum(picked)
    assert isinstance(new[-1], GameEnded) and new[-1].outcome == picked[0]
    assert game.boxes == hidden(game)  # all five revealed after the pick
    with pytest.raises(IllegalTransition, match="over"):
        game.pick(1)


@pytest.mark.parametrize("cash_round", [3, 4, 5, 6])
def test_cash_out_from_round_3_pays_the_sum(cash_round: int) -> None:
    game, _ = new_game(cash_round)
    picked = play_multipliers(game, cash_round - 1)
    assert game.can_cash_out
    new = game.cash_out()
    assert [type(e) for e in new] == [CashedOut, GameEnded]
    assert game.outcome == sum(picked) and game.end_reason == "cash_out"


@pytest.mark.parametrize("round_", [1, 2])
def test_cash_out_refused_in_rounds_1_and_2(round_: int) -> None:
    game, _ = new_game()
    play_multipliers(game, round_ - 1)
    before = game.events
    with pytest.raises(IllegalTransition, match=r"from round 3 on \(§ 617b\.12\(j\)\)"):
        game.cash_out()
    assert game.events == before and not game.finished


def test_surviving_round_6_pays_the_sum() -> None:
    game, _ = new_game(42)
    picked = play_multipliers(game, 6)
    assert game.finished and game.end_reason == "completed"
    assert game.outcome == sum(picked) <= RULES.max_bonus


@pytest.mark.parametrize("preset", ["cash_out", "random"])
@pytest.mark.parametrize("round_", [1, 2, 3, 4, 5, 6])
def test_timeout_in_every_round_with_both_presets(round_: int, preset: Preset) -> None:
    game, clock = new_game(round_ * 10, preset)
    picked = play_multipliers(game, round_ - 1)
    clock.now = game.deadline - 0.5  # type: ignore[operator]
    assert game.tick() == []
    clock.now += 0.5
    with pytest.raises(IllegalTransition, match="ran out"):
        game.pick(1)
    new = game.tick()
    assert isinstance(new[0], TimerExpired) and new[0].round == round_
    if round_ <= 2 or preset == "random":
        assert isinstance(new[1], BoxPicked) and new[1].by == "timeout"
        assert game.picks[-1].by == "timeout" and game.picks[-1].round == round_
    else:
        assert isinstance(new[1], CashedOut) and new[1].by == "timeout"
        assert game.outcome == sum(picked)
    assert BonusGame.replay(game.events, rules=RULES).outcome == game.outcome


def test_timeout_random_pick_is_uniform_over_boxes() -> None:
    counts: Counter[int] = Counter()
    for seed in range(2500):
        game, clock = new_game(seed)
        clock.now += T
        new = game.tick()
        assert isinstance(new[1], BoxPicked)
        counts[new[1].box] += 1
    assert chisquare([counts[b] for b in range(1, 6)]).pvalue > 0.01


def test_box_contents_are_weighted_and_x_placed_uniformly() -> None:
    rng = SeededRng(99)
    values: Counter[Fraction] = Counter()
    x_pos: Counter[int] = Counter()
    n = 3000
    for _ in range(n):
        game = BonusGame.start(RULES, rng, player="p", clock=FakeClock())
        values.update(hidden(game))  # type: ignore[arg-type]
        game.pick(1)
        x_pos[hidden(game).index(X)] += 1  # round 2 has exactly one X
    table = RULES.bonus_rounds[0]
    total = sum(table.values())
    assert chisquare([values[m] for m in table], [5 * n * w / total for w in table.values()]).pvalue > 0.01
    assert chisquare([x_pos[i] for i in range(5)]).pvalue > 0.01


def test_bad_commands_change_nothing() -> None:
    game, _ = new_game()
    before = game.events
    for bad in (0, 6, True, "2"):
        with pytest.raises(IllegalTransition, match="box must be 1 to 5"):
            game.pick(bad)  # type: ignore[arg-type]
    assert game.events == before
    with pytest.raises(IllegalTransition, match="preset"):
        BonusGame.start(RULES, SeededRng(1), player="p", preset="wait")  # type: ignore[arg-type]


# --- replay --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), actions=st.lists(st.sampled_from(["pick", "cash", "wait"]), max_size=12))
def test_replay_from_json_rebuilds_the_same_game(seed: int, actions: list[str]) -> None:
    game, clock = new_game(seed, "random" if seed % 2 else "cash_out")
    rng = SeededRng(seed + 1)
    for action in actions:
        if game.finished:
            break
        if action == "pick":
            game.pick(rng.randbelow(5) + 1)
        elif action == "cash" and game.can_cash_out:
            game.cash_out()
        elif action == "wait":
            clock.now += T
            game.tick()
    wire = json.loads(json.dumps(events_to_json(game.events)))
    again = BonusGame.replay(events_from_json(wire))
    for attr in (
        "player",
        "preset",
        "round",
        "running_sum",
        "round1_multiplier",
        "picks",
        "deadline",
        "outcome",
    ):
        assert getattr(again, attr) == getattr(game, attr), attr
    assert again.boxes == game.boxes
    assert again.events == game.events
    if game.finished:  # § 617b.12(k),(l): never below the round-1 pick, never above 4,999 to 1
        assert game.round1_multiplier is not None and game.outcome is not None
        assert 29 <= game.round1_multiplier <= game.outcome <= min(RULES.max_bonus, Fraction(4999))


def test_replayed_game_goes_on_with_rules_and_rng() -> None:
    game, clock = new_game(5)
    play_multipliers(game, 2)
    resumed = BonusGame.replay(game.events, rules=RULES, rng=SeededRng(8), clock=clock)
    play_multipliers(resumed, 1)
    assert resumed.round == 4
    frozen = BonusGame.replay(game.events, clock=clock)
    frozen.pick(box_with(frozen, True))
    assert frozen.needs_boxes
    with pytest.raises(IllegalTransition, match="without its Rules Submission"):
        frozen.place_boxes()


def _started() -> list[object]:
    return [
        GameStarted("p", "cash_out", 20),
        BoxesPlaced(1, (Fraction(29),) * 5, 0.0, 20.0),
    ]


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        ([BoxesPlaced(2, (Fraction(20),) * 5, 0.0, 20.0)], "already placed"),
        (
            [BoxPicked(1, 1, "player", 1.0), BoxesPlaced(2, (Fraction(20),) * 5, 1.0, 21.0)],
            "4 multiplier boxes",
        ),
        ([BoxPicked(2, 1, "player", 1.0)], "round 1, not 2"),
        ([BoxPicked(1, 1, "timeout", 1.0)], "without the timer"),
        ([CashedOut(1, "player", 1.0)], "no cash-out before round 3"),
        ([TimerExpired(1, 5.0)], "before the deadline"),
        ([BoxPicked(1, 1, "player", 1.0), GameEnded(Fraction(29), "x")], "not decided"),
        ([GameStarted("q", "cash_out", 20)], "already started"),
    ],
)
def test_impossible_event_sequences_are_refused(tail: list[object], message: str) -> None:
    game = BonusGame.replay(_started())  # type: ignore[arg-type]
    with pytest.raises(IllegalTransition, match=message):
        for e in tail:
            game.apply(e)  # type: ignore[arg-type]


def test_tampered_outcome_is_refused_on_replay() -> None:
    game, _ = new_game(3)
    play_multipliers(game, 2)
    game.cash_out()
    forged = [*game.events[:-1], GameEnded(Fraction(4999), "cash_out")]
    with pytest.raises(IllegalTransition, match="but the picks give"):
        BonusGame.replay(forged)
    with pytest.raises(IllegalTransition, match="different Rules Submission"):
        BonusGame.replay([GameStarted("p", "cash_out", 20, "0" * 64)], rules=RULES)


def test_event_json_errors() -> None:
    with pytest.raises(ValueError, match="unknown bonus-game event"):
        event_from_json({"type": "bonus.nope"})
    with pytest.raises(ValueError, match=r"malformed bonus\.box_picked"):
        event_from_json({"type": "bonus.box_picked", "round": 1})


# --- against the worked example's bonus values (docs/worked-examples.md) ---------------------

EXAMPLE_TABLES = tuple(
    {Fraction(k): w for k, w in t.items()}
    for t in (
        {29: 60, 49: 30, 99: 10},
        {20: 50, 50: 40, 100: 10},
        {50: 60, 100: 30, 200: 10},
        {100: 70, 250: 25, 500: 5},
        {200: 70, 500: 25, 1000: 5},
        {500: 60, 1000: 30, 2000: 10},
    )
)


def test_simulated_values_match_the_worked_example() -> None:
    """cash_out_at_3 is worth exactly 74 and a game survives rounds 2-6 with probability 0.01536."""
    from dataclasses import replace

    rules = replace(RULES, bonus_rounds=EXAMPLE_TABLES)
    rng = SeededRng(617)
    n = 4000
    cash_total = Fraction(0)
    survived = 0
    for _ in range(n):
        game = BonusGame.start(rules, rng, player="p", clock=FakeClock())
        while not game.finished:
            if game.round == 3:
                game.cash_out()
            else:
                game.pick(rng.randbelow(5) + 1)
        cash_total += game.outcome  # type: ignore[operator]
        game = BonusGame.start(rules, rng, player="p", clock=FakeClock())
        while not game.finished:
            game.pick(rng.randbelow(5) + 1)
        survived += game.end_reason == "completed"
    mean = cash_total / n
    # The outcome's sd is about 34 (var 441 from round 1 + 736 from round 2): 2 is 3.7 standard errors.
    assert abs(mean - 74) < 2, float(mean)
    p = Fraction(4 * 3 * 2 * 2 * 1, 5**5)
    assert p == Fraction(1536, 100000)
    sd = (float(p * (1 - p)) / n) ** 0.5
    assert abs(survived / n - float(p)) < 4.5 * sd
