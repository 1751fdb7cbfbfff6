"""The certification pack a test lab gets from `drr certify DIR` (formats: docs/certification.md).

    DIR/rules.toml            the Rules Submission, byte for byte (its sha256 is the rules' identity)
    DIR/math-report.md, .pdf  the PAR sheet (engine.math.report.par_sheet; the PDF laid out by Qt)
    DIR/rng/raw.bin           raw bytes of the game's generator        (engine.rng_collect)
    DIR/rng/draws.csv         Lucky/Bonus draws                         (engine.rng_collect)
    DIR/rng/bonus-games.csv   bonus-game boxes                          (engine.rng_collect)
    DIR/rng/battery.json, .txt  the battery run on those two CSV files  (engine.rng_battery)
    DIR/software.json         {"digest", "files": [{"path", "sha256"}]} (engine.software_id)
    DIR/compliance.md         the compliance matrix (docs/compliance.md)
    DIR/manifest.json         {"files": [{"path", "sha256"}]}: every other file, paths relative
                              to DIR with "/" separators, sorted

The pack is built in `DIR.partial` and renamed to DIR only when complete, so a DIR that exists is
a whole pack. engine/ writes no PDF (no Qt): the caller passes the PDF writer.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import DrrError
from engine.software_id import file_sha256, program_root, software_identity

ProgressFn = Callable[[str, int, int], None]  # (step, done, total): total of the whole pack
PdfWriter = Callable[[str, Path], Path]

MANIFEST = "manifest.json"
RAW_BYTES_PER_DRAW = 32  # raw.bin's size is 32 x N bytes: 6.4 MB for the default 200,000 draws
DEFAULT_DRAWS = 200_000


def compliance_matrix_path() -> Path:
    """docs/compliance.md of the source tree, or the copy a frozen bundle carries (packaging/drr.spec)."""
    root = Path(getattr(sys, "_MEIPASS", "")) if getattr(sys, "frozen", False) else program_root()[0]
    return root / "docs" / "compliance.md"


@dataclass(frozen=True)
class Pack:
    root: Path
    files: tuple[tuple[str, str], ...]  # (path, sha256) as in the manifest
    battery_passed: bool
    draws: int
    bonus_games: int
    raw_bytes: int


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def bonus_games_for(draws: int) -> int:
    from engine.rng_battery import MIN_BONUS_GAMES

    return max(draws // 10, MIN_BONUS_GAMES)


def write_pack(
    out: Path,
    rules_file: Path,
    draws: int,
    pdf_writer: PdfWriter,
    progress: ProgressFn | None = None,
) -> Pack:
    """Write the whole pack for the Rules Submission at `rules_file` with `draws` Lucky/Bonus draws."""
    from engine.math.report import par_sheet_text
    from engine.math.wager_math import game_math
    from engine.rng_battery import MIN_DRAWS, battery_from_files
    from engine.rng_collect import collect_bonus_games, collect_draws, collect_raw
    from engine.rules_play import load_rules_for_play

    if draws < MIN_DRAWS:
        raise DrrError(f"--draws must be at least {MIN_DRAWS:,} (the battery's minimum), not {draws:,}", 2)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise DrrError(f"{out}: exists and is not an empty folder; certify writes a new pack", 2)
    if not out.parent.is_dir():
        raise DrrError(f"{out.parent}: the folder does not exist", 2)
    matrix = compliance_matrix_path()
    if not matrix.is_file():
        raise DrrError(f"the compliance matrix {matrix} is missing from this installation")
    rules = load_rules_for_play(rules_file)  # the check's own lines, exit 2
    games = bonus_games_for(draws)
    raw = RAW_BYTES_PER_DRAW * draws
    # Units of work for one bar: draws + games + raw kilobytes collected, then tested again from
    # the files (draws + games), plus one per other file.
    total = draws + games + raw // 1024 + draws + games + 5
    base = 0

    def step(name: str, weight: int) -> Callable[[int, int], None]:
        nonlocal base
        start = base
        base += weight

        def report(done: int, of: int) -> None:
            if progress is not None:
                progress(name, start + (weight * done // of if of else weight), total)

        report(0, 1)
        return report

    work = out.with_name(out.name + ".partial")
    if work.exists():
        shutil.rmtree(work)
    (work / "rng").mkdir(parents=True)
    try:
        step("Rules Submission", 1)
        (work / "rules.toml").write_bytes(Path(rules_file).read_bytes())
        if file_sha256(work / "rules.toml") != rules.sha256:
            raise DrrError(f"{rules_file}: changed while the pack was written")
        step("PAR sheet", 1)
        text = par_sheet_text(game_math(rules), str(rules_file))
        (work / "math-report.md").write_text(text, encoding="utf-8")
        step("PAR sheet (PDF)", 1)(0, 1)
        pdf_writer(text, work / "math-report.pdf")
        collected = [
            collect_draws(draws, work / "rng" / "draws.csv", rules, step("RNG: draws", draws)),
            collect_bonus_games(
                games, work / "rng" / "bonus-games.csv", rules, step("RNG: bonus games", games)
            ),
            collect_raw(raw, work / "rng" / "raw.bin", rules, step("RNG: raw bytes", raw // 1024)),
        ]
        _write_json(
            work / "rng" / "collections.json",
            {
                "collections": [
                    {**c.to_json(), "path": c.path.relative_to(work).as_posix()} for c in collected
                ]
            },
        )
        testing = step("RNG: battery", draws + games)
        rows = draws + games
        battery = battery_from_files(
            work / "rng" / "draws.csv",
            work / "rng" / "bonus-games.csv",
            rules,
            progress=lambda done, _unknown: testing(min(done, rows), rows),
        )
        testing(1, 1)
        _write_json(work / "rng" / "battery.json", battery.to_json())
        (work / "rng" / "battery.txt").write_text("\n".join(battery.lines()) + "\n", encoding="utf-8")
        step("software identity", 1)
        _write_json(work / "software.json", software_identity().to_json())
        step("compliance matrix", 1)
        shutil.copyfile(matrix, work / "compliance.md")
        files = tuple(
            sorted(
                (p.relative_to(work).as_posix(), file_sha256(p))
                for p in work.rglob("*")
                if p.is_file() and p.name != MANIFEST
            )
        )
        _write_json(work / MANIFEST, {"files": [{"path": p, "sha256": h} for p, h in files]})
        if progress is not None:
            progress("done", total, total)
        if out.exists():
            out.rmdir()  # empty, checked above
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return Pack(out, files, battery.passed, draws, games, raw)
