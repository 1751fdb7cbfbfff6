"""docs/architecture.md stays true: every file, folder and module it names exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
SECTION = {
    "engine/": "engine",
    "engine/store/": "engine/store",
    "hardware/": "hardware",
    "gui/": "gui",
    "bench/": "bench",
}


def _named_paths() -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:engine|hardware|gui|bench|tests|resources|docs)/[\w/.<>*-]*)`", text))
    # module tables list names relative to their section ("table/service.py" under engine/)
    section = ""
    for line in text.splitlines():
        heading = re.match(r"#+ (\S+/)", line)
        if heading:
            section = SECTION.get(heading.group(1), "")
        cell = re.match(r"\| `([\w/.]+\.py)`", line)
        if cell and section:
            for name in re.findall(r"`([\w/]+\.py)`", line.split("|")[1]):
                paths.add(f"{section}/{name}")
    return {p for p in paths if "<" not in p and "*" not in p}


def test_every_path_the_map_names_exists() -> None:
    missing = sorted(p for p in _named_paths() if not (ROOT / p).exists())
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent that is a module, not a package
        return False


def test_the_map_names_the_modules_it_describes() -> None:
    named = _named_paths()
    assert {"engine/table/service.py", "engine/store/records.py", "gui/table_model.py"} <= named


def test_every_module_the_map_names_imports() -> None:
    text = DOC.read_text(encoding="utf-8")
    modules = set(re.findall(r"\b((?:engine|hardware|gui|bench)(?:\.[a-z_]+)+)\b", text))
    missing = []
    for name in sorted(modules):
        # a dotted name may end in an attribute (engine.store.rules_store.rules_for): find its module
        parts = name.split(".")
        while parts and not _is_module(".".join(parts)):
            parts.pop()
        if len(parts) < 2:
            missing.append(name)
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"
