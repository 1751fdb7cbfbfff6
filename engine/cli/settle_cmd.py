"""`drr settle ROUND.json|-`: settle a round given as JSON (the electronic betting terminal contract).

Input: {"lucky": {"17": "199", ...}, "bonus_number": 8, "result": 17,
        "bonus_odds": {"anna": "129"}, "wagers": [{"id", "player", "bet", "numbers"|"which", "amount"}]}
Output (stdout, exit 0): {"result": 17, "wagers": [{"id", "kind", "odds", "payout"}, ...],
        "total_wagered": "...", "total_paid": "..."}; odds are exact fractions ("199/2").
An illegal wager exits 2 with one line on stderr naming the wager and the reason; so does a
round no table could have played (exit 2 naming the field): a draw § 617b.12(e) or the Rules
Submission cannot give (a Lucky count other than 1, 3, 5 or 10 or not in `lucky.counts`, odds
not in `lucky.odds`, the Bonus Number a Lucky Number), a bonus outcome its bonus game cannot
reach, a duplicate JSON key, a Lucky Number key not written canonically ("17", not "017"),
a non-ASCII digit anywhere, or a wager over the Rules Submission's limits. Any other bad input
exits 1 with one line. Nothing is written to stdout on an error.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fractions import Fraction

    from engine.bets import Wager
    from engine.rng import Draw
    from engine.rules import RulesSubmission


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    import textwrap

    from engine.bets import bet_names_text

    p = sub.add_parser(
        "settle",
        help="settle a round given as JSON (Lucky/Bonus draw, result, bonus outcomes, wagers)",
        description=__doc__.split("\n", 1)[1] if __doc__ else None,
        # The one public list of bet names (engine.bets.WIRE_BET_NAMES and its aliases).
        epilog=textwrap.fill(bet_names_text(), 100),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("round_file", metavar="ROUND.json", help="the round as JSON, or - for stdin")
    p.add_argument("--rules", metavar="FILE", help="Rules Submission TOML (default: the shipped one)")
    p.set_defaults(func=run)
    # --rules left out: the settings file's rules.path, else the shipped file (engine.config convention).
    from engine.config import mark_settings_options

    mark_settings_options(p, "rules")


def run(args: argparse.Namespace) -> int:
    import json

    from engine.rules_play import load_rules_for_play
    from engine.settlement import settle_round

    # It pays only from what `drr rules check` accepts (engine.rules_play): its lines and exit 2.
    rules = load_rules_for_play(args.rules)
    doc = _read_json(args.round_file)
    draw, result, bonus_odds, wagers = parse_round(doc, rules)
    settled = settle_round(wagers, result, draw, bonus_odds, rules)
    sys.stdout.write(json.dumps(settled.to_wire(), indent=2) + "\n")
    return 0


def _read_json(name: str) -> Any:
    import json
    from pathlib import Path

    from engine.errors import DrrError

    label = "stdin" if name == "-" else name
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise DrrError(f"{label}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise DrrError(f"{label}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        doc = json.loads(text, object_pairs_hook=_Object.from_pairs)
    except json.JSONDecodeError as exc:
        raise DrrError(
            f"{label}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise DrrError(f"{label}: not valid JSON: {exc}") from None
    except RecursionError:
        raise DrrError(f"{label}: not valid JSON: nested too deeply") from None
    _refuse_ambiguous(doc, "the round")
    return doc


class _Object(dict[str, Any]):
    """A JSON object that remembers the keys it saw twice (json.loads keeps the last silently:
    `"17":"49","17":"499"` would pay 499)."""

    duplicates: tuple[str, ...] = ()

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, Any]]) -> _Object:
        obj = cls(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            obj.duplicates = tuple(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        return obj


def _refuse_ambiguous(value: Any, where: str) -> None:
    """DrrError (exit 2) naming the field for a duplicate key or a non-ASCII digit ("١٧" reads
    as 17 to int(), but no terminal should send it)."""
    from engine.errors import DrrError

    def digits(text: str, what: str) -> None:
        if any(ch.isdigit() and not ch.isascii() for ch in text):
            raise DrrError(f"{what}: {text!r} has a non-ASCII digit; write numbers with 0-9", exit_code=2)

    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:  # iterative: the JSON may nest deeply
        item, path = stack.pop()
        if isinstance(item, _Object) and item.duplicates:
            raise DrrError(
                f"{path}: the key {item.duplicates[0]!r} appears twice (which one counts would be a guess)",
                exit_code=2,
            )
        if isinstance(item, dict):
            for key, v in item.items():
                field = key if path == where else f"{path}.{key}"
                digits(key, f"{path}: a key")
                stack.append((v, field))
        elif isinstance(item, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(item))
        elif isinstance(item, str):
            digits(item, path)


def parse_round(doc: Any, rules: RulesSubmission) -> tuple[Draw, int, dict[str, Fraction], list[Wager]]:
    """The draw, result, bonus outcomes and wagers of a `drr settle` document (DrrError naming
    the bad field; IllegalWager, exit 2, for a wager)."""
    from engine.bets import wager_from_wire
    from engine.bonus_game import reachable_outcomes
    from engine.errors import DrrError, IllegalWager
    from engine.exact import format_odds
    from engine.rng import Draw
    from engine.round import RoundOpened, RoundState, WagerPlaced, apply
    from engine.rules import LUCKY_COUNTS_ALLOWED, LUCKY_ODDS_MAX, LUCKY_ODDS_MIN
    from engine.settlement import check_bonus_outcome

    if not isinstance(doc, Mapping):
        raise DrrError("the round must be a JSON object with lucky, bonus_number, result and wagers")
    unknown = sorted(set(doc) - {"lucky", "bonus_number", "result", "bonus_odds", "wagers"})
    if unknown:
        raise DrrError(f"unknown field(s) {', '.join(unknown)} in the round")

    raw_lucky = doc.get("lucky")
    if not isinstance(raw_lucky, Mapping):
        raise DrrError('"lucky" must be an object of Lucky Number -> straight-up odds, e.g. {"17": "199"}')
    lucky: dict[int, Fraction] = {}
    for key, value in raw_lucky.items():
        if not _CANONICAL_NUMBER.fullmatch(key):
            raise DrrError(
                f'lucky: the key {key!r} is not a number written canonically ("17", not "017" or "+17")',
                exit_code=2,
            )
        number = _pocket(key, "lucky: a key")
        odds = _odds(value, f"lucky.{key}")
        if not LUCKY_ODDS_MIN <= odds <= LUCKY_ODDS_MAX:
            raise DrrError(f"lucky.{key}: {value} to 1 is outside 49 to 1 - 499 to 1 (§ 617b.12(f))")
        if odds not in rules.lucky_odds:
            raise DrrError(
                f"lucky.{key}: {value} to 1 is not one of the Rules Submission's Lucky odds "
                f"({', '.join(format_odds(x) for x in rules.lucky_odds)}; lucky.odds)",
                exit_code=2,
            )
        lucky[number] = odds
    if len(lucky) not in LUCKY_COUNTS_ALLOWED:
        raise DrrError(
            f"lucky: {len(lucky)} Lucky Number(s); the RNG selects 1, 3, 5 or 10 (§ 617b.12(e))", exit_code=2
        )
    if len(lucky) not in rules.lucky_counts:
        raise DrrError(
            f"lucky: {len(lucky)} Lucky Numbers, but the Rules Submission draws "
            f"{', '.join(map(str, rules.lucky_counts))} (lucky.counts)",
            exit_code=2,
        )
    bonus_number = _pocket(doc.get("bonus_number"), "bonus_number")
    if bonus_number in lucky:
        raise DrrError(f"bonus_number: {bonus_number} is also a Lucky Number (§ 617b.12(e))", exit_code=2)
    result = _pocket(doc.get("result"), "result")

    raw_bonus = doc.get("bonus_odds", {})
    if not isinstance(raw_bonus, Mapping):
        raise DrrError('"bonus_odds" must be an object of player -> straight-up odds, e.g. {"anna": "129"}')
    bonus_odds = {
        str(player): check_bonus_outcome(str(player), _odds(value, f"bonus_odds.{player}"))
        for player, value in raw_bonus.items()
    }
    reachable = reachable_outcomes(rules)
    for player, outcome in bonus_odds.items():
        if outcome not in reachable:
            raise DrrError(
                f"bonus_odds.{player}: {format_odds(outcome)} to 1 is no outcome of the Rules Submission's "
                "bonus game (a round-1 multiplier, or a sum of picks ending by cash-out or round 6)",
                exit_code=2,
            )

    raw_wagers = doc.get("wagers")
    if not isinstance(raw_wagers, list):
        raise DrrError('"wagers" must be a list of wager objects')
    wagers: list[Wager] = []
    seen: set[str] = set()
    for i, item in enumerate(raw_wagers):
        wager = wager_from_wire(
            item, unit=rules.unit, trios=rules.trios, first_four=rules.first_four, position=i
        )
        if wager.id in seen:
            raise IllegalWager(f"wager {wager.id}: the id repeats an earlier wager")
        seen.add(wager.id)
        wagers.append(wager)
    # The table's limits as the round state machine applies them when a wager is placed.
    state = apply(RoundState.initial(rules), RoundOpened("settle", rules.sha256))
    for wager in wagers:
        state = apply(state, WagerPlaced(wager))
    return Draw(lucky, bonus_number), result, bonus_odds, wagers


_CANONICAL_NUMBER = re.compile(r"(?:0|[1-9][0-9]*)", re.ASCII)


def _pocket(value: Any, what: str) -> int:
    from engine.errors import DrrError

    if isinstance(value, str) and _CANONICAL_NUMBER.fullmatch(value):
        # Only a number written canonically: "00" is the double zero, no pocket of a single-zero
        # wheel (§ 617b.12(a)), and must not read as 0; anything else is refused below, as given.
        from contextlib import suppress

        from engine.exact import parse_whole

        with suppress(ValueError):
            value = parse_whole(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 36:
        shown = repr(value)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        raise DrrError(f"{what}: {shown} is not a number 0-36")
    return value


def _odds(value: Any, what: str) -> Fraction:
    """Exact "to 1" odds from "199", "199/2", "99.5" or an integer; floats are refused."""
    from engine.errors import DrrError
    from engine.exact import parse_odds

    if isinstance(value, bool) or not isinstance(value, str | int):
        raise DrrError(f'{what}: odds {value!r} must be a string such as "199" or "199/2" (or an integer)')
    try:
        odds = parse_odds(value)
    except ValueError:
        raise DrrError(f"{what}: {value!r} is not an exact number of odds") from None
    if odds <= 0:
        raise DrrError(f"{what}: odds {value!r} must be positive")
    return odds
