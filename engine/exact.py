"""Exact numbers read and written: strict readers from JSON, and the one spelling of odds and money.

`format_odds` writes exact odds as the journal and the JSON contracts spell them ("199", "199/2");
`money` writes an amount for people (thousands separators, two decimals, never rounded up).

`Fraction("1e999999999")` and `int(17.9)` are both accepted by Python: the first spends
minutes building a billion-digit integer, the second silently drops a fraction. Records
read here take only plain digits, so a damaged or hand-edited record is refused at once.
"""

from __future__ import annotations

import re
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

_ODDS_TEXT = re.compile(r"[0-9]{1,12}(\.[0-9]{1,12})?(/[0-9]{1,12})?")
_WHOLE_TEXT = re.compile(r"-?[0-9]{1,12}")
_CENT = Decimal("0.01")


def parse_odds(value: Any) -> Fraction:
    """Exact odds from an integer or a string such as "199", "199/2" or "99.5" (ValueError otherwise)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not an exact number of odds")
    return _odds_of_text(value)


@lru_cache(maxsize=4096)
def _odds_of_text(value: str) -> Fraction:
    """`parse_odds` of a text: a table draws from a few odds, and a rebuild reads every draw of years
    (a refusal is raised each time, not cached; a Fraction is immutable, so one is shared)."""
    if not _ODDS_TEXT.fullmatch(value.strip()):
        raise ValueError(f"{value!r} is not an exact number of odds")
    try:
        return Fraction(value.strip())
    except ZeroDivisionError:
        raise ValueError(f"{value!r} is not an exact number of odds") from None


def parse_whole(value: Any) -> int:
    """A whole number from an integer or a string of digits (ValueError for 17.9, True, "1e3")."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _WHOLE_TEXT.fullmatch(value.strip()):
        return int(value.strip())
    raise ValueError(f"{value!r} is not a whole number")


def format_odds(x: Fraction) -> str:
    """Exact odds as used in the journal and the JSON contracts: "199" or "199/2"."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def money(amount: Decimal) -> str:
    """An amount with thousands separators and two decimals, never rounded up ("1,234.50")."""
    return f"{amount.quantize(_CENT, rounding=ROUND_DOWN):,}"
