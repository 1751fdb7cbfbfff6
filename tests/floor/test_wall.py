"""The wall's tiles, read for many tables at once (on PostgreSQL in one query), show exactly the figures
of each table's full page (`table_view`, i.e. `drr stats`) for the same window."""

from __future__ import annotations

import pytest

from engine.floor import windows as win
from engine.floor.surveillance import table_view
from engine.floor.wall import tile_views
from engine.store import Store
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures
from tests.floor.played import DemoFloor

T1_ROUNDS = 45  # sized for speed (issue 29.2)


@pytest.fixture
def floor(demo_floor: DemoFloor) -> Store:
    """The demo floor (58 rounds through the table service: T1's 40th a bonus game, more than the last
    25 spins on T1, a table of one round), played once per test process and copied for each test
    (tests/floor/played.py; a module-scoped fixture was played again whenever pytest-xdist's worksteal
    ran another module's test on the worker in between). On the PostgreSQL of DRR_TEST_PG_URL when
    set, as tests/floor/helpers.py's store."""
    return demo_floor({"T1": T1_ROUNDS, "T2": 12, "T3": 1})


@pytest.mark.parametrize(
    "window", [win.last_spins(25), win.last_spins(1000), win.everything()], ids=["last25", "last1000", "all"]
)
def test_tiles_show_the_figures_of_the_full_page(floor: Store, window: win.SpinWindow) -> None:
    tiles = tile_views(floor, ["T1", "T2", "T3"], window)
    assert set(tiles) == {"T1", "T2", "T3"}
    for table, tile in tiles.items():
        page = table_view(floor, table, window)
        assert tile.stats["counts"] == page.stats["counts"]
        assert tile.stats["spins"] == page.stats["spins"]
        assert tile.stats["chi_square"] == page.stats["chi_square"]
        assert tile.stats["z_scores"]["flagged"] == page.stats["z_scores"]["flagged"]
        assert tile.layout == page.layout
        assert tile.verdict == page.verdict
        assert tile.last_time == page.last_time
        assert tile.seq == floor.journal.head(table)[0]  # type: ignore[index]
    assert tiles["T1"].stats["spins"] == min(T1_ROUNDS, window.last or T1_ROUNDS)


def test_no_tables_no_query(store: Store) -> None:  # noqa: F811
    assert tile_views(store, [], win.last_spins(10)) == {}


def test_the_tiles_of_a_last_n_window_are_read_in_one_transaction(floor: Store) -> None:
    """On PostgreSQL each read is a pool check-out (its pre-ping), BEGIN and an end besides its queries:
    the counts and the heads share one (they were two, each a few round trips the station's screen
    reader waited on for every tile it redrew, issue 28)."""
    if floor.is_sqlite:
        pytest.skip("the floor's PostgreSQL (DRR_TEST_PG_URL): a SQLite store reads its aggregates")
    import sqlalchemy as sa

    checkouts: list[object] = []

    def count(*_args: object) -> None:
        checkouts.append(_args)

    sa.event.listen(floor.engine, "checkout", count)
    try:
        tiles = tile_views(floor, ["T1", "T2", "T3"], win.last_spins(25))
    finally:
        sa.event.remove(floor.engine, "checkout", count)
    assert len(checkouts) == 1
    assert tiles["T1"].stats["spins"] == 25 and tiles["T3"].seq == floor.journal.head("T3")[0]  # type: ignore[index]
