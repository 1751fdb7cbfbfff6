"""Canonical JSON and the journal's entry hash: the exact bytes an auditor can recompute.

Canonical JSON: keys sorted, no spaces, UTF-8, Decimal and Fraction as strings ("12.50", "49/2"),
enums as their value, sets sorted, datetimes as ISO 8601 UTC text. The entry hash is SHA-256 over the
canonical JSON object of all eight fields of an entry, `prev_hash` included, so editing, removing or
reordering any entry breaks the chain from that entry on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from typing import Any

GENESIS_HASH = "0" * 64


def _default(value: Any) -> Any:
    if isinstance(value, Decimal | Fraction):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, set | frozenset):
        return sorted(value)
    if isinstance(value, datetime):
        return format_time(value)
    raise TypeError(f"cannot put a {type(value).__name__} into the journal: {value!r}")


def canonical_json(value: Any) -> str:
    """The one text encoding of `value` used for payloads and hashes."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_default
    )


def format_time(moment: datetime) -> str:
    """ISO 8601 UTC with microseconds and `Z`: sortable as text and identical on every engine."""
    if moment.tzinfo is None:
        raise ValueError("journal times must be time-zone aware")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    """Read a time written by `format_time` (or any ISO 8601 text with an offset) back as aware UTC."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def now_text() -> str:
    return format_time(datetime.now(UTC))


def entry_hash(
    *,
    table: str,
    seq: int,
    time: str,
    user: str | None,
    round_id: str | None,
    type: str,
    payload: Mapping[str, Any],
    prev_hash: str,
) -> str:
    """SHA-256 (hex) over the canonical JSON of all fields (payload as the parsed canonical object)."""
    record = {
        "payload": payload,
        "prev_hash": prev_hash,
        "round_id": round_id,
        "seq": seq,
        "table": table,
        "time": time,
        "type": type,
        "user": user,
    }
    return hashlib.sha256(canonical_json(record).encode("utf-8")).hexdigest()
