"""The import contracts see every cycle the code once had: a back edge of each fails `lint-imports`.

Issue 22 found five cycles hidden from the contracts by function-local or type-only imports or by
modules no contract named. Each case below adds one back edge of such a cycle (at module level, inside
a function, or under TYPE_CHECKING) to a copy of the product's packages and runs import-linter there
with the project's pyproject.toml: it must fail, naming the contract that forbids the edge. The copy as
it is must pass.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "hardware", "gui", "bench")  # every root package the contracts name
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

STORE = "engine.store in layers: pure records < database < floor_sign < journal, migrate < db"
TABLE = "engine.table: the wheel's clock (wheel_drive) reads the fold (state), never the other way"
MATH = "engine.math above engine.rules"
CLI = "the engine's modules never import its CLI (engine.cli)"
ACYCLIC = "no import cycle among the modules of engine.store, engine.table, engine.math"

FUNCTION_LOCAL = "\n\ndef _back_edge() -> None:\n    import {module}  # noqa: F401\n"
TYPE_ONLY = "\nfrom typing import TYPE_CHECKING as _TC\n\nif _TC:\n    import {module}  # noqa: F401\n"
MODULE_LEVEL = "\nimport {module}  # noqa: E402, F401\n"

# (the lower module's file, the upper module it is made to import, how, the contracts it breaks)
BACK_EDGES = [
    ("engine/rules.py", "engine.math.wager_math", FUNCTION_LOCAL, [MATH]),
    ("engine/store/journal.py", "engine.store.db", MODULE_LEVEL, [STORE, ACYCLIC]),
    ("engine/store/journal.py", "engine.store.db", TYPE_ONLY, [STORE, ACYCLIC]),
    ("engine/store/floor_sign.py", "engine.store.journal", FUNCTION_LOCAL, [STORE, ACYCLIC]),
    ("engine/store/migrate.py", "engine.store.db", MODULE_LEVEL, [STORE, ACYCLIC]),
    ("engine/store/chain_parallel.py", "engine.store.verify", FUNCTION_LOCAL, [STORE, ACYCLIC]),
    ("engine/store/audit_tables.py", "engine.store.verify", FUNCTION_LOCAL, [STORE, ACYCLIC]),
    ("engine/table/state.py", "engine.table.wheel_drive", TYPE_ONLY, [TABLE, ACYCLIC]),
    ("engine/floor/actions.py", "engine.cli.rules_cmd", FUNCTION_LOCAL, [CLI]),
    ("engine/certify.py", "engine.cli.math_cmd", MODULE_LEVEL, [CLI]),
]


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The product's packages and pyproject.toml, copied once for every case."""
    where = tmp_path_factory.mktemp("contracts")
    for name in PACKAGES:
        shutil.copytree(ROOT / name, where / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    return where


def _lint(where: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(where), "COLUMNS": "1000"}  # one contract a line
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=where, env=env, capture_output=True, text=True, timeout=120
    )


def _broken(output: str) -> set[str]:
    """The contracts the report says are broken ("NAME BROKEN", maybe with "(1 ignored import)")."""
    return {line.partition(" BROKEN")[0] for line in output.splitlines() if " BROKEN" in line}


@pytest.fixture
def edited(copy: Path) -> Iterator[list[tuple[Path, str]]]:
    """Files of the copy changed by a case, put back afterwards."""
    changed: list[tuple[Path, str]] = []
    yield changed
    for path, text in changed:
        path.write_text(text, encoding="utf-8")


def test_the_code_as_it_is_keeps_every_contract(copy: Path) -> None:
    found = _lint(copy)
    assert found.returncode == 0, found.stdout + found.stderr
    for name in (STORE, TABLE, MATH, CLI, ACYCLIC):
        assert any(line.startswith(name) and " KEPT" in line for line in found.stdout.splitlines()), name


@pytest.mark.parametrize(("lower", "upper", "how", "contracts"), BACK_EDGES)
def test_a_back_edge_of_a_former_cycle_fails_lint_imports(
    copy: Path, edited: list[tuple[Path, str]], lower: str, upper: str, how: str, contracts: list[str]
) -> None:
    path = copy / lower
    text = path.read_text(encoding="utf-8")
    edited.append((path, text))
    path.write_text(text + how.format(module=upper), encoding="utf-8")
    found = _lint(copy)
    assert found.returncode != 0, found.stdout
    broken = _broken(found.stdout)
    for name in contracts:
        assert any(b.startswith(name) for b in broken), (name, broken)
    importer = lower.removesuffix(".py").replace("/", ".")
    assert f"{importer} -> {upper}" in found.stdout, found.stdout  # the edge itself is named
