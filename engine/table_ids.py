"""A table's id: the one rule for what a table may be called (it names the table's files)."""

from __future__ import annotations

import re

from engine.errors import DrrError

# 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit: safe in a file name.
TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_table_id(table: str) -> str:
    """`table`, or DrrError naming the rule it breaks."""
    if not TABLE_ID.match(table):
        raise DrrError(f"bad table id {table!r}: use 1-64 letters, digits, '.', '_' or '-'")
    return table
