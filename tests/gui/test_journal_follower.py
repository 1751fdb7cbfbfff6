"""A player display and bonus screen on a store the croupier station's table service owns: they
follow the journal without claiming the table, show what the croupier's screen shows, and refuse
every command."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.bets import BetKind, inside_bet, outside_bet
from engine.errors import DrrError
from engine.rng import SeededRng
from engine.round import Phase
from engine.store import open_store
from engine.table.follower import READ_ONLY, JournalFollower
from engine.table.service import TableService
from gui.table_model import TableModel
from gui.windows.bonus_screen import BonusScreen
from gui.windows.player_display import PlayerDisplay
from tests.pg_schema import PG_URL, pg_schema_url

CROUPIER = User("carol", "croupier")
PLAYERS = ("anna", "bob")


@pytest.fixture
def store_url(tmp_path: Path) -> Iterator[str]:
    """PostgreSQL (a schema of its own) with DRR_TEST_PG_URL, else a SQLite file."""
    if PG_URL is None:
        yield str(tmp_path / "table.sqlite")
        return
    with pg_schema_url("drr_follow") as url:
        yield url


def test_display_follows_the_owned_table_read_only(
    loop: asyncio.AbstractEventLoop, store_url: str, qtbot: QtBot
) -> None:
    path = store_url
    owner_store = open_store(path, table="T1")
    service = TableService(owner_store, "T1", rng=SeededRng(9), allow_seeded_rng=True)  # claims the table
    loop.run_until_complete(service.start())
    try:
        # A second station may not run the table itself …
        with pytest.raises(DrrError, match="already in use"):
            loop.run_until_complete(
                TableService(
                    open_store(path, table="T1"), "T1", rng=SeededRng(1), allow_seeded_rng=True
                ).start()
            )
        # … but it can follow it.
        viewer_store = open_store(path, table="T1", migrate=False)
        follower = JournalFollower(viewer_store, "T1")
        shown = TableModel(follower, User("viewer", "surveillance"), PLAYERS)
        shown.refresh()
        display = PlayerDisplay(shown)
        bonus = BonusScreen(shown, read_only=True)
        qtbot.addWidget(display)
        qtbot.addWidget(bonus)
        owner = TableModel(service, CROUPIER, PLAYERS)

        def step(coro: object) -> None:
            loop.run_until_complete(coro)
            assert follower.poll() > 0
            mine, theirs = shown.snapshot(), owner.snapshot()
            assert (mine.phase, mine.round_no, mine.wagers, mine.draw, mine.result, mine.pay_lines) == (
                theirs.phase,
                theirs.round_no,
                theirs.wagers,
                theirs.draw,
                theirs.result,
                theirs.pay_lines,
            )

        step(service.open_bets(CROUPIER))
        assert display.marquee.phase is Phase.OPEN
        step(service.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5)))
        step(service.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(10)))
        step(service.no_more_bets(CROUPIER))
        draw = owner.snapshot().draw
        assert draw is not None and display.marquee.lucky == dict(draw.lucky)
        assert display.marquee.bonus == draw.bonus_number
        step(service.wheel_event({"type": "result", "game": 1, "number": 17}))
        step(service.confirm_result(CROUPIER))
        step(service.settle(CROUPIER))
        assert display.marquee.phase is Phase.SETTLED
        assert [e.number for e in display.marquee.history] == [17]
        assert follower.poll() == 0  # nothing new: nothing folded twice

        # Every command from the follower is refused, and nothing is journaled.
        refused: list[str] = []
        shown.refused.connect(refused.append)
        shown.bonusRefused.connect(refused.append)  # a player's command: the bonus screen's refusal
        last = follower.state.last_seq
        shown.open_bets()
        shown.bonus_pick("anna", 0)

        async def drain() -> None:
            while shown.tasks:
                await asyncio.gather(*list(shown.tasks), return_exceptions=True)

        loop.run_until_complete(drain())
        assert refused == [READ_ONLY, READ_ONLY]
        assert follower.poll() == 0 and follower.state.last_seq == last
        assert "croupier station" in bonus.reason.text()
        viewer_store.close()
    finally:
        loop.run_until_complete(service.close())
        owner_store.close()


def test_drr_gui_display_and_bonus_start_beside_the_croupier_station(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], qapp: object
) -> None:
    from gui import cli

    db = tmp_path / "t.sqlite"
    # No croupier station has ever run on it: a one-line answer, not a new empty store.
    assert cli.main(["gui", "--station", "display", "--table", "T1", "--db", str(db)]) != 0
    assert "no store at" in capsys.readouterr().err and not db.exists()
    assert (
        cli.main(["gui", "--station", "croupier", "--table", "T1", "--db", str(db), "--first-frame-exit"])
        == 0
    )
    capsys.readouterr()
    with open_store(str(db), table="T1") as owner:
        owner.claim("T1", station="croupier")  # the croupier station is running
        for station in ("display", "bonus"):
            args = ["gui", "--station", station, "--table", "T1", "--db", str(db), "--first-frame-exit"]
            assert cli.main(args) == 0, capsys.readouterr().err
            assert capsys.readouterr().out.startswith("first_frame_at ")


def test_a_round_without_wagers_shows_its_winning_number(
    loop: asyncio.AbstractEventLoop, tmp_path: Path, qtbot: QtBot
) -> None:
    store = open_store(str(tmp_path / "table.sqlite"), table="T1")
    service = TableService(store, "T1", rng=SeededRng(3), allow_seeded_rng=True, claim=False)
    loop.run_until_complete(service.start())
    table = TableModel(service, CROUPIER, PLAYERS)
    table.refresh()
    display = PlayerDisplay(table)
    qtbot.addWidget(display)
    try:
        for coro in (service.open_bets(CROUPIER), service.no_more_bets(CROUPIER)):
            loop.run_until_complete(coro)
        loop.run_until_complete(service.wheel_event({"type": "result", "game": 1, "number": 23}))
        assert display.marquee.result is None  # not confirmed yet
        loop.run_until_complete(service.confirm_result(CROUPIER))
        assert display.marquee.result == 23
        loop.run_until_complete(service.settle(CROUPIER))
        assert display.marquee.result == 23 and display.marquee.phase is Phase.SETTLED
    finally:
        loop.run_until_complete(service.close())
        store.close()


def test_the_store_watch_wakes_the_follower(
    loop: asyncio.AbstractEventLoop, store_url: str, qtbot: QtBot
) -> None:
    """No manual polling: the store watch (data_version on SQLite, NOTIFY on PostgreSQL) folds the
    croupier station's entries into the display by itself."""
    from gui.floor.watch import StoreWatch

    owner_store = open_store(store_url, table="T1")
    service = TableService(owner_store, "T1", rng=SeededRng(5), allow_seeded_rng=True)
    loop.run_until_complete(service.start())
    viewer_store = open_store(store_url, table="T1", migrate=False)
    follower = JournalFollower(viewer_store, "T1")
    shown = TableModel(follower, User("viewer", "surveillance"), PLAYERS)
    shown.refresh()
    display = PlayerDisplay(shown)
    qtbot.addWidget(display)
    watch = StoreWatch(viewer_store, interval_ms=20)
    watch.changed.connect(lambda _tables: follower.poll())
    watch.start()
    try:
        loop.run_until_complete(service.open_bets(CROUPIER))
        loop.run_until_complete(service.no_more_bets(CROUPIER))
        qtbot.waitUntil(lambda: display.marquee.phase is Phase.CLOSED, timeout=5000)
        draw = service.round.draw if service.round is not None else None
        assert draw is not None and display.marquee.lucky == dict(draw.lucky)
    finally:
        watch.stop()
        viewer_store.close()
        loop.run_until_complete(service.close())
        owner_store.close()
