"""Journal entries in plain words for the floor's screens (recall's wheel messages, bonus log and audit
trail, the correction dialog): what happened, never raw JSON or internal fields.

The journal keeps the facts as journaled (hashes, epoch deadlines, digests, wire names); a pit boss or
surveillance officer reads the sentence this module makes of them. An entry type without a sentence
of its own (a type added later) is told as its name in words with its plain values, internal keys left
out, so no screen falls back to a payload dump.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.entry_types import EntryType
from engine.journal_types import entry_type

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
    EntryType.TABLE_RULES_LOADED: "Rules Submission",
}  # fmt: skip


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


def _wheel(short: str, p: Mapping[str, Any]) -> str:
    game = f"game {p['game']}: " if p.get("game") is not None else ""
    warnings = ", ".join(_words(str(w)) for w in p.get("warnings") or [])
    if short == "rotor":
        spin = DIRECTION.get(str(p.get("direction")), "direction unknown")
        return f"{game}rotor {p.get('rpm', '?')} rpm {spin}"
    if short == "started":
        return f"{game}the wheel started a game (place your bets)"
    if short == "launched":
        return f"{game}ball launched"
    if short == "no_more_bets":
        return f"{game}the wheel called no more bets"
    if short == "result":
        accepted = p.get("accepted")
        verdict = "" if accepted is None else "accepted" if accepted else "not accepted"
        why = f" ({p['note']})" if p.get("note") else ""
        spun = f", ball {DIRECTION[str(p['direction'])]}" if p.get("direction") in DIRECTION else ""
        extra = f", warnings: {warnings}" if warnings else ""
        return f"{game}the wheel reported {p.get('number', '?')}{spun}{extra}" + (
            f" — {verdict}{why}" if verdict else why
        )
    if short == "closed":
        return f"{game}the wheel stopped (closed)"
    if short == "ball_not_detected":
        return f"{game}ball not detected" + (f": {p['reason']}" if p.get("reason") else "")
    if short == "warning":
        text = warnings or "warnings cleared"
        return f"{game}wheel warning: {text}" + (f" — {p['advice']}" if p.get("advice") else "")
    if short == "miss_spin":
        return f"{game}miss-spin: the ball did not count"
    if short == "launch_failed":
        return f"{game}the ball launch failed"
    if short == "gap":
        return f"{game}game counter jumped (last seen {p.get('previous', '?')}): spins may be missing"
    if short == "restart":
        return f"{game}the wheel restarted (game counter was {p.get('previous', '?')})"
    if short == "link":
        return f"wheel link {p.get('state', '?')}" + (f": {p['detail']}" if p.get("detail") else "")
    rest = plain_fields({k: v for k, v in p.items() if k != "game"})
    return f"{game}{_words(short)}" + (f": {rest}" if rest else "")


def _bonus(short: str, p: Mapping[str, Any], boxes: Sequence[str]) -> str:
    rnd = f"round {p.get('round', '?')}: "
    if short == "boxes_placed":
        return f"{rnd}boxes placed {' | '.join(str(b) for b in p.get('boxes', []))}"
    if short == "box_picked":
        box = p.get("box")
        content = boxes[box - 1] if isinstance(box, int) and 0 < box <= len(boxes) else "?"
        who = " (random, the timer ran out)" if p.get("by") == "timer" else ""
        return f"{rnd}picked box {box}{who} → {content}"
    if short == "cashed_out":
        return f"{rnd}cashed out" + (" (the timer's preset)" if p.get("by") == "timer" else "")
    if short == "timer_expired":
        return f"{rnd}the timer ran out"
    if short == "ended":
        reason = REASONS.get(str(p.get("reason")), _words(str(p.get("reason") or "")))
        return f"game over: {p.get('outcome', '?')} to 1" + (f" ({reason})" if reason else "")
    if short == "started":
        preset = PRESETS.get(str(p.get("preset")), "")
        return "bonus game started" + (f"; when the timer runs out: {preset}" if preset else "")
    if short == "preset_set":
        return f"when the timer runs out: {PRESETS.get(str(p.get('preset')), _words(str(p.get('preset'))))}"
    if short == "timer_restarted":
        return f"{rnd}the countdown started again after a restart"
    rest = plain_fields({k: v for k, v in p.items() if k != "player"})
    return _words(short) + (f": {rest}" if rest else "")


def describe(kind: str, p: Mapping[str, Any], *, boxes: Sequence[str] = ()) -> str:
    """One journal entry (its type and payload) in plain words. `boxes`: the bonus boxes last placed
    for the player, to name what a picked box held."""
    t = entry_type(kind)
    name = t.value if t is not None else kind
    family, _, short = name.partition(".")
    if family == "wheel":
        return _wheel(short, p)
    if family == "bonus":
        return _bonus(short, p, boxes)
    if t is EntryType.ROUND_OPENED:
        return "round opened" + (f", dealer {p['dealer']}" if p.get("dealer") else "")
    if t is EntryType.ROUND_WAGER_PLACED:
        numbers = p.get("numbers") or ([p["which"]] if p.get("which") is not None else [])
        on = f" on {'-'.join(str(n) for n in numbers)}" if numbers else ""
        return f"{p.get('player', '?')}: {p.get('amount', '?')} {_words(str(p.get('bet', '?')))}{on}"
    if t is EntryType.ROUND_WAGER_REMOVED:
        return "a wager taken back off the felt"
    if t is EntryType.ROUND_BETS_CLOSED:
        draw = p.get("draw", p)
        lucky = draw.get("lucky") or {}
        pairs = sorted(lucky.items(), key=lambda kv: int(kv[0])) if isinstance(lucky, Mapping) else lucky
        shown = ", ".join(f"{n} at {x} to 1" for n, x in pairs)
        return f"no more bets; Lucky Numbers {shown or 'none'}; Bonus Number {draw.get('bonus_number', '?')}"
    if t is EntryType.ROUND_RESULT:
        how = "entered by hand" if p.get("source") == "manual" else "from the wheel"
        why = f" ({p['reason']})" if p.get("reason") else ""
        return f"result {p.get('number', '?')} {how}{why}"
    if t is EntryType.ROUND_RESULT_CORRECTED:
        return f"result {p.get('old', '?')} corrected to {p.get('new', '?')}: {p.get('reason', '')}"
    if t is EntryType.ROUND_SETTLED:
        return f"settled: wagered {p.get('total_wagered', '?')}, won {p.get('total_paid', '?')}" + (
            f", handed back {p['total_returned']}" if p.get("total_returned") is not None else ""
        )
    if t is EntryType.ROUND_VOIDED:
        by = f" by {p['by']}" if p.get("by") else ""
        return f"round voided{by}: {p.get('reason', '')} — every stake returned"
    if t is EntryType.ROUND_BONUS_STARTED:
        return f"bonus game for {', '.join(str(x) for x in p.get('players', [])) or '?'}"
    if t is EntryType.ROUND_BONUS_OUTCOME:
        return f"bonus outcome for {p.get('player', '?')}: {p.get('odds', '?')} to 1"
    if t is EntryType.ROUND_PAYOUT_APPROVED:
        return f"payout {p.get('total', '?')} approved by {p.get('approved_by', '?')}" + (
            f": {p['reason']}" if p.get("reason") else ""
        )
    if t is EntryType.ROUND_IRREGULARITY:
        return f"irregularity, round on hold: {p.get('reason') or _words(str(p.get('kind', '?')))}"
    if t is EntryType.ROUND_NO_SPIN:
        return f"no-spin (the ball is spun again): {p.get('reason', '')}"
    if t is EntryType.ROUND_RESULT_BEFORE_CLOSE:
        return f"result {p.get('number', '?')} before no more bets, round on hold"
    if t is EntryType.TABLE_SETTINGS_CHANGED:
        changes = p.get("changes") or {}
        listed = ", ".join(f"{_words(str(k))} {v}" for k, v in changes.items())
        why = f" ({p['reason']})" if p.get("reason") else ""
        return f"table settings from the next round: {listed}{why}"
    if t is EntryType.TABLE_RULES_LOADED:
        return f"Rules Submission loaded: {p.get('name') or p.get('source') or '?'}"
    if t is EntryType.TABLE_IRREGULARITY_RESOLVED:
        return f"hold resolved ({_words(str(p.get('resolution', '')))}): {p.get('reason', '')}"
    if t is EntryType.TABLE_NEXT_ROUND:
        return "table cleared for the next round"
    if t is EntryType.TABLE_FLOOR_ACTION_TAKEN:
        action = entry_type(str(p.get("action", "")))
        what = FLOOR_ACTIONS.get(action, "action") if action is not None else "action"
        if p.get("outcome") == "taken":
            return f"the pit boss's {what} at the floor, taken in by the table"
        return f"the pit boss's {what} at the floor, refused by the table: {p.get('why', '')}"
    if t is EntryType.RNG_FAULT:
        return f"RNG fault: {p.get('test', '?')} failed — play stopped"
    rest = plain_fields(p)
    return _words(short or family) + (f": {rest}" if rest else "")
