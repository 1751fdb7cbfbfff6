"""What the croupier station's first frame needs imports no database layer (issue 28).

The station paints its first frame on the table model still "starting" (gui.app `_serve`): the Rules
Submission read and checked, the seat names, the model and the windows. SQLAlchemy, the store and its
projections load after that frame, when the store is opened; importing them first was a third of the
time to the frame. Each check runs in a fresh interpreter, as a station starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_FIRST_FRAME = """
import json, sys
from gui.app import PLAYERS, croupier_windows, offscreen_if_headless
offscreen_if_headless()
from PySide6.QtWidgets import QApplication
from engine.rules_play import load_rules_for_play
from gui import theme
from gui.seat_names import load_seats
from gui.table_model import TableModel
app = QApplication(sys.argv[:1])
theme.apply(app)
table = TableModel.starting(load_rules_for_play(None), load_seats("T1", PLAYERS), "T1")
windows = croupier_windows(table, all_windows=True, read_only=False, chips=None)
windows[0].show()
windows[0].grab()
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(script: str, tmp_path: Path) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_croupier_first_frame_imports_no_sqlalchemy_and_no_store(tmp_path: Path) -> None:
    loaded = _modules_after(_FIRST_FRAME, tmp_path)
    assert "gui.windows.croupier" in loaded and "engine.math.rules_gate" in loaded  # the frame was built
    assert not {m for m in loaded if m == "sqlalchemy" or m.startswith("sqlalchemy.")}
    heavy = {"engine.store.db", "engine.store.projections", "engine.store.schema", "engine.store.journal"}
    heavy |= {"engine.table.read_model", "engine.table.changes", "engine.journal_types"}  # after the frame
    assert not heavy & loaded


_APPEND = """
import json, sys
from engine.store.db import open_store  # the store without `import engine.store`'s old side effect
before = "engine.store.projections" in sys.modules
with open_store(sys.argv[1], table="T1") as store:
    store.journal.append("T1", "tick", {}, round_id=None, user=None)
    count = len(list(store.journal.entries("T1")))
print(json.dumps([before, "engine.store.projections" in sys.modules, count]))
"""


def test_the_first_append_loads_the_projections_it_runs(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    db = str(tmp_path / "t.sqlite")
    done = subprocess.run(
        [sys.executable, "-c", _APPEND, db], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    before, after, count = json.loads(done.stdout.strip().splitlines()[-1])
    assert not before  # engine.store.db alone does not load them ...
    assert after and count == 1  # ... and the append ran with them (without, it is refused)
