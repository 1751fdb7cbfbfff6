"""Canonical JSON and the journal's entry hash: the exact bytes an auditor can recompute.

Canonical JSON: keys sorted, no spaces, UTF-8, Decimal and Fraction as strings ("12.50", "49/2"),
enums as their value, sets sorted, datetimes as ISO 8601 UTC text. The entry hash is SHA-256 over the
canonical JSON object of all eight fields of an entry, `prev_hash` included, so editing, removing or
reordering any entry breaks the chain from that entry on.

Two byte rules (docs/journal-evidence.md, "The bytes"): entries of a table chain from its first
`table.started` carrying `"canonical": "rfc8785"` on are RFC 8785 (JCS) text, which any JCS library
reproduces; every entry before that switch, and every entry of a chain that never switched, is the
legacy rule (Python's `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`).
The two write the same bytes unless a payload holds a float (JCS: `5` for 5.0, `1e-7` for 1e-07,
`0` for -0.0, exponents only from 1e21 on) or object keys outside the Basic Multilingual Plane (JCS
sorts keys by UTF-16 code units); an integer beyond ±(2**53 - 1) has no JCS form and is refused.
The hash is always taken over the stored text, so the rule only decides how new text is made.
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

import rfc8785

from engine.entry_types import EntryType

GENESIS_HASH = "0" * 64
LEGACY = "legacy"  # the byte rule of entries written before RFC 8785 (and of chains never switched)
RFC8785 = "rfc8785"  # RFC 8785 JSON Canonicalization Scheme
CANONICAL_FIELD = "canonical"  # table.started's field that switches its chain to RFC 8785
_SAFE_INT = 2**53 - 1  # RFC 8785 numbers are IEEE 754 doubles: larger integers have no exact form


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
    # format_time's text for an instant already in UTC (isoformat is a third of strftime's cost; every
    # journal append stamps its entry with it)
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


def canonical_payload(payload: Mapping[str, Any]) -> str:
    """The canonical JSON a payload is stored as: exactly what a reader re-encodes after parsing it.

    Parsing turns every key into a string, and keys that were not strings (int keys) then sort as
    strings: such a payload is encoded, parsed and encoded again. A payload whose keys are all
    strings already reads back as it was written, so its first encoding is kept."""
    text = canonical_json(payload)
    return text if _str_keys_only(payload) else canonical_json(json.loads(text))


def payload_text(payload: Mapping[str, Any], rule: str = LEGACY) -> str:
    """The stored text of a payload under `rule` (LEGACY or RFC8785): under RFC 8785 the legacy text's
    value in JCS, which is the same text unless the value holds floats or non-BMP keys."""
    text = canonical_payload(payload)
    if rule != RFC8785 or not jcs_differs(payload):
        return text
    return jcs(json.loads(text))


def jcs(value: Any) -> str:
    """RFC 8785 text of a JSON value (as `json.loads` gives it), by the `rfc8785` library."""
    try:
        return rfc8785.dumps(value).decode("utf-8")
    except rfc8785.IntegerDomainError:
        # an integer beyond 2**53 written as a double's JCS text is that double (what such text reads back as)
        return rfc8785.dumps(_as_doubles(value)).decode("utf-8")


def _as_doubles(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and not -_SAFE_INT <= value <= _SAFE_INT:
        if rfc8785.dumps(float(value)).decode() != str(value):  # not a double's own text: inexact
            raise TypeError(f"cannot put {value} into the journal: write such a number as a string")
        return float(value)
    if isinstance(value, dict):
        return {k: _as_doubles(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_as_doubles(v) for v in value]
    return value


def is_canonical(text: str, body: Any, rule: str | None) -> bool:
    """Whether `text` (parsed: `body`) is the canonical text of its value under `rule`; None: under
    either rule (a reader that does not follow the chain from its first entry)."""
    if not jcs_differs(body):
        return canonical_json(body) == text  # both rules write these bytes
    if rule in (RFC8785, None):
        try:
            if jcs(body) == text:
                return True
        except TypeError:
            pass
    return rule != RFC8785 and canonical_json(body) == text


def switches_to_jcs(type_: str, payload: Mapping[str, Any]) -> bool:
    """Whether an entry is the switch of its chain to RFC 8785 (a `table.started` naming it)."""
    return type_ == EntryType.TABLE_STARTED and payload.get(CANONICAL_FIELD) == RFC8785


def jcs_differs(value: Any) -> bool:
    """Whether RFC 8785 may write `value` differently from the legacy rule: it holds a float, an
    integer beyond ±(2**53 - 1), or a key outside the Basic Multilingual Plane."""
    if isinstance(value, float):
        return True
    if isinstance(value, int) and not isinstance(value, bool):
        return not -_SAFE_INT <= value <= _SAFE_INT
    if isinstance(value, dict):
        return any(
            (isinstance(k, str) and not k.isascii() and max(map(ord, k)) > 0xFFFF) or jcs_differs(v)
            for k, v in value.items()
        )
    if isinstance(value, list | tuple | set | frozenset):
        return any(jcs_differs(v) for v in value)
    if isinstance(value, Enum):
        return jcs_differs(value.value)
    return False


def _str_keys_only(value: Any) -> bool:
    if type(value) is dict:
        for k, v in value.items():
            if type(k) is not str or (type(v) not in _PLAIN and not _str_keys_only(v)):
                return False
        return True
    if type(value) is list or type(value) is tuple:
        return all(type(v) in _PLAIN or _str_keys_only(v) for v in value)
    if isinstance(value, dict | list | tuple):  # subclasses: encoded as the plain ones
        return _str_keys_only(dict(value) if isinstance(value, dict) else list(value))
    if isinstance(value, Enum):  # encoded as its value (_default)
        return _str_keys_only(value.value)
    return value is None or isinstance(value, _SCALARS)


# What canonical_json writes as a JSON scalar (or, for sets, a sorted list of scalars): no keys inside.
_PLAIN = frozenset({str, int, float, bool, type(None), Decimal})
_SCALARS = (str, int, float, Decimal, Fraction, datetime, set, frozenset)


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


_encode_str = json.encoder.encode_basestring  # a str as canonical_json writes it (ensure_ascii=False)


def _json_text(value: str | None) -> str:
    return "null" if value is None else _encode_str(value)


def entry_hash_of_text(
    *,
    table: str,
    seq: int,
    time: str,
    user: str | None,
    round_id: str | None,
    type: str,
    payload_text: str,
    prev_hash: str,
) -> str:
    """`entry_hash` of an entry whose payload is given as its canonical JSON text (`payload_text`):
    the same bytes, spliced instead of re-encoded (the canonical JSON of an object is its keys, in
    order, each with its value's canonical JSON; the append path hashes every entry this way)."""
    s = _json_text
    record = (
        f'{{"payload":{payload_text},"prev_hash":{s(prev_hash)},"round_id":{s(round_id)},"seq":{int(seq)!r},'
        f'"table":{s(table)},"time":{s(time)},"type":{s(type)},"user":{s(user)}}}'
    )
    return hashlib.sha256(record.encode("utf-8")).hexdigest()
