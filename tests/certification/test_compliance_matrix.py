"""docs/compliance.md names only tests that exist; a row per clause, inside wager kind and lab duty."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MATRIX = ROOT / "docs" / "compliance.md"
NODE = re.compile(r"`(tests/[\w/]+\.py)::([\w:]+)`")


def _tests_in(path: Path) -> set[str]:
    """`test_x` and `Class::test_x` node names defined in a test file (without importing it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test"):
                    names.add(f"{node.name}::{item.name}")
    return names


def _rows(section: str) -> dict[str, str]:
    text = MATRIX.read_text(encoding="utf-8")
    part = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in part.splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0]] = cells[-1]
    return rows


def test_every_named_test_exists() -> None:
    found = NODE.findall(MATRIX.read_text(encoding="utf-8"))
    assert len(found) > 50
    missing = []
    cache: dict[str, set[str]] = {}
    for file, name in found:
        path = ROOT / file
        if not path.is_file():
            missing.append(f"{file} (no such file)")
            continue
        if name not in cache.setdefault(file, _tests_in(path)):
            missing.append(f"{file}::{name}")
    assert not missing, f"docs/compliance.md names tests that do not exist: {missing}"


def test_every_clause_kind_and_duty_has_tests() -> None:
    clauses = _rows("§ 617b.12, clause by clause")
    assert [c for c in clauses if c != "clause"] == [f"({c})" for c in "abcdefghijklm"]
    kinds = _rows("Each inside wager kind")
    for kind in (
        "Straight up",
        "Split",
        "Three numbers (street)",
        "Four numbers (corner)",
        "Six numbers (six line)",
    ):
        assert kind in kinds
    duties = _rows("The lab's duties")
    for duty in (
        "RNG",
        "Scaling",
        "Recall of the last ten games, with bonus steps",
        "Critical memory and recovery",
        "Event logging",
        "Software verification",
    ):
        assert duty in duties
    for name, cell in {**clauses, **kinds, **duties}.items():
        if name not in ("clause", "wager kind", "duty"):
            assert NODE.search(cell), f"{name}: no test named"


def test_the_checker_catches_a_missing_test(tmp_path: Path) -> None:
    fake = tmp_path / "t.py"
    fake.write_text(
        "def test_a():\n    pass\nclass TestB:\n    def test_c(self):\n        pass\n"
        "def helper():\n    pass\n"
    )
    assert _tests_in(fake) == {"test_a", "TestB::test_c"}


# Issue 23 finding 6: the rows a lab found weak name a test of their own clause (not only a neighbour's).
_CLAUSES = "tests/certification/test_compliance_clauses.py::"
CLAUSE_OWN_TESTS = {
    "(a)": f"{_CLAUSES}test_a_the_wheel_is_single_zero",
    "(c)": f"{_CLAUSES}test_c_a_tables_draws_come_from_the_production_generator",
    "(h)": f"{_CLAUSES}test_h_every_rounds_values_and_x_follow_the_submission",
    "(i)": "tests/gui/test_bonus_countdown_shown.py::test_i_the_countdown_is_shown_from_each_rounds_start",
    "(l)": f"{_CLAUSES}test_l_bonus_payouts_29_and_4999_exactly_are_accepted_and_one_step_past_refused",
    "(m)": f"{_CLAUSES}test_m_the_inside_wagers_are_the_rules_texts",
}


def test_the_weak_rows_name_a_test_of_their_own_clause() -> None:
    clauses = _rows("§ 617b.12, clause by clause")
    for clause, node in CLAUSE_OWN_TESTS.items():
        assert f"`{node}`" in clauses[clause], f"{clause} names no test of its own clause"
    # (a): the double-zero layout test is not a single-zero test; (m): the bet table is not its own proof.
    assert "test_the_layouts_bets_are_the_tables_kinds" not in clauses["(m)"]
