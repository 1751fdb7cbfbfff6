"""The journal payloads' one codec: a frozen dataclass declares its fields once; `Record` writes, reads them.

A payload class derives from `Record` and gets `to_json()` (the payload journaled) and
`from_json(mapping)` (the payload read back). How each field travels is read from its type hint
(str, int, float, bool, Decimal, Fraction odds, tuples, mappings, nested Records, optional ones) and
from `fact(...)`, its metadata, the one place a field's JSON is spelled:

    @dataclass(frozen=True)
    class RoundSettled(Record, tagged=True):            # tagged: {"type": <its EntryType>, ...}
        type: ClassVar[EntryType] = EntryType.ROUND_SETTLED
        total_paid: Decimal = field(metadata=fact(legacy=("paid",)))  # an old journal's spelling, read only
        total_returned: Decimal | None = None          # None: left out of the JSON

The rules, which every payload journaled so far follows:

- a field is written under its name (`key=` another; "a.b" inside the object at "a"), in the order
  declared, after the class's constant keys (`tagged`: "type"; `const`: others);
- None is left out when the field's default is None, written as null when the field has no default;
  `null=True` writes it always, `omit=True` leaves it out always; `when=` writes the field exactly when
  the predicate holds for the payload; `journal=False` keeps a field out of `to_json` (`wire_json` has it);
- reading: today's key, else the first `legacy` key present; a missing key gives the field's default,
  None for an optional field, else KeyError; null reads as None for an optional field;
- numbers that are floats are written as given: a whole float stays "30.0", an int given stays "30";
- `flat=True`: the coder writes keys into the payload itself and reads the whole payload (a wager's).

Coders raise ValueError/TypeError/KeyError on a bad value (the registry, engine.journal_types, turns
that into a DrrError naming the entry); `Invalid(why)` has the codec name the field and value, through
the class's `_malformed` (a wheel event's are DrrErrors).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, ClassVar, Final, Literal, Self

from engine.exact import format_odds, parse_odds, parse_whole

_META: Final = "codec"


class Invalid(ValueError):
    """A coder's refusal of a value ("is not a whole number"): the codec names the field and the value."""


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Coder:
    """How one value is written to JSON (`dump`) and read back (`load`); `check`/`want`: what a
    constructed value must be (a wheel event checks its fields with them)."""

    dump: Callable[[Any], Any] = _same
    load: Callable[[Any], Any] = _same
    check: Callable[[Any], bool] | None = None
    want: str = ""


def _strict_whole(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid("is not a whole number")
    return value


def _soft_whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _decimal(value: Any) -> Decimal:
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise Invalid("is not a decimal number") from None


PLAIN: Final = Coder()
TEXT: Final = Coder(load=str)
WHOLE: Final = Coder(load=parse_whole)  # an integer or a string of digits
STRICT_WHOLE: Final = Coder(load=_strict_whole)  # an integer only
SOFT_WHOLE: Final = Coder(load=_soft_whole)  # an integer, anything else None (an optional game number)
NUMBER: Final = Coder(load=float)
DECIMAL: Final = Coder(dump=str, load=_decimal)
ODDS: Final = Coder(dump=format_odds, load=parse_odds)


def tuple_of(item: Coder) -> Coder:
    """A tuple written as a JSON array of `item`s."""
    return Coder(lambda v: [item.dump(x) for x in v], lambda v: tuple(item.load(x) for x in v))


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise Invalid("is not an object")
    return dict(value)


OBJECT: Final = Coder(dict, _object)  # a JSON object kept as it is
TEXT_MAP: Final = Coder(dict, lambda v: {str(k): str(x) for k, x in _object(v).items()})


def record(cls: type[Record]) -> Coder:
    """A nested Record (a paid wager, a PIN hash)."""
    return Coder(lambda v: v.to_json(), cls.from_json)


def fact(
    *,
    key: str | None = None,
    legacy: tuple[str, ...] = (),
    coder: Coder | None = None,
    omit: bool = False,
    null: bool = False,
    when: Callable[[Any], bool] | None = None,
    journal: bool = True,
    flat: bool = False,
) -> dict[str, Any]:
    """A field's JSON spelled out, as its metadata: `x: T = field(metadata=fact(...))` (see the
    module docstring)."""
    options = {"key": key, "legacy": legacy, "coder": coder, "omit": omit, "null": null}
    return {_META: options | {"when": when, "journal": journal, "flat": flat}}


def maybe_whole(*, null: bool = False) -> Any:
    """An optional whole number (a wheel's game number, a seat): a value that is not one reads as None,
    as it always has; left out when None (`null=True`: written as null)."""
    return dataclasses.field(default=None, metadata=fact(coder=SOFT_WHOLE, null=null))


@dataclass(frozen=True, slots=True)
class Spec:
    """One field as the codec travels it."""

    name: str
    path: tuple[str, ...]
    top: str  # the key when `path` is one key ("": a nested or flat field)
    simple: bool  # one key and no legacy spelling: `top` is the only place to look
    legacy: tuple[str, ...]
    coder: Coder
    optional: bool
    has_default: bool
    write_null: bool
    when: Callable[[Any], bool] | None
    journal: bool
    flat: bool

    @property
    def key(self) -> str:
        return ".".join(self.path)

    def find(self, d: Mapping[str, Any]) -> tuple[bool, Any]:
        for key in (self.path, *((k,) for k in self.legacy)):
            at: Any = d
            for part in key[:-1]:
                at = at.get(part) if isinstance(at, Mapping) else None
            if isinstance(at, Mapping) and key[-1] in at:
                return True, at[key[-1]]
        return False, None


def _unoptional(hint: Any) -> tuple[Any, bool]:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) != len(typing.get_args(hint)):
            return (args[0] if len(args) == 1 else typing.Union[tuple(args)]), True  # noqa: UP007
    return hint, False


def coder_for(hint: Any) -> Coder:
    """The coder a type hint implies (TypeError for one that needs an explicit `coder`)."""
    origin = typing.get_origin(hint)
    if hint is str or origin is Literal:
        return TEXT
    if hint is bool:
        return PLAIN
    if hint is int:
        return WHOLE
    simple = {float: NUMBER, Decimal: DECIMAL, Fraction: ODDS}.get(hint)
    if simple is not None:
        return simple
    if isinstance(hint, type) and issubclass(hint, Record):
        return record(hint)
    args = typing.get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return tuple_of(coder_for(args[0]))
    if origin is Mapping and args == (str, str):
        return TEXT_MAP
    if origin is Mapping:
        return OBJECT
    raise TypeError(f"no coder for {hint!r}: give the field one (fact(coder=...))")


class Record:
    """Base of every payload class: `to_json` and `from_json` from the fields' declarations.

    Class keywords: `tagged=True` writes {"type": cls.type} first (the round's and the bonus game's
    events); `const={key: value}` writes constant keys first, and reading checks them."""

    __slots__ = ()
    _const: ClassVar[dict[str, str]] = {}
    _tagged: ClassVar[bool] = False
    _check_const: ClassVar[bool] = False
    _specs: ClassVar[tuple[Spec, ...]]

    def __init_subclass__(cls, *, tagged: bool | None = None, const: Mapping[str, str] | None = None) -> None:
        super().__init_subclass__()
        if tagged is not None:
            cls._tagged = tagged
        if const is not None:
            cls._const, cls._check_const = dict(const), True

    @classmethod
    def _malformed(cls, why: str) -> Exception:
        """The error of a payload the codec refuses (a subclass may give its own kind of error)."""
        return ValueError(why)

    @classmethod
    def specs(cls) -> tuple[Spec, ...]:
        """The fields as the codec travels them (worked out once per class, at first use: the hints
        of `from __future__ import annotations` resolve only once the module is loaded)."""
        found = cls.__dict__.get("_specs")
        if found is None:
            found = tuple(_spec(f, hint) for f, hint in _fields(cls))
            cls._specs = found
        return found

    def _constants(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type} if self._tagged else {}  # type: ignore[attr-defined]
        out.update(self._const)
        return out

    def _write(self, journal: bool) -> dict[str, Any]:
        out = self._constants()
        for s in self.specs():
            if journal and not s.journal:
                continue
            value = getattr(self, s.name)
            if s.when is not None:
                if not s.when(self):
                    continue
            elif value is None and not s.write_null:
                continue
            raw = None if value is None else s.coder.dump(value)
            if s.top:
                out[s.top] = raw
                continue
            if s.flat:
                out.update(raw or {})
                continue
            at = out
            for part in s.path[:-1]:
                at = at.setdefault(part, {})
            at[s.path[-1]] = raw
        return out

    def to_json(self) -> dict[str, Any]:
        """The payload journaled: plain JSON values, every field as declared."""
        return self._write(journal=True)

    def wire_json(self) -> dict[str, Any]:
        """`to_json()` plus the fields the journal does not keep (`journal=False`)."""
        return self._write(journal=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Self:
        """The payload of a mapping: keys it does not declare are ignored (journal metadata)."""
        if type(d) is not dict and not isinstance(d, Mapping):
            raise cls._malformed(f"a {cls.__name__} payload must be a mapping, not {type(d).__name__}")
        if cls._check_const:
            for key, want in cls._const.items():
                if d.get(key) != want:
                    raise cls._malformed(f"{key} {d.get(key)!r} is not {want!r}")
        args: dict[str, Any] = {}
        for s in cls.specs():
            if s.flat:
                args[s.name] = s.coder.load(d)
                continue
            if s.top in d:  # the common case first (a rebuild reads millions of payloads)
                value = d[s.top]
            else:
                found, value = (False, None) if s.simple else s.find(d)
                if not found and s.has_default:
                    continue
                if not found and not s.optional:
                    raise KeyError(s.key)
            if value is None and s.optional:
                args[s.name] = None
                continue
            try:
                args[s.name] = s.coder.load(value)
            except Invalid as exc:
                raise cls._malformed(f"{s.key} {value!r} {exc}") from None
        return cls(**args)


def _fields(cls: type) -> list[tuple[dataclasses.Field[Any], Any]]:
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls) if f.init]


def _spec(f: dataclasses.Field[Any], hint: Any) -> Spec:
    o = f.metadata.get(_META, {})
    inner, optional = _unoptional(hint)
    has_default = f.default is not MISSING or f.default_factory is not MISSING
    # None is written when the field has no default (a fact always stated, possibly unknown), left
    # out when its default is None (a fact only some entries have), unless the field says otherwise.
    write_null = o.get("null", False) or not (has_default or o.get("omit", False))
    path = tuple((o.get("key") or f.name).split("."))
    return Spec(
        name=f.name,
        path=path,
        top=path[0] if len(path) == 1 and not o.get("flat") else "",
        simple=len(path) == 1 and not o.get("legacy"),
        legacy=o.get("legacy", ()),
        coder=o.get("coder") or coder_for(inner),
        optional=optional,
        has_default=has_default,
        write_null=write_null,
        when=o.get("when"),
        journal=o.get("journal", True),
        flat=o.get("flat", False),
    )


__all__ = [
    "DECIMAL",
    "NUMBER",
    "OBJECT",
    "ODDS",
    "PLAIN",
    "SOFT_WHOLE",
    "STRICT_WHOLE",
    "TEXT",
    "TEXT_MAP",
    "WHOLE",
    "Coder",
    "Invalid",
    "Record",
    "Spec",
    "coder_for",
    "fact",
    "maybe_whole",
    "record",
    "tuple_of",
]
