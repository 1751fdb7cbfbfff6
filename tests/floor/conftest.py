"""The floor fixtures (tests/floor/helpers.py) for the engine tests of engine/floor."""

from tests.floor.helpers import store, store_url  # noqa: F401 - pytest finds fixtures by name
from tests.floor.played import demo_floor  # noqa: F401
