"""The station registry's window functions, imported by name when a station starts (engine.stations)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from engine.stations import station


def windows_function(name: str) -> Callable[..., Any]:
    """The function the registry names for station `name` ("module:function"), imported now: a
    station's window module (and Qt with it) loads only when that station starts."""
    module, _, function = station(name).windows.partition(":")
    found = getattr(importlib.import_module(module), function)
    if not callable(found):
        raise TypeError(f"station {name}: {station(name).windows} is not a function")
    return found  # type: ignore[no-any-return]
