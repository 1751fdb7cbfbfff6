"""docs/architecture.md's "Where a change goes" recipes stay true (issue 22 item 7).

Each recipe's numbered lines are the files the change takes: the test holds their count against the
recipe's bound and each file (or, for a new file, its folder) against the tree, then checks what makes
the recipe hold in the code (one station registry, no SS2-only command path in the bridge, ...). A
recipe that grows a file, or code that takes a second place for one of these changes, fails here.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from engine import stations
from engine.auth import ROLES
from engine.errors import DrrError

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
PRODUCT = ("engine", "gui", "hardware")

# The recipe's title as the map writes it, and the most files issue 22 allows it (measured after the
# redesign).
RECIPES = {
    "A new station": 2,
    "A new commanded wheel protocol": 3,
    "A new journal entry type": 3,
    "A new wager kind": 2,
    "A new alert": 2,
    "A new round field on the croupier screen and in recall": 5,
}


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Where a change goes")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def _recipe(title: str) -> list[str]:
    """The files of one recipe: the first backticked path of each numbered line."""
    section = _section()
    found = re.search(rf"\*\*{re.escape(title)}\*\* \(([^)]*)\):\n(.*?)(?:\n\n|\Z)", section, re.S)
    assert found is not None, f"docs/architecture.md has no recipe {title!r}"
    files = []
    for line in found.group(2).splitlines():
        step = re.match(r"\d+\. `([^`]+)`", line)
        if step:
            files.append(step.group(1))
    return files


def _product_files() -> list[Path]:
    return [p for root in PRODUCT for p in (ROOT / root).rglob("*.py") if "migrations" not in p.parts]


@pytest.mark.parametrize("title", sorted(RECIPES))
def test_each_recipe_names_at_most_its_files_and_they_exist(title: str) -> None:
    files = _recipe(title)
    assert files, f"recipe {title!r} lists no file"
    assert len(files) <= RECIPES[title], f"recipe {title!r} takes {len(files)} files: {files}"
    for name in files:
        path = ROOT / name
        where = path.parent if "<" in path.name else path  # a new file: its folder exists
        assert where.exists(), f"recipe {title!r} names {name}, which does not exist"


def test_the_recipe_bounds_say_what_the_map_says() -> None:
    """The bound written in each recipe's heading is the one this test holds it to."""
    for title, bound in RECIPES.items():
        heading = re.search(rf"\*\*{re.escape(title)}\*\* \(([^)]*)\)", _section())
        assert heading is not None
        assert str(bound) in heading.group(1), (title, heading.group(1))


# --- a new station: one registry ----------------------------------------------------------------


def _string_constants(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        items: list[ast.AST | None] = list(node.elts)
    elif isinstance(node, ast.Dict):
        items = list(node.keys)
    else:
        return []
    return [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def test_the_station_registry_is_the_only_place_stations_are_spelled() -> None:
    """No literal names two stations and nothing compares a station with a name, outside the
    registry (a role list such as engine.auth.ROLES names roles, some of which share a station's name)."""
    names = set(stations.STATIONS)
    registry = ROOT / "engine" / "stations.py"
    found = []
    for path in _product_files():
        if path == registry:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            words = _string_constants(node)
            spelled = names.intersection(words)
            roles_only = set(words) <= set(ROLES) and not set(ROLES) <= names
            if len(spelled) >= 2 and not (roles_only and "admin" in words):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {sorted(spelled)}")
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Name)
                and node.left.id == "station"
                and any(isinstance(c, ast.Constant) and c.value in names for c in node.comparators)
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
    assert not found, f"stations spelled outside engine/stations.py: {found}"


def test_every_reader_of_the_stations_reads_the_registry() -> None:
    import argparse

    from engine import config
    from gui import commands
    from gui.floor.station import STATION_NEEDS
    from gui.windows.login import STATION_PERMISSION

    assert config.STATIONS == stations.STATIONS
    assert config.Settings().station == stations.DEFAULT
    key = next(k for k in config.KEY_LIST if k.name == "table.station")
    for name in stations.STATIONS:
        assert key.convert(name) == name
    with pytest.raises(ValueError):
        key.convert("nowhere")
    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    assert parser.parse_args(["gui", "--station", stations.STATIONS[-1]]).station == stations.STATIONS[-1]
    assert {s.name: s.permission for s in stations.REGISTRY} == STATION_PERMISSION
    assert {s.name: s.permission for s in stations.REGISTRY if s.runs == stations.FLOOR} == STATION_NEEDS


def test_every_station_names_a_window_function_of_its_kind() -> None:
    from engine.auth import ALL_PERMISSIONS
    from gui.stations import windows_function

    wanted = {
        stations.TABLE: ["table", "all_windows", "read_only", "chips"],
        stations.FOLLOWER: ["table", "all_windows", "read_only", "chips"],
        stations.FLOOR: ["store", "user", "settings"],
    }
    for entry in stations.REGISTRY:
        function = windows_function(entry.name)
        assert list(inspect.signature(function).parameters) == wanted[entry.runs], entry
        assert entry.permission in ALL_PERMISSIONS, entry
    with pytest.raises(DrrError, match="unknown station 'nowhere'"):
        stations.station("nowhere")


# --- a new commanded wheel protocol: no SS2-only command path in the bridge -----------------------


def _code_strings(tree: ast.AST) -> list[str]:
    """Every string constant of a module's code, its docstrings left out."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def test_the_bridge_sends_the_protocols_start_command_not_ss2_text() -> None:
    bridge = ast.parse((ROOT / "hardware" / "table_bridge.py").read_text(encoding="utf-8"))
    commands = ast.parse((ROOT / "hardware" / "commands.py").read_text(encoding="utf-8"))
    assert not [s for s in _code_strings(bridge) if s.startswith("*")], "SS2 command text in the bridge"
    imported = {
        n.module for n in ast.walk(bridge) if isinstance(n, ast.ImportFrom) and n.module is not None
    } | {a.name for n in ast.walk(bridge) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in imported if m.startswith("hardware.protocol")], imported
    start = next(
        n for n in ast.walk(commands) if isinstance(n, ast.AsyncFunctionDef) and n.name == "start_game"
    )
    assert not [s for s in _code_strings(start) if s.startswith("*")], "start_game spells SS2 text"
    assert "start_command" in ast.unparse(start)


def test_every_commanded_protocol_says_its_start_command() -> None:
    import importlib
    import inspect

    from hardware.protocol import base, get_protocol

    def defines_a_protocol(stem: str) -> bool:  # a module of the folder that holds a Protocol class
        module = importlib.import_module(f"hardware.protocol.{stem}")
        return any(
            issubclass(c, base.Protocol) and c is not base.Protocol and c.__module__ == module.__name__
            for _, c in inspect.getmembers(module, inspect.isclass)
        )

    stems = {p.stem for p in (ROOT / "hardware" / "protocol").glob("*.py")} - {"__init__", "base"}
    modules = {stem for stem in stems if defines_a_protocol(stem)}
    assert "ss2_log" in stems and "ss2_log" not in modules  # the wheel's log decoder is no protocol
    assert set(base.BUILT_IN) == modules, "BUILT_IN names every protocol module"
    for name in base.BUILT_IN:
        protocol = get_protocol(name)
        if protocol.accepts_commands:
            assert type(protocol).start_command is not base.Protocol.start_command, name
            for direction in ("cw", "ccw"):
                assert protocol.start_command(direction).strip(), (name, direction)  # type: ignore[arg-type]
        else:
            with pytest.raises(DrrError, match="cannot be told to start a spin"):
                protocol.start_command("cw")
    assert get_protocol("ss2").start_command("cw") == "*u 1"
    assert get_protocol("ss2").start_command("ccw") == "*u 3"


# --- a new journal entry type, a new wager kind, a new alert, a new round field -----------------


def test_every_entry_type_has_its_payload_class_and_words() -> None:
    from engine.entry_types import EntryType
    from engine.floor.describe import describe
    from engine.journal_types import PAYLOAD_CLASSES

    assert set(PAYLOAD_CLASSES) == set(EntryType)
    for t in EntryType:
        assert describe(t.value, {}), t


def test_every_bet_kind_has_its_row_in_kinds() -> None:
    from engine.bets import KINDS, BetKind

    assert sorted(k.kind.value for k in KINDS) == sorted(k.value for k in BetKind)


def test_no_gui_module_spells_an_alert_kind() -> None:
    from engine.floor import alerts

    kinds = {k for k in alerts.ROUND_TROUBLE | alerts.PER_ROUND if " " in k or "-" in k}
    found = []
    for path in (ROOT / "gui").rglob("*.py"):
        spelled = kinds.intersection(_code_strings(ast.parse(path.read_text(encoding="utf-8"))))
        if spelled:
            found.append(f"{path.relative_to(ROOT)} {sorted(spelled)}")
    assert not found, f"alert kinds spelled in gui/: {found}"


def test_recall_reads_the_rounds_facts_through_the_registry() -> None:
    import engine.floor.recall as recall
    from engine.journal_types import typed

    assert recall.typed is typed
    assert "typed(" in inspect.getsource(recall.recall_round)


def test_the_view_carries_the_folds_round_so_a_new_round_field_needs_no_view_field() -> None:
    """The round-field recipe's check: the read model hands the screens the fold's own RoundState
    (the same object), so a field added to it is on every screen's view without touching
    engine/table/view.py or engine/table/read_model.py."""
    import asyncio
    import tempfile
    from decimal import Decimal

    from engine.bets import inside_bet
    from engine.store import open_store
    from tests.table.helpers import CROUPIER, make_service

    async def play(path: str) -> None:
        with open_store(path, table="T1") as store:
            svc = make_service(store)
            seen = []
            svc.subscribe_batches(lambda entries, changes, view: seen.append(view))
            await svc.start()
            await svc.open_bets(CROUPIER)
            await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
            assert seen and seen[-1].round is svc.state.round
            assert seen[-1].round is not None and seen[-1].round.wagers == seen[-1].wagers
            await svc.close()

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(play(f"{tmp}/r.sqlite"))
