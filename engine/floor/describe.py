"""Journal entries in plain words for the floor's screens (recall's wheel messages, bonus log and audit
trail, the correction dialog): what happened, never raw JSON or internal fields.

The journal keeps the facts as journaled (hashes, epoch deadlines, digests, wire names); a pit boss or
surveillance officer reads the sentence this module makes of them. Each entry type's sentence is
declared once, in `DESCRIPTIONS`, keyed by its payload class (a bonus-game entry by its event's
class) and made from the typed payload (engine.journal_types.read: old spellings already mapped).
A type without a sentence of its own is told as its name in words with its plain values, internal
keys left out (`_plain`), and so is an entry of a type this build does not know or one that cannot be
read, so no screen falls back to a payload dump.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from engine import bonus_game as bg
from engine import round as rnd
from engine import table_events as te
from engine import wheel_events as we
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.exact import format_odds
from engine.journal_types import PAYLOAD_CLASSES, Payload, Unknown, entry_type, parse, read
from engine.store.records import Entry

# Payload keys that are bookkeeping, not what a person needs to read (times as epoch seconds, digests,
# generator names, the journal's own cross-references).
INTERNAL = frozenset(
    {"type", "rules_sha256", "sha256", "rng", "wheel_seq", "deadline", "placed_at", "at", "text", "id",
     "wager_id", "wager_ids", "lucky_order", "hash", "prev_hash", "sig", "flags", "added", "removed",
     "expected", "payouts", "digest", "digests", "software"}
)  # fmt: skip
DIRECTION = {"cw": "clockwise", "ccw": "counter-clockwise"}
PRESETS = {"cash_out": "cash out", "random": "a random pick"}
REASONS = {
    "cash_out": "cashed out", "x": "an X was picked", "timer": "the timer ran out", "max": "last round",
}  # fmt: skip
# A pit boss's action at the floor database, as the table's answer to it names it.
FLOOR_ACTIONS = {
    EntryType.ROUND_VOIDED: "void", EntryType.ROUND_RESULT_CORRECTED: "result correction",
    EntryType.ROUND_PAYOUT_APPROVED: "payout approval", EntryType.TABLE_SETTINGS_CHANGED: "settings change",
    EntryType.TABLE_RULES_LOADED: "Rules Submission", EntryType.TABLE_WHEEL_SERVICED: "wheel service",
}  # fmt: skip
# Who picked a box or cashed out when the countdown ran out (engine.bonus_game.Actor).
TIMEOUT: Final = "timeout"


def number_or_none(value: Any, none: str = "no result yet") -> str:
    """A result number as text; `none` (in words) when there is none."""
    return none if value is None else str(value)


def _words(name: str) -> str:
    return name.replace("_", " ")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_value(v) for v in value) or "none"
    if isinstance(value, Mapping):
        return "; ".join(f"{_words(str(k))} {_value(v)}" for k, v in value.items() if k not in INTERNAL)
    return _words(str(value)) if isinstance(value, str) and value in DIRECTION else str(value)


def plain_fields(p: Mapping[str, Any]) -> str:
    """The payload's values a person reads ("player Carla, round 2"), internal keys left out."""
    shown = [
        f"{_words(str(k))} {_value(v)}" for k, v in p.items() if k not in INTERNAL and v not in (None, "")
    ]
    return ", ".join(shown)


def _plain(name: str, p: Mapping[str, Any]) -> str:
    """An entry told as its type's name in words and its plain values (the wheel's game first, a
    bonus entry without its player): a type without a sentence, unknown or unreadable."""
    family, _, short = name.partition(".")
    if family == "wheel":
        game = f"game {p['game']}: " if p.get("game") is not None else ""
        rest = plain_fields({k: v for k, v in p.items() if k != "game"})
        return f"{game}{_words(short)}" + (f": {rest}" if rest else "")
    if family == "bonus":
        rest = plain_fields({k: v for k, v in p.items() if k != "player"})
        return _words(short) + (f": {rest}" if rest else "")
    rest = plain_fields(p)
    return _words(short or family) + (f": {rest}" if rest else "")


# --- the wheel ----------------------------------------------------------------------------------


def _game(e: we.WheelEvent) -> str:
    return f"game {e.game}: " if e.game is not None else ""


def _warnings(warnings: tuple[str, ...] | None) -> str:
    return ", ".join(_words(w) for w in warnings or ())


def _wheel_result(e: we.WheelResult) -> str:
    verdict = "" if e.accepted is None else "accepted" if e.accepted else "not accepted"
    why = f" ({e.note})" if e.note else ""
    spun = f", ball {DIRECTION[e.direction]}" if e.direction in DIRECTION else ""
    warnings = _warnings(e.warnings)
    extra = f", warnings: {warnings}" if warnings else ""
    said = f" — {verdict}{why}" if verdict else why
    return f"{_game(e)}the wheel reported {e.number}{spun}{extra}{said}"


def _wheel_warning(e: we.WheelWarning) -> str:
    text = _warnings(e.warnings) or "warnings cleared"
    return f"{_game(e)}wheel warning: {text}" + (f" — {e.advice}" if e.advice else "")


def _wheel_identity(e: we.WheelIdentity) -> str:
    said = [f"{name} {value}" for name, value in (("maker", e.maker), ("firmware", e.firmware),
            ("version", e.version), ("FPGA/COPRO", e.fpga)) if value]  # fmt: skip
    clock = "clock not read" if e.offset is None else f"its clock {e.offset:+} s from the table PC's"
    return f"the wheel connected: {', '.join(said) or 'no identity given'}; {clock}"


def _wheel_clock(e: we.WheelClock) -> str:
    when = {"reconcile": " with its log", "periodic": ""}.get(e.occasion or "", "")
    if e.offset is None:
        return f"the wheel's clock was asked again{when} and not read"
    return f"the wheel's clock read again{when}: {e.offset:+} s from the table PC's"


def _wheel_reconciled(e: we.WheelReconciled) -> str:
    """The reconciliation in words, each difference named (a game the wheel's log contradicts first)."""
    where = f" ({e.occasion}, {e.source})" if e.source else f" ({e.occasion})"
    rows = [
        f"game {g.game:03d} round {g.round_id or '?'}: journal {g.journal}, wheel {g.wheel}" for g in e.differ
    ]
    rows += [f"game {g.game:03d} only in the wheel's log: {g.wheel}" for g in e.wheel_only]
    rows += [f"game {g.game:03d} only in the journal: {g.journal}" for g in e.journal_only]
    bad = f" — {len(e.pages_untrusted)} log page(s) failed their checksum" if e.pages_untrusted else ""
    return f"the wheel's log reconciled{where}: {e.summary()}{bad}" + _after("; ", "; ".join(rows))


def _after(sep: str, text: str | None) -> str:
    """`sep` and `text`, or nothing when there is no text."""
    return f"{sep}{text}" if text else ""


def _previous(previous: int | None) -> str:
    return "?" if previous is None else str(previous)


# --- the bonus game -----------------------------------------------------------------------------


def box_text(box: bg.BoxContent) -> str:
    """A bonus box as journaled and shown: "X" or its exact odds ("199/2")."""
    return bg.X if box == bg.X else format_odds(box)  # type: ignore[arg-type]  # not X: a Fraction


def _box_picked(e: bg.BoxPicked, boxes: Sequence[str]) -> str:
    content = boxes[e.box - 1] if 0 < e.box <= len(boxes) else "?"
    who = " (random, the timer ran out)" if e.by == TIMEOUT else ""
    return f"round {e.round}: picked box {e.box}{who} → {content}"


def _boxes_placed(e: bg.BoxesPlaced) -> str:
    if e.commitment:  # since issue 24: the contents are revealed after the pick
        return f"round {e.round}: boxes placed, contents committed ({e.commitment[:12]}…) and sealed"
    return f"round {e.round}: boxes placed {' | '.join(box_text(b) for b in e.boxes)}"


def _cashed_out(e: bg.CashedOut) -> str:
    return f"round {e.round}: cashed out" + (" (the timer's preset)" if e.by == TIMEOUT else "")


def _game_ended(e: bg.GameEnded) -> str:
    reason = REASONS.get(e.reason, _words(e.reason))
    return f"game over: {format_odds(e.outcome)} to 1" + (f" ({reason})" if reason else "")


def _game_started(e: bg.GameStarted) -> str:
    preset = PRESETS.get(e.preset, "")
    return "bonus game started" + (f"; when the timer runs out: {preset}" if preset else "")


# --- the round and the table --------------------------------------------------------------------


def _wager_placed(e: rnd.WagerPlaced) -> str:
    # The one bet-wording (engine.bets.Bet.label, "straight 17", "dozen 1") the felt and recall use.
    return f"wager placed: {e.wager.words}"


def _bets_closed(e: rnd.BetsClosed) -> str:
    shown = ", ".join(f"{n} at {format_odds(x)} to 1" for n, x in sorted(e.draw.lucky.items()))
    return f"no more bets; Lucky Numbers {shown or 'none'}; Bonus Number {e.draw.bonus_number}"


def _result(e: rnd.ResultRecorded) -> str:
    how = "entered by hand" if e.source == "manual" else "from the wheel"
    why = f" ({e.reason})" if e.reason else ""
    return f"result {e.number} {how}{why}"


def _settled(e: rnd.RoundSettled) -> str:
    return f"settled: wagered {e.total_wagered}, won {e.total_paid}" + (
        f", handed back {e.total_returned}" if e.total_returned is not None else ""
    )


def _voided(e: rnd.RoundVoided) -> str:
    by = f" by {e.by}" if e.by else ""
    return f"round voided{by}: {e.reason} — every stake returned"


def _payout_approved(e: te.PayoutApproved) -> str:
    return f"payout {e.total} approved by {e.approved_by}" + (f": {e.reason}" if e.reason else "")


def _settings_changed(e: te.SettingsChanged) -> str:
    listed = ", ".join(f"{_words(str(k))} {v}" for k, v in e.changes.items())
    why = f" ({e.reason})" if e.reason else ""
    return f"table settings from the next round: {listed}{why}"


def _floor_action_taken(e: te.FloorActionTaken) -> str:
    action = entry_type(e.action)
    what = FLOOR_ACTIONS.get(action, "action") if action is not None else "action"
    if e.outcome == "taken":
        return f"the pit boss's {what} at the floor, taken in by the table"
    return f"the pit boss's {what} at the floor, refused by the table: {e.why or ''}"


_Describe = Callable[[Any, Sequence[str]], str]


def _plainly(t: EntryType) -> _Describe:
    """The sentence of a type that has none of its own: its name in words and its plain values."""
    return lambda e, _boxes: _plain(t.value, e.to_json())


# Each entry type's sentence, keyed by its payload class (a bonus-game entry: its event's class);
# each made of the typed payload and the bonus boxes last placed for the player.

DESCRIPTIONS: Final[dict[type, _Describe]] = {
    # the wheel (engine.wheel_events)
    we.WheelRotor: lambda e, _: (
        f"{_game(e)}rotor {e.rpm} rpm {DIRECTION.get(e.direction, 'direction unknown')}"
    ),
    we.WheelStarted: lambda e, _: f"{_game(e)}the wheel started a game (place your bets)",
    we.WheelLaunched: lambda e, _: f"{_game(e)}ball launched",
    we.WheelNoMoreBets: lambda e, _: f"{_game(e)}the wheel called no more bets",
    we.WheelResult: lambda e, _: _wheel_result(e),
    we.WheelClosed: lambda e, _: f"{_game(e)}the wheel stopped (closed)",
    we.WheelBallNotDetected: lambda e, _: f"{_game(e)}ball not detected" + _after(": ", e.reason),
    we.WheelWarning: lambda e, _: _wheel_warning(e),
    we.WheelMissSpin: lambda e, _: f"{_game(e)}miss-spin: the ball did not count",
    we.WheelLaunchFailed: lambda e, _: f"{_game(e)}the ball launch failed",
    we.WheelGap: lambda e, _: (
        f"{_game(e)}game counter jumped (last seen {_previous(e.previous)}): spins may be missing"
    ),
    we.WheelRestart: lambda e, _: f"{_game(e)}the wheel restarted (game counter was {_previous(e.previous)})",
    we.WheelLinkState: lambda e, _: f"wheel link {e.state or '?'}" + (f": {e.detail}" if e.detail else ""),
    we.WheelReconciled: lambda e, _: _wheel_reconciled(e),
    we.WheelIdentity: lambda e, _: _wheel_identity(e),
    we.WheelClock: lambda e, _: _wheel_clock(e),
    # the bonus game (engine.bonus_game's events; the player is the wrapper's)
    bg.BoxesPlaced: lambda e, _: _boxes_placed(e),
    bg.BoxesRevealed: lambda e, _: (
        f"round {e.round}: the boxes held {' | '.join(box_text(b) for b in e.boxes)} "
        "(revealed after the pick, as committed at placement)"
    ),
    bg.BoxPicked: _box_picked,
    bg.CashedOut: lambda e, _: _cashed_out(e),
    bg.TimerExpired: lambda e, _: f"round {e.round}: the timer ran out",
    bg.GameEnded: lambda e, _: _game_ended(e),
    bg.GameStarted: lambda e, _: _game_started(e),
    te.PresetSet: lambda e, _: f"when the timer runs out: {PRESETS.get(e.preset, _words(e.preset))}",
    te.TimerRestarted: lambda e, _: f"round {e.round}: the countdown started again after a restart",
    # the round
    rnd.RoundOpened: lambda e, _: "round opened" + (f", dealer {e.dealer}" if e.dealer else ""),
    rnd.WagerPlaced: lambda e, _: _wager_placed(e),
    rnd.WagerRemoved: lambda e, _: "a wager taken back off the felt",
    rnd.BetsClosed: lambda e, _: _bets_closed(e),
    rnd.ResultRecorded: lambda e, _: _result(e),
    rnd.ResultCorrected: lambda e, _: f"result {e.old} corrected to {e.new}: {e.reason}",
    rnd.RoundSettled: lambda e, _: _settled(e),
    rnd.RoundVoided: lambda e, _: _voided(e),
    rnd.BonusStarted: lambda e, _: f"bonus game for {', '.join(e.players) or '?'}",
    rnd.BonusOutcome: lambda e, _: f"bonus outcome for {e.player}: {format_odds(e.odds)} to 1",
    te.PayoutApproved: lambda e, _: _payout_approved(e),
    te.Irregularity: lambda e, _: f"irregularity, round on hold: {e.reason or _words(e.kind)}",
    rnd.NoSpin: lambda e, _: f"no-spin (the ball is spun again): {e.reason}",
    rnd.ResultBeforeClose: lambda e, _: f"result {e.number} before no more bets, round on hold",
    # the table
    te.SettingsChanged: lambda e, _: _settings_changed(e),
    te.RulesLoaded: lambda e, _: f"Rules Submission loaded: {e.name or e.source or '?'}",
    te.IrregularityResolved: lambda e, _: f"hold resolved ({_words(e.resolution)}): {e.reason}",
    te.NextRound: lambda e, _: "table cleared for the next round",
    te.FloorActionTaken: lambda e, _: _floor_action_taken(e),
    te.RngFault: lambda e, _: f"RNG fault: {e.test} failed — play stopped",
    te.BiasAlarm: lambda e, _: f"bias alarm: {e.words}",
    te.WheelServiced: lambda e, _: f"{e.what} by {e.by}: {e.reason} — the bias tests start afresh",
}  # fmt: skip
# The types told plainly (their name and plain values): the table's own records, users, the floor's.
_SENTENCED: Final = {*DESCRIPTIONS, te.PlayerBonusEvent}
DESCRIPTIONS.update({c: _plainly(t) for t, c in PAYLOAD_CLASSES.items() if c not in _SENTENCED})


def described_class(t: EntryType) -> type:
    """The class `DESCRIPTIONS` keys entries of type `t` by (a bonus-game entry: its event's class)."""
    c = PAYLOAD_CLASSES[t]
    if c is te.PlayerBonusEvent:
        return next(e for e in (bg.GameStarted, bg.BoxesPlaced, bg.BoxesRevealed, bg.BoxPicked, bg.CashedOut,
                                bg.TimerExpired, bg.GameEnded) if e.type is t)  # fmt: skip
    return c


def describe_payload(payload: Payload | Unknown, *, boxes: Sequence[str] = ()) -> str:
    """One typed journal payload (engine.journal_types.read) in plain words. `boxes`: the bonus
    boxes last placed for the player, to name what a picked box held."""
    if isinstance(payload, Unknown):
        return _plain(payload.name, payload.payload)
    event = payload.event if isinstance(payload, te.PlayerBonusEvent) else payload
    return DESCRIPTIONS[type(event)](event, boxes)


def describe_entry(entry: Entry, *, boxes: Sequence[str] = ()) -> str:
    """A stored entry in plain words, from its payload typed once (engine.journal_types.read caches it)."""
    return describe_payload(read(entry), boxes=boxes)


def describe(kind: str, p: Mapping[str, Any], *, boxes: Sequence[str] = ()) -> str:
    """One journal entry (its type and payload as stored) in plain words; one that cannot be read is
    told by its type's name and plain values."""
    try:
        payload = parse(kind, p)
    except DrrError:
        t = entry_type(kind)
        return _plain(t.value if t is not None else kind, p)
    return describe_payload(payload, boxes=boxes)
