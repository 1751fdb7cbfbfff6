"""docs/configuration.md lists every settings key with its real default, and no key that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

from engine import config

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def documented() -> dict[str, str]:
    rows = re.findall(r"^\| `([a-z_.]+)` \| `([^`]*)` \|", DOC.read_text(encoding="utf-8"), re.M)
    return dict(rows)


def test_every_key_is_documented_with_its_default() -> None:
    defaults = config.Settings()
    expected = {
        key.name: '""' if defaults.value(key.name) is None else config.toml_value(defaults.value(key.name))
        for key in config.KEY_LIST
    }
    assert documented() == expected
