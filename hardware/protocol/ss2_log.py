"""The SS2 wheel's own record decoded exactly: log pages, win/misfire tables, chi-square, clock, calibration.

Guide § 6 (`../../shared/docs/wheel-protocol-ss2.md`): `*s t` → `*s t <pages used>`; `*s r <page>` →
`*s r <page> <256 data bytes><2 hex checksum>`, the checksum the sum of the data bytes mod 256; a
result r (0–37) is stored as r+0x21, a misfire in pocket p as 38+p+0x21 (0x47–0x6C), `~` marks an
unused byte. So any data byte may be `*` (result 9) or `;` (result 26): a page is never cut at them.
`*W`/`*M` answer with the total, then the list (the guide leaves the list's layout open: the counts
may come on one line or several; they are read in order, pocket 0 first, and must add up to the
total). A page whose checksum fails is kept with `checksum_ok` false and its entries are not used.
Pure functions: no Qt, no serial, no journal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

PAGE_BYTES = 256
RESULT_BASE = 0x21  # result r is stored as r + 0x21
MISFIRE_BASE = RESULT_BASE + 38  # a misfire in pocket p: 38 + p + 0x21
MAX_CODE = 37  # results and misfire pockets 0-37 (37 is the double zero)
UNUSED = "~"
POCKETS = 37  # the tables' length on a single-zero wheel (pocket 0 first)


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One used byte of a log page: a winning number, or a misfire in a pocket."""

    kind: str  # "result" or "misfire"
    pocket: int

    def to_json(self) -> dict[str, int]:
        return {self.kind: self.pocket}


@dataclass(frozen=True, slots=True)
class LogPage:
    """One `*s r` page. `entries` is empty when the checksum fails (nothing on it is trusted)."""

    page: int
    checksum_ok: bool
    entries: tuple[LogEntry, ...]
    problem: str | None = None  # why the page is not trusted, in words

    def to_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "checksum_ok": self.checksum_ok,
            "entries": [e.to_json() for e in self.entries],
        }


def page_checksum(data: str) -> int:
    """The guide's checksum: the sum of the data bytes mod 256."""
    return sum(data.encode("latin-1")) % 256


def decode_byte(ch: str) -> LogEntry | str | None:
    """One data byte: its entry, None for `~` (unused), or the reason it is no entry."""
    if ch == UNUSED:
        return None
    code = ord(ch)
    if RESULT_BASE <= code <= RESULT_BASE + MAX_CODE:
        return LogEntry("result", code - RESULT_BASE)
    if MISFIRE_BASE <= code <= MISFIRE_BASE + MAX_CODE:
        return LogEntry("misfire", code - MISFIRE_BASE)
    return f"byte 0x{code:02X} is neither a result, a misfire nor unused"


def decode_page(text: str) -> LogPage | str:
    """A `*s r` reply (with or without the `*s `: `r 3 <data><cs>`) as a page, or why it is none."""
    body = text[3:] if text.startswith("*s ") else text
    parts = body.split(" ", 2)
    if len(parts) != 3 or parts[0] != "r":
        return "not a '*s r <page> <data><checksum>' line"
    number, blob = parts[1], parts[2].rstrip("\r\n")
    if not (number.isascii() and number.isdigit()):
        return f"page number {number!r} is not a number"
    page = int(number)
    if len(blob) != PAGE_BYTES + 2:
        return LogPage(page, False, (), f"{len(blob)} bytes after the page number, expected {PAGE_BYTES} + 2")
    data, check = blob[:PAGE_BYTES], blob[PAGE_BYTES:]
    if not re.fullmatch(r"[0-9A-Fa-f]{2}", check):
        return LogPage(page, False, (), f"checksum {check!r} is not two hex digits")
    try:
        computed = page_checksum(data)
    except UnicodeEncodeError:
        return LogPage(page, False, (), "a data byte above 0xFF")
    if computed != int(check, 16):
        return LogPage(page, False, (), f"checksum {check} on the line, {computed:02X} computed")
    entries: list[LogEntry] = []
    for offset, ch in enumerate(data):
        decoded = decode_byte(ch)
        if isinstance(decoded, str):
            # A checksum that fits over a byte the guide gives no meaning: the page is not trusted.
            return LogPage(page, False, (), f"offset {offset}: {decoded}")
        if decoded is not None:
            entries.append(decoded)
    return LogPage(page, True, tuple(entries))


def encode_byte(entry: LogEntry) -> str:
    """The log's character for one entry (`decode_byte`'s inverse)."""
    return chr((RESULT_BASE if entry.kind == "result" else MISFIRE_BASE) + entry.pocket)


def encode_page(page: int, entries: list[LogEntry]) -> str:
    """The `*s r` reply text for a page (the virtual wheel's, and tests'): `*s r <page> <data><cs>`."""
    if len(entries) > PAGE_BYTES:
        raise ValueError(f"a page holds {PAGE_BYTES} entries, not {len(entries)}")
    data = "".join(map(encode_byte, entries)).ljust(PAGE_BYTES, UNUSED)
    return f"*s r {page} {data}{page_checksum(data):02X}"


def parse_pages_used(text: str) -> int | None:
    """`*s t <pages used>` (or its text `t <n>`): the count, or None."""
    body = text[3:] if text.startswith("*s ") else text
    words = body.split()
    if len(words) == 2 and words[0] == "t" and words[1].isascii() and words[1].isdigit():
        return int(words[1])
    return None


@dataclass
class CountTable:
    """A `*W` or `*M` answer being read: the total line, then the counts (pocket 0 first)."""

    total: int | None = None
    counts: list[int] = field(default_factory=list)

    def feed(self, text: str) -> bool:
        """One reply line's text after the key; False if it is not part of a table (BUSY, junk)."""
        words = text.split()
        if not words or not all(w.isascii() and w.isdigit() for w in words):
            return False
        if self.total is None or (len(words) == 1 and self.complete):
            self.total, self.counts = int(words[0]), []  # a new answer starts with its total
            return True
        self.counts.extend(int(w) for w in words)
        return True

    @property
    def complete(self) -> bool:
        return self.total is not None and len(self.counts) >= POCKETS and sum(self.counts) == self.total


def parse_chi_square(text: str) -> tuple[Decimal, Decimal] | None:
    """`*w <chi-squared> <percent>` (text after the key): the two figures, exact, or None."""
    words = text.split()
    if len(words) != 2:
        return None
    try:
        return Decimal(words[0]), Decimal(words[1])
    except InvalidOperation:
        return None


_CLOCK = re.compile(r"g\s+(\d{2}):(\d{2}):(\d{2})\s*\S?\s*(\d{2})/(\d{2})/(\d{2})\s*")


def parse_clock(text: str) -> datetime | None:
    """`*d g HH:MM:SS – DD/MM/YY` (text after the key; the dash may be any one character): the
    wheel's clock as a naive datetime, or None."""
    m = _CLOCK.fullmatch(text.strip())
    if m is None:
        return None
    hh, mm, ss, dd, mo, yy = (int(g) for g in m.groups())
    try:
        return datetime(2000 + yy, mo, dd, hh, mm, ss)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Calibration:
    """The outcome of a `*C` run as its reply lines give it (guide § 6)."""

    ok: bool
    ball_direction: str | None  # "clockwise" / "anticlockwise" (sensor order), None if not found
    sensors: tuple[int, ...] | None  # the three positions when completed
    reason: str | None  # in words, when it failed


def calibration_step(text: str) -> tuple[str, str | None]:
    """One `*C` reply line's text after the key as (outcome, detail): "ok", or "fail" with why.

    `BALL : No ball direction found` is a failure although it carries no FAIL word."""
    body = text.strip()
    if body.startswith("FAIL"):
        return "fail", body.partition(":")[2].strip() or body
    if body.startswith("BALL"):
        detail = body.partition(":")[2].strip()
        if detail in ("OK Clockwise", "OK Anti-Clockwise"):
            return "ok", detail
        return "fail", detail or body
    if body.startswith("OK"):
        return "ok", body.partition(":")[2].strip() or None
    return "fail", f"unknown calibration reply {body!r}"


def calibration(lines: list[str]) -> Calibration:
    """A `*C` run's reply lines (texts after the key) in order, as its outcome."""
    direction: str | None = None
    sensors: tuple[int, ...] | None = None
    for text in lines:
        outcome, detail = calibration_step(text)
        if outcome == "fail":
            return Calibration(False, direction, None, detail)
        if detail in ("OK Clockwise", "OK Anti-Clockwise"):
            direction = "clockwise" if detail == "OK Clockwise" else "anticlockwise"
        elif detail is not None and detail.startswith("Completed"):
            found = re.findall(r"-?\d+", detail)
            sensors = tuple(int(v) for v in found)
    if direction is None:
        return Calibration(False, None, sensors, "no ball direction reported")
    if sensors is None:
        return Calibration(False, direction, None, "calibration did not complete")
    return Calibration(True, direction, sensors, None)


class WheelLog:
    """The wheel's record as read from its reply lines (a capture's RX lines, or a live wheel's
    answers), in order: the latest `*s t`, each page's latest read, the latest complete `*W`/`*M`."""

    def __init__(self) -> None:
        self.pages_used: int | None = None
        self.pages: dict[int, LogPage] = {}
        self.unreadable: list[tuple[str, str]] = []  # (line, why) of `*s r` lines that are no page
        self._tables = {"W": CountTable(), "M": CountTable()}
        self.wins: list[int] | None = None
        self.misfires: list[int] | None = None

    def feed(self, raw: str) -> None:
        line = raw.strip(" \t\r\n\0")
        if line.startswith("*s r "):
            page = decode_page(line)
            if isinstance(page, str):
                self.unreadable.append((line, page))
            else:
                self.pages[page.page] = page
        elif line.startswith("*s t "):
            used = parse_pages_used(line)
            if used is not None:
                self.pages_used = used
        elif line[:2] in ("*W", "*M") and (len(line) == 2 or line[2] == " "):
            table = self._tables[line[1]]
            if table.feed(line[2:]) and table.complete:
                counts = table.counts[:POCKETS] if len(table.counts) == POCKETS else list(table.counts)
                if line[1] == "W":
                    self.wins = counts
                else:
                    self.misfires = counts

    def entries(self) -> list[LogEntry]:
        """The entries of the pages whose checksum holds, in page order (failed pages left out)."""
        return [e for k in sorted(self.pages) if self.pages[k].checksum_ok for e in self.pages[k].entries]

    def to_json(self) -> dict[str, Any]:
        """`drr wheel log --json`'s shape (issue 26)."""
        return {
            "pages_used": self.pages_used,
            "pages": [self.pages[k].to_json() for k in sorted(self.pages)],
            "wins": self.wins,
            "misfires": self.misfires,
        }
