"""RNG output collection for independent testing (`drr rng collect`, `drr certify`'s rng/ folder).

Everything goes through the generator the game uses (`engine.rng.SystemRng`) and the code the
game draws with (`engine.rng.draw_lucky_and_bonus`, `engine.bonus_game.BonusGame`): no copy of
the draw logic lives here. Output is streamed row by row, so memory stays constant for any N,
and written to `FILE.partial` first, renamed to FILE only when complete (a lab never gets a
silently truncated file).

Public API (the formats are public contracts, docs/certification.md):

    collect_raw(n_bytes, out, rules=None, progress=None, *, rng=None) -> Collection
        n_bytes raw bytes from `rng.randbelow` (big-endian chunks of randbelow(2**(8*m))).
    collect_draws(n, out, rules=None, progress=None, *, rng=None) -> Collection
        CSV `draw,lucky_numbers,lucky_odds,bonus_number`, one row per Lucky/Bonus draw
        (draw numbered from 1; Lucky Numbers in draw order and their odds in the same order,
        space-separated; odds written as in the Rules Submission: "49", "24.5").
    collect_bonus_games(n, out, rules=None, progress=None, *, rng=None) -> Collection
        CSV `game,round,boxes`, one row per round of each game (six per game), `boxes` = the
        five boxes left to right, space-separated, each a multiplier ("29", "6.5") or "X".

    iter_draws(rules, rng, n) / iter_bonus_games(rules, rng, n): the same samples as Python
        objects (Draw; a tuple of six 5-tuples of Fraction | "X"), for the battery.

`out` is a path; `rules` a RulesSubmission (None = the shipped default; the CLI passes the
installation's, engine.config); `progress(done, total)` is called now and then and at the end;
`rng` defaults to SystemRng() and must be production-safe unless `allow_test_rng=True` (tests
inject biased or seeded generators that way).

To see every round of a game the collector opens the leftmost multiplier box each round (it
knows the hidden contents; a pick consumes no randomness, so it changes nothing that is drawn).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from engine.errors import DrrError
from engine.rng import Draw, Rng, SystemRng, draw_lucky_and_bonus, require_production

if TYPE_CHECKING:
    from engine.bonus_game import BoxContent
    from engine.rules import RulesSubmission

    GameBoxes = tuple[tuple[BoxContent, ...], ...]  # six rounds of five boxes

ProgressFn = Callable[[int, int], None]  # (done, total)

DRAWS_HEADER = "draw,lucky_numbers,lucky_odds,bonus_number"
BONUS_HEADER = "game,round,boxes"
RAW_CHUNK = 4096  # bytes per randbelow call: big enough to be fast, small enough to stream
_PROGRESS_EVERY = 1000  # rows between progress calls


@dataclass(frozen=True)
class Collection:
    """What one collection wrote: kind ("raw", "draws", "bonus_games"), units, file, time."""

    kind: str
    count: int
    path: Path
    bytes_written: int
    seconds: float
    rng: str
    rules_sha256: str

    @property
    def per_second(self) -> float:
        return self.count / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "count": self.count,
            "path": str(self.path),
            "bytes": self.bytes_written,
            "seconds": round(self.seconds, 3),
            "rng": self.rng,
            "rules_sha256": self.rules_sha256,
        }


def odds_text(x: Fraction) -> str:
    """Odds as a Rules Submission writes them: "49", "6.5" (exact; TOML decimals always end)."""
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:  # not a finite decimal (cannot come from a TOML file): the exact fraction
        return f"{x.numerator}/{x.denominator}"
    places = max(twos, fives)
    text = str(Decimal(x.numerator * 10**places // x.denominator).scaleb(-places))
    return text.rstrip("0").rstrip(".") if "." in text else text


def resolve_inputs(rules: RulesSubmission | None, rng: Rng | None, allow_test_rng: bool) -> tuple[Any, Rng]:
    if rules is None:
        from engine.rules import load_default_rules

        rules = load_default_rules()
    if rng is None:
        rng = SystemRng()
    elif not allow_test_rng:
        require_production(rng)
    return rules, rng


def _count(n: int, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise DrrError(f"{what} must be a whole number of at least 1, not {n!r}", exit_code=2)
    return n


class _Output:
    """FILE.partial opened for writing, renamed to FILE on success, removed on failure."""

    def __init__(self, out: str | os.PathLike[str], binary: bool) -> None:
        self.path = Path(out)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.binary = binary
        self.file: IO[Any] | None = None

    def __enter__(self) -> IO[Any]:
        try:
            if self.binary:
                self.file = open(self.partial, "wb")
            else:
                self.file = open(self.partial, "w", encoding="ascii", newline="")
        except OSError as exc:
            raise DrrError(f"{self.path}: cannot write: {exc.strerror or exc}", exit_code=2) from None
        return self.file

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        assert self.file is not None
        self.file.close()
        if exc_type is None:
            os.replace(self.partial, self.path)
        else:
            self.partial.unlink(missing_ok=True)


def collect_raw(
    n_bytes: int,
    out: str | os.PathLike[str],
    rules: RulesSubmission | None = None,
    progress: ProgressFn | None = None,
    *,
    rng: Rng | None = None,
    allow_test_rng: bool = False,
) -> Collection:
    """`n_bytes` raw bytes of the game's generator into `out` (rules only name the record)."""
    n_bytes = _count(n_bytes, "the number of bytes")
    rules, rng = resolve_inputs(rules, rng, allow_test_rng)
    start = time.perf_counter()
    done = 0
    with _Output(out, binary=True) as f:
        while done < n_bytes:
            m = min(RAW_CHUNK, n_bytes - done)
            # One uniform integer below 2**(8m) is exactly m uniform bytes.
            f.write(rng.randbelow(1 << (8 * m)).to_bytes(m, "big"))
            done += m
            if progress is not None and (done % (RAW_CHUNK * 64) == 0 or done == n_bytes):
                progress(done, n_bytes)
    return Collection("raw", n_bytes, Path(out), n_bytes, time.perf_counter() - start, rng.name, rules.sha256)


def iter_draws(rules: RulesSubmission, rng: Rng, n: int) -> Iterator[Draw]:
    """`n` Lucky/Bonus draws, made by the production draw code."""
    for _ in range(n):
        yield draw_lucky_and_bonus(rules, rng)


def draw_row(index: int, draw: Draw) -> str:
    """One line of the draws CSV (without the newline)."""
    numbers = " ".join(str(k) for k in draw.lucky_order)
    odds = " ".join(odds_text(draw.lucky[k]) for k in draw.lucky_order)
    return f"{index},{numbers},{odds},{draw.bonus_number}"


def collect_draws(
    n: int,
    out: str | os.PathLike[str],
    rules: RulesSubmission | None = None,
    progress: ProgressFn | None = None,
    *,
    rng: Rng | None = None,
    allow_test_rng: bool = False,
) -> Collection:
    """`n` draws as CSV `draw,lucky_numbers,lucky_odds,bonus_number` into `out`."""
    n = _count(n, "the number of draws")
    rules, rng = resolve_inputs(rules, rng, allow_test_rng)
    rows = (draw_row(i, draw) + "\n" for i, draw in enumerate(iter_draws(rules, rng, n), start=1))
    return _collect_csv("draws", DRAWS_HEADER, rows, n, out, progress, rng, rules)


def _collect_csv(
    kind: str,
    header: str,
    rows: Iterator[str],
    n: int,
    out: str | os.PathLike[str],
    progress: ProgressFn | None,
    rng: Rng,
    rules: RulesSubmission,
) -> Collection:
    """Write `header` and the text of `n` items (`rows` yields each item's lines) into `out`, timed:
    the one writer of the draws and bonus-games CSVs, so both report progress and size alike."""
    start = time.perf_counter()
    written = 0
    with _Output(out, binary=False) as f:
        written += f.write(header + "\n")
        for i, text in enumerate(rows, start=1):
            written += f.write(text)
            if progress is not None and (i % _PROGRESS_EVERY == 0 or i == n):
                progress(i, n)
    return Collection(kind, n, Path(out), written, time.perf_counter() - start, rng.name, rules.sha256)


def play_bonus_game(rules: RulesSubmission, rng: Rng) -> GameBoxes:
    """The boxes of all six rounds of one bonus game, placed by the production BonusGame."""
    from engine.bonus_game import BonusGame, BoxesPlaced, X

    # A clock that never moves: no timer runs out, so no timeout pick draws extra randomness.
    game = BonusGame.start(rules, rng, player="rng-collect", preset="cash_out", clock=lambda: 0.0)
    rounds: list[tuple[BoxContent, ...]] = []
    events = list(game.events)
    while True:
        placed = events[-1]
        assert isinstance(placed, BoxesPlaced)
        rounds.append(placed.boxes)
        box = next(i for i, b in enumerate(placed.boxes, start=1) if b != X)
        events = game.pick(box)
        if game.finished:
            return tuple(rounds)


def iter_bonus_games(
    rules: RulesSubmission, rng: Rng, n: int
) -> Iterator[tuple[tuple[BoxContent, ...], ...]]:
    """`n` bonus games, each as its six rounds of five boxes."""
    for _ in range(n):
        yield play_bonus_game(rules, rng)


def boxes_text(boxes: tuple[BoxContent, ...]) -> str:
    return " ".join(b if isinstance(b, str) else odds_text(b) for b in boxes)


def collect_bonus_games(
    n: int,
    out: str | os.PathLike[str],
    rules: RulesSubmission | None = None,
    progress: ProgressFn | None = None,
    *,
    rng: Rng | None = None,
    allow_test_rng: bool = False,
) -> Collection:
    """`n` bonus games as CSV `game,round,boxes` (six rows per game) into `out`."""
    n = _count(n, "the number of bonus games")
    rules, rng = resolve_inputs(rules, rng, allow_test_rng)
    rows = (
        "".join(f"{g},{r},{boxes_text(b)}\n" for r, b in enumerate(rounds, start=1))
        for g, rounds in enumerate(iter_bonus_games(rules, rng, n), start=1)
    )
    return _collect_csv("bonus_games", BONUS_HEADER, rows, n, out, progress, rng, rules)
