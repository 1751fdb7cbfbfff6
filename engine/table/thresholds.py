"""The table's money settings bounded: what a pit boss may set, and the approval threshold read back.

`amount_problem` is the one check of a money setting (`min_bet`, `max_bet`, `large_payout`): plain
digits, positive, at most MAX_AMOUNT. `approval_threshold` reads the `large_payout` a journal holds:
a value journaled before the bounds existed ("1e400" would switch approvals off, "0" would stop every
round for an approval) is not used; the station's own threshold is, and a one-line message says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Final

# Plain digits, up to MAX_AMOUNT (no exponents, no thousands separators).
_AMOUNT: Final = re.compile(r"[0-9]{1,10}(\.[0-9]{1,4})?")
MAX_AMOUNT: Final = Decimal(1_000_000_000)


def amount_problem(key: str, value: str) -> str | None:
    """Why `value` is not a money setting `key` (None when it is one)."""
    if not _AMOUNT.fullmatch(value):
        return (
            f"{key} {value!r} is not an amount such as 500 or 12.50 "
            f"(plain digits, at most {MAX_AMOUNT:,} and 4 decimals)"
        )
    amount = Decimal(value)
    if amount <= 0 or amount > MAX_AMOUNT:
        return f"{key} must be a positive amount up to {MAX_AMOUNT:,}, not {value}"
    return None


def approval_threshold(
    settings: Mapping[str, str], fallback: Decimal, *, table: str
) -> tuple[Decimal, str | None]:
    """(the threshold in force, the one-line message when the stored one is refused).

    Without a stored `large_payout` the station's `fallback` holds; a stored one out of bounds is
    refused in favour of `fallback`, never silently used (it could remove approval)."""
    stored = settings.get("large_payout")
    if stored is None:
        return fallback, None
    problem = amount_problem("large_payout", str(stored).strip())
    if problem is None:
        return Decimal(str(stored).strip()), None
    return fallback, (
        f"table {table}: the stored setting {problem}; payouts of {fallback} or more need a pit boss's "
        "approval (the station's threshold) until a pit boss sets large_payout again"
    )
