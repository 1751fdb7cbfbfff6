"""`drr math --report FILE.pdf|FILE.md`: the PAR sheet, every figure from the engine's exact math."""

from __future__ import annotations

import importlib
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.math.bonus_value import STRATEGIES, Strategy
from engine.math.report import INTERPRETATIONS, STRATEGY_TITLES, outcome_bands, par_sheet
from engine.math.wager_math import KIND_TITLES, game_math, percent, sqrt_decimal
from engine.rules import default_rules_path, load_rules
from engine.software_id import running_digest
from gui.cli import main

WORKED = Path(__file__).parent.parent / "data" / "worked-example-rules.toml"


def _row(md: str, title: str, section: str) -> list[str]:
    """The cells of the row starting with `title` in the table under heading `section`."""
    part = md.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == title:
            return cells
    raise AssertionError(f"no row {title!r} under {section!r}")


@pytest.mark.parametrize("rules_file", [default_rules_path(), WORKED])
def test_figures_are_the_engines(rules_file: Path) -> None:
    rules = load_rules(rules_file)
    m = game_math(rules)
    md = par_sheet(m, source=str(rules_file), rules_sha256=rules.sha256, software_digest="ab" * 32)
    assert f"| Rules Submission sha256 | `{rules.sha256}` |" in md
    assert f"`{'ab' * 32}`" in md
    for kind, w in m.wagers.items():
        title = KIND_TITLES[kind]
        assert _row(md, title, "Paytable")[1] == str(w.numbers)
        rtp = _row(md, title, "Return to player and house edge")
        assert rtp[2:] == [f"{percent(w.rtp[s], 4)}%" for s in STRATEGIES] + [
            f"{percent(w.house_edge(s), 4)}%" for s in STRATEGIES
        ]
        hits = _row(md, title, "Hit frequency and volatility")
        assert hits[1:4] == [f"{percent(x, 4)}%" for x in (w.hit_frequency, w.p_lucky, w.p_bonus)]
        assert hits[4:] == [sqrt_decimal(w.variance[s], 4) for s in STRATEGIES]
    for s in STRATEGIES:
        assert _row(md, STRATEGY_TITLES[s], "The bonus game")[1] == f"{float(m.bonus[s].mean):,.6f}"
    for band in outcome_bands(m.bonus[Strategy.OPTIMAL].distribution):
        assert _row(md, band.label, "The bonus game")[1] == f"{float(band.probability):.6g}"


def test_every_cited_implementation_exists() -> None:
    topics = {it.topic for it in INTERPRETATIONS}
    assert {
        "Base odds",
        "Bonus payout per n-number wager",
        "Lucky and Bonus Numbers distinct",
        "One bonus game per player",
        "An absent player",
    } <= topics
    for it in INTERPRETATIONS:
        assert it.clause and it.where
        for ref in it.where:
            module, qualname = ref.split(":")
            obj: object = importlib.import_module(module)
            for name in qualname.split("."):
                obj = getattr(obj, name)  # AttributeError names a stale citation


def test_report_md_and_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md_path, pdf_path = tmp_path / "par.md", tmp_path / "par.pdf"
    assert main(["math", "--report", str(md_path)]) == 0
    assert main(["math", "--report", str(pdf_path)]) == 0
    assert capsys.readouterr().out.split() == [str(md_path), str(pdf_path)]
    md = md_path.read_text(encoding="utf-8")
    rules = load_rules(default_rules_path())
    m = game_math(rules)
    assert md == par_sheet(
        m, source=str(default_rules_path()), rules_sha256=rules.sha256, software_digest=running_digest()
    )
    pdf = pdf_path.read_bytes()
    assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-64:]
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", "-layout", str(pdf_path), "-"], capture_output=True, text=True
        ).stdout
        straight = m.wagers["straight"]
        assert f"{percent(straight.rtp[Strategy.OPTIMAL], 4)}%" in text
        assert "Rule interpretations the engine relies on" in text
        assert rules.sha256[:40] in text.replace("\n", "")


@pytest.mark.parametrize("name", ["par.txt", "missing-dir/par.md"])
def test_bad_report_path_refused(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["math", "--report", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("drr: --report:") and err.count("\n") == 1
