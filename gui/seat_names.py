"""The names a croupier gave a table's seats, kept on this station's PC between runs.

Only a label on the croupier's screen: the journal records each wager under the name it was
placed with, so nothing here can change what a round pays. A missing, unreadable or odd file
gives the plain seat names back; failing to write it never stops the table.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

# Not engine.store: the croupier station reads the names before its first frame, with no store
# open yet and without SQLAlchemy imported (issue 28).
from engine.config import APP_NAME
from engine.table_ids import check_table_id

MAX_NAME = 24  # fits a player button and a paying-list row


def seats_path(table: str) -> Path:
    import platformdirs

    return platformdirs.user_data_path(APP_NAME) / f"seats-{check_table_id(table)}.json"


def load_seats(table: str, default: tuple[str, ...], path: Path | None = None) -> tuple[str, ...]:
    """The saved names when they are a usable set of `len(default)` seats, else `default`."""
    try:
        raw = json.loads((path or seats_path(table)).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default
    if (
        not isinstance(raw, list)
        or len(raw) != len(default)
        or not all(isinstance(n, str) and n.strip() == n and 0 < len(n) <= MAX_NAME for n in raw)
        or len(set(raw)) != len(raw)
    ):
        return default
    return tuple(raw)


def save_seats(table: str, names: tuple[str, ...], path: Path | None = None) -> bool:
    """Write the names (replacing the file in one step); False when the disk refuses."""
    target = path or seats_path(table)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(json.dumps(list(names), ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, target)
    except OSError:
        return False
    return True
