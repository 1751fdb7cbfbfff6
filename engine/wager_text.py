"""The croupier's keyboard wager grammar: `17/25` is 25 straight up on 17, `17-20/10` a split.

One line holds one or more wagers, separated by spaces or commas; each is a bet, optionally
followed by `/` and its amount (without an amount the croupier's selected chip is meant):

    line   := wager ( ("," | " ")+ wager )*
    wager  := bet [ "/" amount ]
    bet    := numbers | outside
    numbers:= N ( "-" N )*            N = 0..36: every number the bet covers, in any order;
                                      the set names the kind (straight, split, street, trio,
                                      corner, first four, six line) exactly as engine.bets does
    outside:= red | r | black | b | odd | o | even | e | low | lo | high | hi
            | dozen D | d D | column D | c D          D = 1, 2 or 3 ("dozen2", "d2", "dozen 2")
    amount := digits [ "." digits ]   (positive; the table's unit and limits are the service's check)

Case and spaces around "/" and "-" do not matter; a comma between two digits ("2,5") is refused
(an amount is written with a point). Anything else is refused with a one-line
message naming the piece that is wrong; nothing is guessed. `bet_text(bet)` writes a bet the way
the grammar reads it (every legal bet round-trips). The widget only passes the text on: the
grammar lives here, in the engine, so the CLI, a test or another station reads the same line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Final

from engine.bets import KINDS, OUTSIDE_KINDS, WHICH_KINDS, Bet, BetKind, inside_bet, outside_bet
from engine.errors import IllegalWager

# The outside bets' words: the kind's own name first (what `bet_text` writes), then its short form.
OUTSIDE_WORDS: Final[Mapping[BetKind, tuple[str, ...]]] = {
    BetKind.RED: ("red", "r"),
    BetKind.BLACK: ("black", "b"),
    BetKind.ODD: ("odd", "o"),
    BetKind.EVEN: ("even", "e"),
    BetKind.LOW: ("low", "lo"),
    BetKind.HIGH: ("high", "hi"),
    BetKind.DOZEN: ("dozen", "d"),
    BetKind.COLUMN: ("column", "c"),
}
assert set(OUTSIDE_WORDS) == OUTSIDE_KINDS, "every outside kind of engine.bets.KINDS has its words"
_WORD: Final = {word: kind for kind, words in OUTSIDE_WORDS.items() for word in words}
_NUMBERS = re.compile(r"\d{1,2}(-\d{1,2})*")
_WHICH = re.compile(r"([a-z]+)([123])")
_AMOUNT = re.compile(r"\d{1,10}(\.\d{1,4})?")


@dataclass(frozen=True, slots=True)
class WagerText:
    """One wager read from the keyboard: its bet, its amount (None: the selected chip) and the text."""

    bet: Bet
    amount: Decimal | None
    text: str


def parse_wagers(line: str, *, trios: bool = True, first_four: bool = True) -> list[WagerText]:
    """Every wager of `line` (see the module docstring), or IllegalWager naming the wrong piece."""
    # "dozen 2", "17 / 25", "17 - 20": the spaces inside one wager go first.
    text = re.sub(r"\s*([/-])\s*", r"\1", line.strip().lower())
    text = re.sub(r"\b(dozen|column|d|c)\s+([123])\b", r"\1\2", text)
    if (comma := re.search(r"\d+,\d+", text)) is not None:
        # "2,5" is two and a half in much of Europe, or two wagers: never guessed.
        raise IllegalWager(
            f"'{comma.group()}': write an amount with a point (2.5), wagers apart with a space"
        )
    pieces = [p for p in re.split(r"[\s,]+", text) if p]
    if not pieces:
        raise IllegalWager("no wager typed: e.g. 17/25 (25 on 17) or 17-20/10 (a split)")
    return [parse_wager(p, trios=trios, first_four=first_four) for p in pieces]


def parse_wager(piece: str, *, trios: bool = True, first_four: bool = True) -> WagerText:
    """One wager `bet[/amount]` (no spaces), or IllegalWager naming it."""
    bet_part, slash, amount_part = piece.partition("/")
    if slash and not amount_part:
        raise IllegalWager(f"'{piece}': no amount after '/' (e.g. {bet_part}/25)")
    amount = _amount(piece, amount_part) if slash else None
    return WagerText(_bet(piece, bet_part, trios, first_four), amount, piece)


def _amount(piece: str, text: str) -> Decimal:
    if not _AMOUNT.fullmatch(text):
        raise IllegalWager(f"'{piece}': amount '{text}' is not a plain amount such as 25 or 2.5")
    try:
        value = Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only digits
        raise IllegalWager(f"'{piece}': amount '{text}' is not a number") from None
    if value <= 0:
        raise IllegalWager(f"'{piece}': the amount must be more than 0")
    return value


def _bet(piece: str, text: str, trios: bool, first_four: bool) -> Bet:
    if not text:
        raise IllegalWager(f"'{piece}': no bet before '/' (e.g. 17/25)")
    if _NUMBERS.fullmatch(text):
        numbers = [int(n) for n in text.split("-")]
        try:
            return inside_bet(numbers, trios=trios, first_four=first_four)
        except ValueError as exc:
            raise IllegalWager(f"'{piece}': {exc}") from None
    kind = _WORD.get(text)
    which: int | None = None
    if kind is None and (m := _WHICH.fullmatch(text)) is not None:
        kind, which = _WORD.get(m.group(1)), int(m.group(2))
    if kind is None:
        raise IllegalWager(
            f"'{piece}': '{text}' is no bet: type the numbers (17, 17-20, 16-17-18) or "
            "red, black, odd, even, low, high, dozen 1-3, column 1-3"
        )
    if (kind in WHICH_KINDS) != (which is not None):
        need = f"{kind.value} needs 1, 2 or 3 (e.g. {kind.value}2)" if which is None else ""
        raise IllegalWager(f"'{piece}': {need or f'{kind.value} takes no number'}")
    return outside_bet(kind, which)


def bet_text(bet: Bet) -> str:
    """The bet as the grammar reads it: numbers joined by "-", or the outside kind's word."""
    if bet.inside:
        return "-".join(map(str, sorted(bet.numbers)))
    word = OUTSIDE_WORDS[bet.kind][0]
    return f"{word}{bet.which}" if bet.kind in WHICH_KINDS else word


def wager_text(bet: Bet, amount: Decimal) -> str:
    """`bet_text(bet)/amount`: a wager as the croupier would type it."""
    return f"{bet_text(bet)}/{amount}"


# Every kind of the one table of bet kinds is typed one way or the other (checked on import, so a new
# kind in engine.bets without its words fails at once).
assert all(info.inside or info.kind in OUTSIDE_WORDS for info in KINDS)
