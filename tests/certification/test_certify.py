"""`drr certify DIR`: the whole pack for a test lab, each file in its public format, and the manifest."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from engine.certify import RAW_BYTES_PER_DRAW, bonus_games_for, compliance_matrix_path, write_pack
from engine.errors import DrrError
from engine.math.report import par_sheet_text
from engine.math.wager_math import game_math
from engine.rng import SystemRng
from engine.rng_battery import battery_from_files
from engine.rng_collect import BONUS_HEADER, DRAWS_HEADER
from engine.rules import default_rules_path, load_rules
from engine.software_id import software_identity
from gui.cli import build_parser, main
from gui.par_pdf import write_pdf  # (the writer `drr` registers: taken directly, whatever ran before)

N = 10_000  # the battery's minimum
FILES = {
    "rules.toml",
    "math-report.md",
    "math-report.pdf",
    "rng/draws.csv",
    "rng/bonus-games.csv",
    "rng/raw.bin",
    "rng/collections.json",
    "rng/battery.json",
    "rng/battery.txt",
    "software.json",
    "compliance.md",
}


@pytest.fixture(scope="module")
def house_rules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid Rules Submission other than the shipped one (another name and timer)."""
    path = tmp_path_factory.mktemp("rules") / "house.toml"
    text = default_rules_path().read_text(encoding="utf-8")
    path.write_text(text.replace("timer_seconds = 20", "timer_seconds = 25"), encoding="utf-8")
    assert load_rules(path).bonus_timer_seconds == 25
    return path


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory, house_rules: Path) -> tuple[Path, int, str]:
    out = tmp_path_factory.mktemp("certify") / "pack"
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["certify", str(out), "--rules", str(house_rules), "--draws", f"{N:,}"])
    return out, code, buf.getvalue()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_pack_contents_and_manifest(pack: tuple[Path, int, str]) -> None:
    out, code, printed = pack
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert on_disk == FILES | {"manifest.json"}
    assert not out.with_name("pack.partial").exists()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest) == ["files"]
    assert all(list(f) == ["path", "sha256"] for f in manifest["files"])
    paths = [f["path"] for f in manifest["files"]]
    assert paths == sorted(FILES)  # every other file, relative to DIR, "/" separators
    for f in manifest["files"]:
        assert f["sha256"] == _sha(out / f["path"])
    battery = json.loads((out / "rng" / "battery.json").read_text(encoding="utf-8"))
    assert code == (0 if battery["verdict"] == "pass" else 1)
    assert printed.startswith(f"{out}: {len(FILES)} files and manifest.json; 10,000 draws")


def test_each_file_is_what_it_says(pack: tuple[Path, int, str], house_rules: Path) -> None:
    out, _, _ = pack
    rules = load_rules(house_rules)
    assert rules.sha256 != load_rules(default_rules_path()).sha256
    assert (out / "rules.toml").read_bytes() == house_rules.read_bytes()
    assert _sha(out / "rules.toml") == rules.sha256
    md = (out / "math-report.md").read_text(encoding="utf-8")
    assert md == par_sheet_text(game_math(rules), str(house_rules))
    assert rules.sha256 in md and software_identity().digest in md
    assert (out / "math-report.pdf").read_bytes().startswith(b"%PDF-")
    assert json.loads((out / "software.json").read_text(encoding="utf-8")) == software_identity().to_json()
    assert (out / "compliance.md").read_bytes() == compliance_matrix_path().read_bytes()
    with (out / "rng" / "draws.csv").open(newline="") as f:
        rows = list(csv.reader(f))
    assert ",".join(rows[0]) == DRAWS_HEADER and len(rows) == N + 1
    assert [r[0] for r in rows[1:3]] == ["1", "2"]
    with (out / "rng" / "bonus-games.csv").open(newline="") as f:
        games = list(csv.reader(f))
    assert ",".join(games[0]) == BONUS_HEADER and len(games) == 6 * bonus_games_for(N) + 1
    assert (out / "rng" / "raw.bin").stat().st_size == RAW_BYTES_PER_DRAW * N
    collections = json.loads((out / "rng" / "collections.json").read_text(encoding="utf-8"))["collections"]
    assert [(c["kind"], c["count"], c["path"]) for c in collections] == [
        ("draws", N, "rng/draws.csv"),
        ("bonus_games", bonus_games_for(N), "rng/bonus-games.csv"),
        ("raw", RAW_BYTES_PER_DRAW * N, "rng/raw.bin"),
    ]
    assert {c["rng"] for c in collections} == {SystemRng().name} and {
        c["rules_sha256"] for c in collections
    } == {rules.sha256}
    # The battery's results are about the very files in the pack.
    again = battery_from_files(out / "rng" / "draws.csv", out / "rng" / "bonus-games.csv", rules)
    stored = json.loads((out / "rng" / "battery.json").read_text(encoding="utf-8"))
    assert [t["name"] for t in stored["tests"]] == [t.name for t in again.tests]
    assert [t["p_value"] for t in stored["tests"]] == [t.to_json()["p_value"] for t in again.tests]
    assert (out / "rng" / "battery.txt").read_text(encoding="utf-8").splitlines()[-1].startswith("verdict: ")


def test_progress_covers_every_step(tmp_path: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    write_pack(tmp_path / "p", default_rules_path(), N, write_pdf, lambda *a: seen.append(a))
    dones = [d for _, d, _ in seen]
    totals = {t for _, _, t in seen}
    assert dones == sorted(dones) and len(totals) == 1 and dones[-1] == totals.pop()
    steps = list(dict.fromkeys(s for s, _, _ in seen))
    assert steps[0] == "Rules Submission" and steps[-1] == "done"
    assert {"RNG: draws", "RNG: bonus games", "RNG: raw bytes", "RNG: battery"} <= set(steps)


def test_the_default_rules_are_the_installations() -> None:
    args = build_parser().parse_args(["certify", "x"])
    assert args.rules is None and args.draws is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--draws", "9999"], "--draws must be at least 10,000"),
        (["--draws", "many"], "--draws must be a whole number"),
    ],
)
def test_bad_options_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["certify", str(tmp_path / "p"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "p").exists() and not (tmp_path / "p.partial").exists()


def test_a_folder_with_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "old.txt").write_text("x")
    with pytest.raises(DrrError, match="not an empty folder"):
        write_pack(tmp_path / "p", default_rules_path(), N, write_pdf)
    assert [p.name for p in (tmp_path / "p").iterdir()] == ["old.txt"]


def test_invalid_rules_are_refused_like_rules_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        default_rules_path().read_text(encoding="utf-8").replace("timer_seconds = 20", "timer_seconds = 2")
    )
    # Refused with the check's own lines, exit 2 (issue 23 finding 5).
    assert main(["certify", str(tmp_path / "p"), "--rules", str(bad), "--draws", str(N)]) == 2
    assert "NOT valid" in capsys.readouterr().err
    assert not (tmp_path / "p").exists() and not (tmp_path / "p.partial").exists()
