"""docs/users-and-roles.md shows exactly the permissions engine/auth.py grants each role."""

from __future__ import annotations

import re
from pathlib import Path

from engine.auth import ALL_PERMISSIONS, PERMISSIONS, ROLES

DOC = Path(__file__).resolve().parents[2] / "docs" / "users-and-roles.md"


def test_the_role_table_matches_the_engine() -> None:
    text = DOC.read_text(encoding="utf-8")
    header = re.search(r"^\| permission \| (.+) \|$", text, re.M)
    assert header is not None
    roles = [r.strip() for r in header.group(1).split("|")]
    assert roles == list(ROLES)
    rows = re.findall(r"^\| `([a-z_]+)` \|((?: [✓ ]* \|)+)$", text, re.M)
    table = {name: [cell.strip() == "✓" for cell in cells.split("|")[:-1]] for name, cells in rows}
    assert set(table) == set(ALL_PERMISSIONS)
    for name, marks in table.items():
        assert marks == [name in PERMISSIONS[role] for role in ROLES], name
