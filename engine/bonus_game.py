"""The bonus game of § 617b.12(h)-(k): pure, event-sourced and replayable.

One game per player who won on the Bonus Number with an inside wager; its outcome B
(straight-up "B to 1") pays all that player's winning inside wagers on that number (B/n).

Rules, as the regulation gives them:
- six rounds; at the start of round r the RNG fills five boxes: MULTIPLIER_BOXES[r-1]
  multipliers (5, 4, 3, 2, 2, 1), each drawn from round r's weighted table, the rest "X",
  shuffled (h);
- the player picks a box (1..5); a multiplier adds to the running sum; an "X" ends the game
  paying the round-1 multiplier (k); a multiplier in round 6 ends it paying the sum;
- from round 3 on the player may cash out instead of picking, for the sum so far (j);
- each round has a timer (`timer_seconds`); when it runs out in round 1 or 2 a random box
  is picked (i)(1); in later rounds the player's preset applies: "cash_out" (the default)
  or "random" (i)(2).

Public API (for the table service and the bonus-game screen):

    game = BonusGame.start(rules, rng, player="anna", preset="cash_out", clock=time.time)
    new_events = game.pick(3)        # or game.cash_out(), and game.tick() on a timer
    game.round, game.running_sum, game.round1_multiplier, game.boxes, game.deadline
    game.finished, game.outcome      # outcome: Fraction once finished, else None
    game.events                      # every step, each with to_json()/from_json()
    BonusGame.replay(events, rules=rules, rng=rng, clock=clock)   # rebuild (and go on)

Every random decision (box contents, a random pick on timeout) is recorded in an event, so
replaying needs no RNG. Commands return the events they appended; the caller journals them.
Illegal commands raise IllegalTransition and change nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from engine.codec import Coder, Record, fact, tuple_of
from engine.entry_types import EntryType
from engine.errors import IllegalTransition
from engine.exact import format_odds, parse_odds
from engine.rng import Rng, shuffle, weighted_choice
from engine.rules import (
    BONUS_ROUNDS,
    BOXES_PER_ROUND,
    CASH_OUT_FROM_ROUND,
    MULTIPLIER_BOXES,
    RANDOM_PICK_ROUNDS,
)

if TYPE_CHECKING:
    from engine.rules import RulesSubmission

X: Final = "X"
BoxContent = Fraction | Literal["X"]
Preset = Literal["cash_out", "random"]
PRESETS: Final = ("cash_out", "random")
Actor = Literal["player", "timeout"]
EndReason = Literal["x", "cash_out", "completed"]
Clock = Callable[[], float]


def _box_to_json(b: BoxContent) -> str:
    return X if b == X else format_odds(Fraction(b))


def _box_from_json(s: Any) -> BoxContent:
    return X if s == X else parse_odds(s)


_BOX: Final = Coder(_box_to_json, _box_from_json)


# --- events (engine.codec writes and reads them: {"type": ..., **fields}) ------------------------


@dataclass(frozen=True)
class GameStarted(Record, tagged=True):
    """A bonus game begins for `player` with the timer preset chosen at set-up (§ 617b.12(i)(2))."""

    type: ClassVar[EntryType] = EntryType.BONUS_STARTED
    player: str
    preset: Preset
    timer_seconds: int
    rules_sha256: str = ""
    rng: str = ""


@dataclass(frozen=True)
class BoxesPlaced(Record, tagged=True):
    """The RNG filled the five boxes of `round` (hidden from the player until the pick).

    Since issue 24 the contents are not journaled here: `commitment` (HMAC-SHA256 of the contents
    under a fresh 32-byte nonce, `box_commitment`) fixes them before the pick, `sealed` carries them
    encrypted to the table's own key (so the table resumes the game after a restart), and
    `BoxesRevealed` gives contents and nonce after the pick. `boxes` is empty then; an old journal's
    placement has the contents here and no commitment."""

    type: ClassVar[EntryType] = EntryType.BONUS_BOXES_PLACED
    round: int
    boxes: tuple[BoxContent, ...] = field(metadata=fact(coder=tuple_of(_BOX)))  # "X" or a multiplier
    placed_at: float
    deadline: float
    commitment: str | None = None
    sealed: str | None = None


@dataclass(frozen=True)
class BoxesRevealed(Record, tagged=True):
    """The contents of `round`'s boxes and the nonce of their commitment, journaled after the pick
    (or the cash-out) they were committed before: the fold checks them against the commitment."""

    type: ClassVar[EntryType] = EntryType.BONUS_BOXES_REVEALED
    round: int
    boxes: tuple[BoxContent, ...] = field(metadata=fact(coder=tuple_of(_BOX)))
    nonce: str


def box_commitment(round: int, boxes: Sequence[BoxContent], nonce: bytes) -> str:
    """The commitment to a round's contents: HMAC-SHA256 under the nonce over "round|b1,...,b5"."""
    text = f"{round}|{','.join(_box_to_json(b) for b in boxes)}"
    return hmac.new(nonce, text.encode(), hashlib.sha256).hexdigest()


def box_key(mac_key: bytes) -> bytes:
    """The table's own key for its bonus boxes' seal, derived from its MAC key (engine.store.keys), so
    a reader of the journal or the floor's copy cannot open it."""
    import hmac

    return hmac.digest(mac_key, b"drr bonus boxes", "sha256")


class BoxSeal:
    """The contents of placed boxes sealed to the table's own key (AES-256-GCM, the context of the
    table, round and player as associated data): only the table that placed them opens them again."""

    def __init__(self, key: bytes, context: str, *, older: Sequence[bytes] = ()) -> None:
        # `older`: the seal keys of the table's retired keys (a rotation with a bonus game open left
        # its boxes sealed under the key before): they open, never seal
        self._key, self.context, self._older = key, context, tuple(older)

    def seal(self, round: int, boxes: Sequence[BoxContent], nonce: bytes) -> str:
        import json
        import os

        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        iv = os.urandom(12)
        body = json.dumps({"boxes": [_box_to_json(b) for b in boxes], "nonce": nonce.hex()}).encode()
        return (iv + AESGCM(self._key).encrypt(iv, body, f"{self.context}|{round}".encode())).hex()

    def unseal(self, round: int, sealed: str) -> tuple[tuple[BoxContent, ...], bytes]:
        import json

        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        for key in (self._key, *self._older):
            try:
                raw = bytes.fromhex(sealed)
                body = AESGCM(key).decrypt(raw[:12], raw[12:], f"{self.context}|{round}".encode())
                d = json.loads(body)
                return tuple(_box_from_json(b) for b in d["boxes"]), bytes.fromhex(d["nonce"])
            except InvalidTag:
                continue  # not this key's seal: the next (older) one
            except (ValueError, KeyError, TypeError):
                break
        raise IllegalTransition(
            f"bonus.boxes_placed: the sealed boxes of round {round} do not open with this table's key"
        )


@dataclass(frozen=True)
class BoxPicked(Record, tagged=True):
    """Box `box` (1..5) of `round` was opened, by the player or at random when time ran out."""

    type: ClassVar[EntryType] = EntryType.BONUS_BOX_PICKED
    round: int
    box: int
    by: Actor
    at: float


@dataclass(frozen=True)
class CashedOut(Record, tagged=True):
    """The player took the sum so far instead of picking in `round` (>= 3), or the preset did."""

    type: ClassVar[EntryType] = EntryType.BONUS_CASHED_OUT
    round: int
    by: Actor
    at: float


@dataclass(frozen=True)
class TimerExpired(Record, tagged=True):
    """The countdown of `round` ran out before the player acted; the timeout rule follows."""

    type: ClassVar[EntryType] = EntryType.BONUS_TIMER_EXPIRED
    round: int
    at: float


@dataclass(frozen=True)
class GameEnded(Record, tagged=True):
    """The game is over: `outcome` is the straight-up "to 1" odds it pays, and why."""

    type: ClassVar[EntryType] = EntryType.BONUS_ENDED
    outcome: Fraction
    reason: EndReason


BonusEvent = GameStarted | BoxesPlaced | BoxesRevealed | BoxPicked | CashedOut | TimerExpired | GameEnded
_EVENT_TYPES: dict[str, Any] = {
    cls.type: cls
    for cls in (GameStarted, BoxesPlaced, BoxesRevealed, BoxPicked, CashedOut, TimerExpired, GameEnded)
}


def event_from_json(d: Mapping[str, Any]) -> BonusEvent:
    """Any bonus-game event from its JSON form (ValueError for an unknown or malformed one)."""
    cls = _EVENT_TYPES.get(str(d.get("type")))
    if cls is None:
        raise ValueError(f"unknown bonus-game event type {d.get('type')!r}")
    try:
        event: BonusEvent = cls.from_json(d)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"malformed {cls.type} event: {exc!r}") from None
    return event


# --- the game ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    """One opened box: which round, which box, what it held and who chose it."""

    round: int
    box: int
    content: BoxContent
    by: Actor


class BonusGame:
    """One player's bonus game, rebuilt from (and growing by) its events."""

    def __init__(
        self,
        *,
        rules: RulesSubmission | None = None,
        rng: Rng | None = None,
        clock: Clock = time.time,
        seal: BoxSeal | None = None,
    ) -> None:
        self._rules = rules
        self._rng = rng
        self._clock = clock
        self._seal = seal  # with one, boxes are committed and sealed, revealed after the pick
        self._placed: BoxesPlaced | None = None  # the current round's placement, awaiting a choice
        self._unrevealed: BoxesPlaced | None = None  # a committed placement whose reveal is due
        self._pending: BoxPicked | None = None  # a pick of committed boxes, waiting for their reveal
        self._nonce: bytes | None = None  # the commitment's nonce (known to the table that sealed it)
        self._events: list[BonusEvent] = []
        self.player = ""
        self.preset: Preset = "cash_out"
        self.timer_seconds = 0
        self.round = 0  # the round being played (1..6); 0 before the start
        self.running_sum = Fraction(0)
        self.round1_multiplier: Fraction | None = None
        self.picks: list[Pick] = []
        self.deadline: float | None = None
        self.outcome: Fraction | None = None
        self.end_reason: EndReason | None = None
        self._hidden: tuple[BoxContent, ...] | None = None  # boxes of the current round
        self._decided: EndReason | None = None  # the game is decided, GameEnded not yet applied
        self._timed_out = False

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        rules: RulesSubmission,
        rng: Rng,
        *,
        player: str,
        preset: Preset = "cash_out",
        clock: Clock = time.time,
        seal: BoxSeal | None = None,
    ) -> BonusGame:
        """A new game with its round-1 boxes placed (committed and sealed with `seal`)."""
        if preset not in PRESETS:
            raise IllegalTransition(f"timer preset must be 'cash_out' or 'random', not {preset!r}")
        if not player:
            raise IllegalTransition("a bonus game needs the player it belongs to")
        game = cls(rules=rules, rng=rng, clock=clock, seal=seal)
        game._emit(GameStarted(player, preset, rules.bonus_timer_seconds, rules.sha256, rng.name))
        game.place_boxes()
        return game

    @classmethod
    def replay(
        cls,
        events: Iterable[BonusEvent],
        *,
        rules: RulesSubmission | None = None,
        rng: Rng | None = None,
        clock: Clock = time.time,
        seal: BoxSeal | None = None,
    ) -> BonusGame:
        """The game rebuilt from its events; with rules and rng it can also be played on (with the
        table's `seal`, when its boxes are sealed)."""
        game = cls(rules=rules, rng=rng, clock=clock, seal=seal)
        for event in events:
            game.apply(event)
        return game

    # -- state ----------------------------------------------------------------------------

    @property
    def events(self) -> tuple[BonusEvent, ...]:
        return tuple(self._events)

    @property
    def started(self) -> bool:
        return bool(self._events)

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    @property
    def needs_boxes(self) -> bool:
        """True between a pick and the next round's boxes (e.g. a journal cut short by a crash)."""
        return (
            self.started
            and not self.finished
            and self._decided is None
            and self._placed is None
            and self._unrevealed is None
        )

    @property
    def can_cash_out(self) -> bool:
        return self._awaiting_choice() and self.round >= CASH_OUT_FROM_ROUND

    @property
    def boxes(self) -> tuple[BoxContent, ...] | None:
        """All five contents of the round whose box was opened last (revealed after each pick);
        None before the first pick. The current round's boxes stay hidden until its pick."""
        for event in reversed(self._events):
            if not self.picks or getattr(event, "round", None) != self.picks[-1].round:
                continue
            if isinstance(event, BoxesRevealed) or (isinstance(event, BoxesPlaced) and not event.commitment):
                return event.boxes
        return None

    def time_left(self) -> float | None:
        """Seconds left to act in the current round (None when nothing is awaited)."""
        if not self._awaiting_choice() or self.deadline is None:
            return None
        return max(0.0, self.deadline - self._clock())

    def _awaiting_choice(self) -> bool:
        return self.started and self._decided is None and self.outcome is None and self._placed is not None

    # -- commands (decide, then apply; return what was appended) ---------------------------

    def place_boxes(self) -> list[BonusEvent]:
        """Fill the boxes of the next round (done automatically by start() and pick())."""
        if not self.needs_boxes:
            raise IllegalTransition("the boxes of this round are already placed or the game is over")
        rules, rng = self._need_rules(), self._need_rng()
        r = self.round + 1
        table = rules.bonus_rounds[r - 1]
        values = [weighted_choice(rng, table) for _ in range(MULTIPLIER_BOXES[r - 1])]
        boxes: list[BoxContent] = [*values]
        boxes.extend(X for _ in range(BOXES_PER_ROUND - len(values)))
        shuffle(rng, boxes)
        now = self._clock()
        if self._seal is None:
            return [self._emit(BoxesPlaced(r, tuple(boxes), now, now + self.timer_seconds))]
        nonce = secrets.token_bytes(32)
        commitment = box_commitment(r, boxes, nonce)
        sealed = self._seal.seal(r, boxes, nonce)
        return [self._emit(BoxesPlaced(r, (), now, now + self.timer_seconds, commitment, sealed))]

    def pick(self, box: int) -> list[BonusEvent]:
        """The player opens box `box` (1..5) of the current round."""
        self._check_in_time("pick a box")
        if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= BOXES_PER_ROUND:
            raise IllegalTransition(f"box must be 1 to {BOXES_PER_ROUND}, not {box!r}")
        return self._open(box, "player")

    def cash_out(self) -> list[BonusEvent]:
        """The player takes the sum of the multipliers picked so far (round 3 on, § 617b.12(j))."""
        self._check_in_time("cash out")
        if self.round < CASH_OUT_FROM_ROUND:
            raise IllegalTransition(
                f"cash-out is offered from round {CASH_OUT_FROM_ROUND} on (§ 617b.12(j)); "
                f"this is round {self.round}"
            )
        return self._finish_with(CashedOut(self.round, "player", self._clock()))

    def tick(self) -> list[BonusEvent]:
        """Apply the timeout rule if the current round's time ran out; [] otherwise."""
        if not self._awaiting_choice() or self.deadline is None:
            return []
        now = self._clock()
        if now < self.deadline:
            return []
        out = [self._emit(TimerExpired(self.round, now))]
        if self.round in RANDOM_PICK_ROUNDS or self.preset == "random":
            box = self._need_rng().randbelow(BOXES_PER_ROUND) + 1
            out += self._open(box, "timeout", now)
        else:
            out += self._finish_with(CashedOut(self.round, "timeout", now))
        return out

    def _check_in_time(self, what: str) -> None:
        if not self._awaiting_choice():
            state = "is over" if self.finished else "is not awaiting a choice"
            raise IllegalTransition(f"cannot {what}: the bonus game {state}")
        if self.deadline is not None and self._clock() >= self.deadline:
            raise IllegalTransition(
                f"cannot {what}: the time for round {self.round} ran out; "
                "the timeout rule applies (§ 617b.12(i))"
            )

    def _reveal(self) -> list[BonusEvent]:
        """After a pick or cash-out of committed boxes: their contents and nonce."""
        if self._unrevealed is None or self._hidden is None or self._nonce is None:
            return []
        return [self._emit(BoxesRevealed(self.round, self._hidden, self._nonce.hex()))]

    def _open(self, box: int, by: Actor, at: float | None = None) -> list[BonusEvent]:
        out = [self._emit(BoxPicked(self.round, box, by, self._clock() if at is None else at))]
        out += self._reveal()
        if self._decided is not None:
            out.append(self._emit(GameEnded(self._decided_outcome(), self._decided)))
        elif self._rules is not None and self._rng is not None:
            out += self.place_boxes()
        return out

    def _finish_with(self, event: BonusEvent) -> list[BonusEvent]:
        out = [self._emit(event)]
        out += self._reveal()
        out.append(self._emit(GameEnded(self._decided_outcome(), self._decided or "cash_out")))
        return out

    def _decided_outcome(self) -> Fraction:
        if self._decided == "x":
            assert self.round1_multiplier is not None
            return self.round1_multiplier
        return self.running_sum

    def _emit(self, event: BonusEvent) -> BonusEvent:
        self.apply(event)
        return event

    def _need_rules(self) -> RulesSubmission:
        if self._rules is None:
            raise IllegalTransition(
                "this bonus game was replayed without its Rules Submission; it cannot go on"
            )
        return self._rules

    def _need_rng(self) -> Rng:
        if self._rng is None:
            raise IllegalTransition(
                "this bonus game was replayed without a random number generator; it cannot go on"
            )
        return self._rng

    # -- the fold ---------------------------------------------------------------------------

    def apply(self, event: BonusEvent) -> None:
        """Fold one event into the state, or IllegalTransition (state unchanged) if it cannot happen."""
        if self.outcome is not None:
            raise IllegalTransition(f"{event.type}: the bonus game is over")
        if isinstance(event, GameStarted):
            self._apply_started(event)
        elif not self._events:
            raise IllegalTransition(f"{event.type}: the bonus game has not started")
        elif isinstance(event, BoxesPlaced):
            self._apply_boxes(event)
        elif isinstance(event, BoxesRevealed):
            self._apply_revealed(event)
        elif isinstance(event, BoxPicked):
            self._apply_pick(event)
        elif isinstance(event, CashedOut):
            self._apply_cash_out(event)
        elif isinstance(event, TimerExpired):
            self._apply_timer(event)
        elif isinstance(event, GameEnded):
            self._apply_ended(event)
        else:  # pragma: no cover - the union is closed
            raise IllegalTransition(f"unknown bonus-game event {event!r}")
        self._events.append(event)

    def _apply_started(self, e: GameStarted) -> None:
        if self._events:
            raise IllegalTransition("bonus.started: the game has already started")
        if e.preset not in PRESETS:
            raise IllegalTransition(f"bonus.started: preset must be 'cash_out' or 'random', not {e.preset!r}")
        if self._rules is not None and e.rules_sha256 and e.rules_sha256 != self._rules.sha256:
            raise IllegalTransition("bonus.started: the game was played under a different Rules Submission")
        self.player, self.preset, self.timer_seconds = e.player, e.preset, e.timer_seconds

    def _apply_boxes(self, e: BoxesPlaced) -> None:
        if not self.needs_boxes:
            raise IllegalTransition("bonus.boxes_placed: the current round's boxes are already placed")
        r = self.round + 1
        if e.round != r:
            raise IllegalTransition(f"bonus.boxes_placed: expected round {r}, not {e.round}")
        contents: tuple[BoxContent, ...] | None = e.boxes
        nonce = None
        if e.commitment is not None:
            if e.boxes:
                raise IllegalTransition(
                    "bonus.boxes_placed: committed boxes with their contents in the clear"
                )
            contents = None
            if self._seal is not None:  # the table that placed them: it opens its own seal
                if not e.sealed:
                    raise IllegalTransition(
                        f"bonus.boxes_placed: round {r}'s boxes are committed but not sealed"
                    )
                contents, nonce = self._seal.unseal(r, e.sealed)
                if box_commitment(r, contents, nonce) != e.commitment:
                    raise IllegalTransition(
                        f"bonus.boxes_placed: round {r}'s sealed boxes are not the ones committed"
                    )
        if contents is not None:
            self._check_contents(r, contents)
        self.round = r
        self._placed = e
        self._unrevealed = e if e.commitment is not None else None
        self._hidden = contents
        self._nonce = nonce
        self.deadline = e.deadline
        self._timed_out = False

    def _check_contents(self, r: int, boxes: tuple[BoxContent, ...]) -> None:
        if len(boxes) != BOXES_PER_ROUND:
            raise IllegalTransition(f"bonus.boxes_placed: {len(boxes)} boxes, not {BOXES_PER_ROUND}")
        multipliers = [b for b in boxes if b != X]
        if len(multipliers) != MULTIPLIER_BOXES[r - 1]:
            raise IllegalTransition(
                f"bonus.boxes_placed: round {r} has {MULTIPLIER_BOXES[r - 1]} multiplier boxes "
                f"(§ 617b.12(h)), not {len(multipliers)}"
            )
        table = self._rules.bonus_rounds[r - 1] if self._rules is not None else None
        for m in multipliers:
            if not isinstance(m, Fraction) or m <= 0 or (table is not None and m not in table):
                raise IllegalTransition(f"bonus.boxes_placed: {m!r} is not a multiplier of round {r}")

    def _apply_revealed(self, e: BoxesRevealed) -> None:
        u = self._unrevealed
        if u is None or e.round != u.round or self._placed is not None:
            raise IllegalTransition(
                f"bonus.boxes_revealed: no committed boxes of round {e.round} were picked or cashed out"
            )
        try:
            nonce = bytes.fromhex(e.nonce)
        except ValueError:
            raise IllegalTransition("bonus.boxes_revealed: the nonce is not hex") from None
        if box_commitment(e.round, e.boxes, nonce) != u.commitment:
            raise IllegalTransition(
                f"bonus.boxes_revealed: round {e.round}'s contents are not the ones committed when the "
                "boxes were placed"
            )
        self._check_contents(e.round, e.boxes)
        self._unrevealed, self._hidden, self._nonce = None, None, None
        if self._pending is not None:
            pick, self._pending = self._pending, None
            self._take(pick, e.boxes[pick.box - 1])

    def _check_round(self, e: BoxPicked | CashedOut | TimerExpired) -> None:
        if not self._awaiting_choice():
            raise IllegalTransition(f"{e.type}: the game is not awaiting a choice")
        if e.round != self.round:
            raise IllegalTransition(f"{e.type}: the game is in round {self.round}, not {e.round}")

    def _check_actor(self, e: BoxPicked | CashedOut) -> None:
        if e.by == "timeout" and not self._timed_out:
            raise IllegalTransition(f"{e.type}: a timeout choice without the timer running out")
        if e.by == "player" and self._timed_out:
            raise IllegalTransition(f"{e.type}: the time ran out; the player can no longer choose")
        if e.by not in ("player", "timeout"):
            raise IllegalTransition(f"{e.type}: by must be 'player' or 'timeout', not {e.by!r}")

    def _apply_pick(self, e: BoxPicked) -> None:
        self._check_round(e)
        self._check_actor(e)
        if not 1 <= e.box <= BOXES_PER_ROUND:
            raise IllegalTransition(f"bonus.box_picked: box {e.box} is not 1 to {BOXES_PER_ROUND}")
        if e.by == "timeout" and self.round not in RANDOM_PICK_ROUNDS and self.preset != "random":
            raise IllegalTransition("bonus.box_picked: the player's preset on timeout is to cash out")
        self._placed = None
        self.deadline = None
        if self._unrevealed is not None:
            self._pending = e  # what the box held: with the reveal that follows
            return
        assert self._hidden is not None
        content = self._hidden[e.box - 1]
        self._hidden = None
        self._take(e, content)

    def _take(self, e: BoxPicked, content: BoxContent) -> None:
        self.picks.append(Pick(self.round, e.box, content, e.by))
        if content == X:
            self._decided = "x"
            return
        m = Fraction(content)
        if self.round == 1:
            self.round1_multiplier = m
        self.running_sum += m
        if self.round == BONUS_ROUNDS:
            self._decided = "completed"

    def _apply_cash_out(self, e: CashedOut) -> None:
        self._check_round(e)
        self._check_actor(e)
        if self.round < CASH_OUT_FROM_ROUND:
            raise IllegalTransition(
                f"bonus.cashed_out: no cash-out before round {CASH_OUT_FROM_ROUND} (§ 617b.12(j))"
            )
        if e.by == "timeout" and self.preset != "cash_out":
            raise IllegalTransition("bonus.cashed_out: the player's preset on timeout is a random pick")
        self._placed = None
        if self._unrevealed is None:
            self._hidden = None
        self.deadline = None
        self._decided = "cash_out"

    def _apply_timer(self, e: TimerExpired) -> None:
        self._check_round(e)
        if self._timed_out:
            raise IllegalTransition("bonus.timer_expired: the timer of this round already ran out")
        if self.deadline is not None and e.at < self.deadline:
            raise IllegalTransition(f"bonus.timer_expired: at {e.at} is before the deadline {self.deadline}")
        self._timed_out = True

    def _apply_ended(self, e: GameEnded) -> None:
        if self._decided is None:
            raise IllegalTransition("bonus.ended: the game is not decided yet")
        if self._unrevealed is not None:
            raise IllegalTransition(
                f"bonus.ended: round {self._unrevealed.round}'s committed boxes were not revealed"
            )
        expected = self._decided_outcome()
        if e.outcome != expected or e.reason != self._decided:
            raise IllegalTransition(
                f"bonus.ended: says {format_odds(e.outcome)} ({e.reason}) but the picks give "
                f"{format_odds(expected)} ({self._decided})"
            )
        self.outcome = e.outcome
        self.end_reason = e.reason


def events_to_json(events: Sequence[BonusEvent]) -> list[dict[str, Any]]:
    return [e.to_json() for e in events]


def events_from_json(items: Iterable[Mapping[str, Any]]) -> list[BonusEvent]:
    return [event_from_json(d) for d in items]


def reachable_outcomes(rules: RulesSubmission) -> frozenset[Fraction]:
    """Every outcome ("to 1") a bonus game under `rules` can end with (`drr settle` refuses any
    other): the round-1 multiplier (an X from round 2 on, § 617b.12(k)), the sum of the first r
    picks for a cash-out at round r + 1 >= 3 (§ 617b.12(j)), and the sum of all six picks."""
    out: set[Fraction] = set(rules.bonus_rounds[0])
    sums = {Fraction(0)}
    for r, table in enumerate(rules.bonus_rounds, start=1):
        sums = {s + m for s in sums for m in table}
        if r >= CASH_OUT_FROM_ROUND - 1:
            out |= sums
    return frozenset(out)
