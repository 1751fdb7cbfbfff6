"""The Rules Submission (§ 601a.2): one TOML file of the operator's approved game options.

`load_rules(path)` reads and validates it against § 617b.12; every violation names its key
path and the clause it breaks. Values are exact (Fraction for odds, Decimal for money).
Schema 1 is documented in docs/rules-submission.md.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from engine.bets import INSIDE_LINES, INSIDE_SIZES, KIND, PAYOUT_KEYS, PAYOUT_LINES, Bet
from engine.errors import RulesError

SCHEMA = 1
LUCKY_COUNTS_ALLOWED = (1, 3, 5, 10)  # § 617b.12(e)
LUCKY_ODDS_MIN, LUCKY_ODDS_MAX = Fraction(49), Fraction(499)  # § 617b.12(f), straight up
BONUS_MIN, BONUS_MAX = Fraction(29), Fraction(4999)  # § 617b.12(l), straight up
BONUS_ROUNDS = 6  # § 617b.12(h)
BOXES_PER_ROUND = 5
MULTIPLIER_BOXES = (5, 4, 3, 2, 2, 1)  # § 617b.12(h)(1)-(5)
CASH_OUT_FROM_ROUND = 3  # § 617b.12(j): "following round 2"
RANDOM_PICK_ROUNDS = (1, 2)  # § 617b.12(i)(1)

# § 617b.12(f) and (l) ranges for an n-number inside wager, as "to 1" odds.
# (The inside sizes, the paytable's keys and the (l) ranges are engine.bets' table of bet kinds.)
LUCKY_RANGE_BY_SIZE = {n: (LUCKY_ODDS_MIN / n, LUCKY_ODDS_MAX / n) for n in INSIDE_SIZES}
BONUS_RANGE_BY_SIZE = {line.size: line.bonus_range for line in INSIDE_LINES if line.bonus_range}

# Chapter 617a's single-zero odds, "36/n - 1 to 1" (35, 17, 11, 8, 5; 1 even money; 2 dozen and
# column): what § 617b.12(b) applies to outside wagers unless the Rules Submission varies them.
CHAPTER_617A_ODDS = {line.key: Fraction(36, line.size) - 1 for line in PAYOUT_LINES}
OUTSIDE_KEYS = tuple(line.key for line in PAYOUT_LINES if not line.inside)
# The band of return to player a paytable is expected in (warning outside it; [math] may move it).
RTP_MIN_DEFAULT, RTP_MAX_DEFAULT = Fraction(90, 100), Fraction(995, 1000)
# No clause of § 617b.12 or Chapter 617a states a figure: "the house keeps an edge" is the
# project's rule for a submission, documented in docs/rules-submission.md ([math]).
RTP_CLAUSE = "house advantage, docs/rules-submission.md [math]"

# The smallest chip a table uses (the croupier station's chip values start at 1): payouts may be
# rounded down to it, or to the wager unit when that is larger, never to more.
SMALLEST_CHIP = Decimal(1)
LIMIT_KEYS = ("minimum", "maximum_inside", "maximum_outside", "maximum_per_player")
_ALLOWED_KEYS: dict[str, set[str] | None] = {
    "": {"schema", "name", "description", "payouts", "wagers", "lucky", "bonus", "limits", "math"},
    "payouts": set(PAYOUT_KEYS),
    "wagers": {"trios", "first_four", "unit", "rounding", "vary_outside_odds"},
    "math": {"rtp_min", "rtp_max"},
    "lucky": {"counts", "odds"},
    "bonus": {"timer_seconds", "rounds"},
    "limits": set(LIMIT_KEYS),
}


@dataclass(frozen=True)
class Limits:
    """Table limits per wager and per player and round (None = no limit)."""

    minimum: Decimal | None = None
    maximum_inside: Decimal | None = None
    maximum_outside: Decimal | None = None
    maximum_per_player: Decimal | None = None


@dataclass(frozen=True)
class RulesSubmission:
    """A validated Rules Submission. Build it with `load_rules` or `parse_rules`."""

    name: str
    base_odds: Mapping[str, Fraction]  # PAYOUT_KEYS -> "N to 1"
    trios: bool
    first_four: bool
    unit: Decimal
    rounding: Decimal
    lucky_counts: Mapping[int, int]  # k -> weight
    lucky_odds: Mapping[Fraction, int]  # straight-up X -> weight
    bonus_timer_seconds: int
    bonus_rounds: tuple[Mapping[Fraction, int], ...]  # six tables: multiplier -> weight
    limits: Limits
    sha256: str  # identity of the exact text that was loaded
    description: str = ""
    rtp_min: Fraction = RTP_MIN_DEFAULT  # [math]: the expected band of return to player
    rtp_max: Fraction = RTP_MAX_DEFAULT
    vary_outside_odds: bool = False  # [wagers]: the outside odds are submitted, not Chapter 617a's

    def base_payout(self, bet: Bet) -> Fraction:
        """The base "N to 1" odds of a bet (neither Lucky nor Bonus)."""
        return self.base_odds[KIND[bet.kind].payout_key]

    @property
    def max_bonus(self) -> Fraction:
        """Largest possible bonus-game outcome: the sum of each round's largest multiplier."""
        return sum((max(t) for t in self.bonus_rounds), Fraction(0))


@dataclass(frozen=True)
class Violation:
    key: str
    clause: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message} ({self.clause})"


def load_rules(path: str | Path) -> RulesSubmission:
    """Read and validate a Rules Submission file; RulesError lists every violation.

    Structural only, like `parse_rules`: the return-to-player refusal (engine.math.rules_gate's
    `math_check`) is `check_rules_file`'s, the gate of `drr rules check`, `drr math`, `drr simulate`
    and `drr rng`; a table loads for play only through engine.rules_play (`rules_for_play`), which
    adds it (a worked example with a return over 100% must still load for its settlement tests)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise RulesError(f"{p}: cannot read the Rules Submission: {exc.strerror or exc}") from None
    return parse_rules(raw, source=str(p))


def default_rules_path() -> Path:
    from resources import resource_path

    return resource_path("rules", "default.toml")


def load_default_rules() -> RulesSubmission:
    return load_rules(default_rules_path())


def parse_rules(raw: bytes, source: str = "<rules>") -> RulesSubmission:
    try:
        # utf-8-sig: a byte-order mark, as some Windows editors write, is not part of the text.
        doc = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise RulesError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise RulesError(f"{source}: not valid TOML: tables or arrays nested too deeply") from None
    violations, rules = _validate(doc, hashlib.sha256(raw).hexdigest())
    if violations or rules is None:
        lines = [str(v) for v in violations]
        raise RulesError(
            f"{source}: {len(lines)} violation(s) of § 617b.12:\n  " + "\n  ".join(lines), violations=lines
        )
    return rules


# --- validation -----------------------------------------------------------------------------


_MAX_PLACES = 15  # numbers in a Rules Submission lie within 1e-15 .. 1e15


class _Checker:
    def __init__(self) -> None:
        self.violations: list[Violation] = []

    def bad(self, key: str, clause: str, message: str) -> None:
        self.violations.append(Violation(key, clause, message))

    def table(self, doc: Mapping[str, Any], key: str, clause: str) -> Mapping[str, Any]:
        value = doc.get(key)
        if value is None:
            self.bad(key, clause, "missing table")
            return {}
        if not isinstance(value, Mapping):
            self.bad(key, clause, "must be a table")
            return {}
        return value

    def number(self, value: Any, key: str, clause: str) -> Fraction | None:
        """A positive exact number from an int, a decimal string or a float written in TOML."""
        if isinstance(value, bool):
            self.bad(key, clause, f"must be a number, not {value!r}")
            return None
        try:
            if isinstance(value, int):
                result = Fraction(value)
            elif isinstance(value, float | str):
                # A TOML float like 6.5 is exact in binary; go through its shortest repr so
                # 0.1-style values mean what the author wrote.
                dec = Decimal(str(value).strip())
                if not dec.is_finite():
                    raise ValueError
                if dec and not -_MAX_PLACES <= dec.adjusted() <= _MAX_PLACES:
                    # Fraction("1e-999999999") would build a billion-digit integer first.
                    self.bad(key, clause, f"{value!r} is out of range")
                    return None
                result = Fraction(dec)
            else:
                raise TypeError
        except (TypeError, ValueError, ArithmeticError):
            self.bad(key, clause, f"must be a number, not {value!r}")
            return None
        if result <= 0:
            self.bad(key, clause, f"must be positive, not {value!r}")
            return None
        return result

    def decimal(self, value: Any, key: str, clause: str) -> Decimal | None:
        number = self.number(value, key, clause)
        if number is None:
            return None
        dec = Decimal(str(value))
        if not dec.is_finite():
            self.bad(key, clause, f"must be a finite amount, not {value!r}")
            return None
        return dec

    def weight(self, value: Any, key: str, clause: str) -> int | None:
        if isinstance(value, Mapping):
            # TOML reads `{ 6.5 = 10 }` as the dotted key 6 -> 5 -> 10.
            self.bad(key, clause, 'a value with a decimal point must be quoted, e.g. "6.5" = 10')
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            self.bad(key, clause, f"weight must be a positive integer, not {value!r}")
            return None
        return value

    def weighted(self, value: Any, key: str, clause: str) -> dict[Fraction, int]:
        if not isinstance(value, Mapping) or not value:
            self.bad(key, clause, "must be a non-empty table of value = weight")
            return {}
        out: dict[Fraction, int] = {}
        for k, w in value.items():
            num = self.number(k, f"{key}.{k}", clause)
            wt = self.weight(w, f"{key}.{k}", clause)
            if num is not None and wt is not None:
                if num in out:
                    self.bad(f"{key}.{k}", clause, "repeats a value")
                out[num] = wt
        return out


def _unknown_keys(c: _Checker, doc: Mapping[str, Any]) -> None:
    for section, allowed in _ALLOWED_KEYS.items():
        table = doc if section == "" else doc.get(section)
        if not isinstance(table, Mapping) or allowed is None:
            continue
        for key in table:
            if key not in allowed:
                path = key if section == "" else f"{section}.{key}"
                c.bad(path, "docs/rules-submission.md", "unknown key (a typo would silently change nothing)")


def _validate(doc: Mapping[str, Any], sha: str) -> tuple[list[Violation], RulesSubmission | None]:
    """Every clause checked in the order the report lists them (each step below adds its violations)."""
    c = _Checker()
    _unknown_keys(c, doc)
    name, description = _check_header(c, doc)
    base = _check_payouts(c, doc)
    trios, first_four, vary_outside, unit, rounding = _check_wagers(c, doc, base)
    counts, odds = _check_lucky(c, doc)
    timer, rounds = _check_bonus(c, doc)
    _check_lucky_sizes(c, odds)
    limits = _check_limits(c, doc)
    rtp_band = _check_math(c, doc)
    if c.violations or unit is None or rounding is None:
        return c.violations, None
    return [], RulesSubmission(
        name=str(name).strip(),
        description=description,
        base_odds=base,
        trios=bool(trios),
        first_four=bool(first_four),
        unit=unit,
        rounding=rounding,
        lucky_counts=dict(sorted(counts.items())),
        lucky_odds=dict(sorted(odds.items())),
        bonus_timer_seconds=timer,
        bonus_rounds=tuple(dict(sorted(t.items())) for t in rounds),
        limits=limits,
        sha256=sha,
        rtp_min=rtp_band[0],
        rtp_max=rtp_band[1],
        vary_outside_odds=vary_outside,
    )


def _check_header(c: _Checker, doc: Mapping[str, Any]) -> tuple[str, str]:
    """The schema, the game's name and description."""
    if doc.get("schema") != SCHEMA:
        c.bad("schema", "docs/rules-submission.md", f"must be {SCHEMA}, not {doc.get('schema')!r}")
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        c.bad("name", "§ 601a.2", "must be a non-empty string")
        name = ""
    description = doc.get("description", "")
    if not isinstance(description, str):
        c.bad("description", "docs/rules-submission.md", "must be a string")
        description = ""
    return name, description


def _check_payouts(c: _Checker, doc: Mapping[str, Any]) -> dict[str, Fraction]:
    """Base payouts: Chapter 617a single-zero roulette as varied by this game (§ 617b.12(b))."""
    payouts = c.table(doc, "payouts", "§ 617b.12(b)")
    base: dict[str, Fraction] = {}
    for key in PAYOUT_KEYS:
        if key not in payouts:
            if payouts:
                c.bad(f"payouts.{key}", "§ 617b.12(b)", "missing")
            continue
        value = c.number(payouts[key], f"payouts.{key}", "§ 617b.12(b)")
        if value is not None:
            base[key] = value
    # Inside base odds are the submission's own (the default lowers 617a's 35 to 29, which the
    # Lucky and Bonus payouts make up for); the return-to-player check bounds them. § 617b.12(l)
    # governs bonus-game payouts only, not these.
    return base


def _check_wagers(
    c: _Checker, doc: Mapping[str, Any], base: dict[str, Fraction]
) -> tuple[Any, Any, bool, Decimal | None, Decimal | None]:
    """The wagers offered (§ 617a.3(e)), outside odds as Chapter 617a's unless varied, the unit and
    the payout rounding (§ 601a.2): (trios, first_four, vary_outside_odds, unit, rounding)."""
    wagers = doc.get("wagers", {})
    if not isinstance(wagers, Mapping):
        c.bad("wagers", "§ 617a.3(e)", "must be a table")
        wagers = {}
    trios = wagers.get("trios", True)
    first_four = wagers.get("first_four", True)
    for key, flag in (("trios", trios), ("first_four", first_four)):
        if not isinstance(flag, bool):
            c.bad(f"wagers.{key}", "§ 617a.3(e)", f"must be true or false, not {flag!r}")
    vary_outside = wagers.get("vary_outside_odds", False)
    if not isinstance(vary_outside, bool):
        c.bad("wagers.vary_outside_odds", "§ 601a.2", f"must be true or false, not {vary_outside!r}")
        vary_outside = False
    if not vary_outside:
        for key in OUTSIDE_KEYS:
            if key in base and base[key] != CHAPTER_617A_ODDS[key]:
                c.bad(
                    f"payouts.{key}",
                    "§ 617b.12(b), Chapter 617a",
                    f"{_fmt(base[key])} to 1 is not Chapter 617a's {_fmt(CHAPTER_617A_ODDS[key])} to 1 "
                    "(a varied outside payout needs wagers.vary_outside_odds = true)",
                )
    unit = c.decimal(wagers.get("unit", "0.01"), "wagers.unit", "§ 601a.2")
    rounding = c.decimal(wagers.get("rounding", "0.01"), "wagers.rounding", "§ 601a.2")
    if unit is not None and rounding is not None and rounding > max(unit, SMALLEST_CHIP):
        # Payouts rounded down by more than the smallest chip (or stake) would swallow whole wins.
        c.bad(
            "wagers.rounding",
            "§ 601a.2",
            f"{rounding} is coarser than the smallest chip ({max(unit, SMALLEST_CHIP)})",
        )
    return trios, first_four, vary_outside, unit, rounding


def _check_lucky(c: _Checker, doc: Mapping[str, Any]) -> tuple[dict[int, int], dict[Fraction, int]]:
    """Lucky Numbers: how many (§ 617b.12(e)) and their straight-up odds (§ 617b.12(f))."""
    lucky = c.table(doc, "lucky", "§ 617b.12(e)")
    counts: dict[int, int] = {}
    raw_counts = lucky.get("counts") if lucky else None
    if lucky and (not isinstance(raw_counts, Mapping) or not raw_counts):
        c.bad("lucky.counts", "§ 617b.12(e)", "must be a non-empty table of count = weight")
    elif isinstance(raw_counts, Mapping):
        for k, w in raw_counts.items():
            key = f"lucky.counts.{k}"
            # Keys written as TOML spells them: " 1" or "01" would silently merge with 1.
            count = int(k) if isinstance(k, str) and k.isascii() and k.isdigit() and str(int(k)) == k else -1
            if count in counts:
                c.bad(key, "§ 617b.12(e)", "repeats a count")
            if count not in LUCKY_COUNTS_ALLOWED:
                c.bad(key, "§ 617b.12(e)", f"the RNG selects 1, 3, 5 or 10 Lucky Numbers, not {k!r}")
            wt = c.weight(w, key, "§ 617b.12(e)")
            if count in LUCKY_COUNTS_ALLOWED and wt is not None:
                counts[count] = wt
    odds: dict[Fraction, int] = {}
    if lucky:
        odds = c.weighted(lucky.get("odds"), "lucky.odds", "§ 617b.12(f)")
        for x in odds:
            if not LUCKY_ODDS_MIN <= x <= LUCKY_ODDS_MAX:
                c.bad(
                    f"lucky.odds.{_fmt(x)}",
                    "§ 617b.12(f)",
                    f"straight-up Lucky payout {_fmt(x)} to 1 is outside 49 to 1 - 499 to 1",
                )
    return counts, odds


def _check_bonus(c: _Checker, doc: Mapping[str, Any]) -> tuple[int, list[dict[Fraction, int]]]:
    """Bonus game: six rounds (§ 617b.12(h)), timer (§ 617b.12(i)), payout range (§ 617b.12(k),(l))."""
    bonus = c.table(doc, "bonus", "§ 617b.12(h)")
    timer = bonus.get("timer_seconds", 20) if bonus else 20
    if isinstance(timer, bool) or not isinstance(timer, int) or not 5 <= timer <= 300:
        c.bad(
            "bonus.timer_seconds",
            "§ 617b.12(i)",
            f"must be a whole number of seconds from 5 to 300, not {timer!r}",
        )
        timer = 20
    rounds: list[dict[Fraction, int]] = []
    raw_rounds = bonus.get("rounds") if bonus else None
    if bonus:
        if not isinstance(raw_rounds, list) or len(raw_rounds) != BONUS_ROUNDS:
            got = len(raw_rounds) if isinstance(raw_rounds, list) else type(raw_rounds).__name__
            c.bad("bonus.rounds", "§ 617b.12(h)", f"must list exactly six round tables, not {got}")
        else:
            rounds = [
                c.weighted(t, f"bonus.rounds[{i + 1}]", "§ 617b.12(h)") for i, t in enumerate(raw_rounds)
            ]
    if len(rounds) == BONUS_ROUNDS and all(rounds):
        low1 = min(rounds[0])
        if low1 < BONUS_MIN:
            c.bad(
                "bonus.rounds[1]",
                "§ 617b.12(k),(l)",
                f"smallest round-1 multiplier {_fmt(low1)} is below 29 to 1, the least a bonus game may pay",
            )
        top = sum((max(t) for t in rounds), Fraction(0))
        if top > BONUS_MAX:
            c.bad(
                "bonus.rounds",
                "§ 617b.12(l)",
                f"the largest possible sum of six picks is {_fmt(top)}, above the 4,999 to 1 maximum",
            )
        # The n-number rule B/n must stay inside (l)'s range for every inside wager size.
        for n, (lo, hi) in BONUS_RANGE_BY_SIZE.items():
            if low1 >= BONUS_MIN and top <= BONUS_MAX and (low1 / n < lo or top / n > hi):
                c.bad(
                    "bonus.rounds",
                    "§ 617b.12(l)",
                    f"{n}-number bonus payouts leave {_fmt(lo)}-{_fmt(hi)} to 1",
                )
    return timer, rounds


def _check_lucky_sizes(c: _Checker, odds: dict[Fraction, int]) -> None:
    """Lucky payouts of every inside wager size inside (f)'s n-number range (after the bonus checks,
    as the report has always listed them)."""
    # X/n for an n-number wager stays in (f)'s n-number range exactly when X is in 49..499, so
    # these lines only add to the report when no straight-up value was refused above.
    if odds and all(LUCKY_ODDS_MIN <= x <= LUCKY_ODDS_MAX for x in odds):
        for n, (lo, hi) in LUCKY_RANGE_BY_SIZE.items():
            if min(odds) / n < lo or max(odds) / n > hi:
                c.bad(
                    "lucky.odds", "§ 617b.12(f)", f"{n}-number Lucky payouts leave {_fmt(lo)}-{_fmt(hi)} to 1"
                )


def _check_limits(c: _Checker, doc: Mapping[str, Any]) -> Limits:
    """The table's limits (§ 601a.2): every maximum at or above the minimum."""
    limits_doc = doc.get("limits", {})
    limits = Limits()
    if not isinstance(limits_doc, Mapping):
        c.bad("limits", "§ 601a.2", "must be a table")
    else:
        values = {
            k: c.decimal(v, f"limits.{k}", "§ 601a.2") for k, v in limits_doc.items() if k in LIMIT_KEYS
        }
        limits = Limits(**{k: v for k, v in values.items() if v is not None})
        if limits.minimum is not None:
            for key in ("maximum_inside", "maximum_outside", "maximum_per_player"):
                top = getattr(limits, key)
                if top is not None and top < limits.minimum:
                    c.bad(f"limits.{key}", "§ 601a.2", f"{top} is below the table minimum {limits.minimum}")
    return limits


def _check_math(c: _Checker, doc: Mapping[str, Any]) -> list[Fraction]:
    """The expected band of return to player ([math] rtp_min, rtp_max), as fractions of 1."""
    math_doc = doc.get("math", {})
    rtp_band = [RTP_MIN_DEFAULT, RTP_MAX_DEFAULT]
    if not isinstance(math_doc, Mapping):
        c.bad("math", "docs/rules-submission.md", "must be a table")
    else:
        for i, key in enumerate(("rtp_min", "rtp_max")):
            if key in math_doc:
                pct = c.number(math_doc[key], f"math.{key}", "docs/rules-submission.md")
                if pct is not None and pct >= 100:
                    c.bad(f"math.{key}", RTP_CLAUSE, f"{_fmt(pct)}% is not below 100%")
                elif pct is not None:
                    rtp_band[i] = pct / 100
        if rtp_band[0] >= rtp_band[1]:
            c.bad("math.rtp_min", "docs/rules-submission.md", "must be below math.rtp_max")
    return rtp_band


def _fmt(x: Fraction) -> str:
    """An odds value for messages: whole numbers plain, others as a short decimal."""
    if x.denominator == 1:
        return str(x.numerator)
    return f"{float(x):.4f}".rstrip("0").rstrip(".")
