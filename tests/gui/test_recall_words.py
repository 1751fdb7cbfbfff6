"""Issue 25 point 6: recall's Payouts tab said "straight" without the number, and `drr history show`
printed `result None` and raw lists. Both now say each bet as the one bet-wording does (engine.bets
Bet.label: "straight 17") and the round in words."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.cli.history_cmd import show_lines
from engine.floor.recall import recall_round
from gui.floor.recall_view import RecallView
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures
from tests.floor.played import DemoFloor, demo_floor  # noqa: F401 - a fixture


def test_recall_payouts_and_history_show_speak_in_words(qtbot: QtBot, demo_floor: DemoFloor) -> None:  # noqa: F811
    store = demo_floor({"T1": 3})  # noqa: F811
    rec = recall_round(store, "T1-000002", "T1")
    view = RecallView()
    qtbot.addWidget(view)
    view.show_recall(rec)
    labels = {w.bet.label for w in rec.wagers}
    shown = {view.payouts.item(r, 1).text() for r in range(view.payouts.rowCount())}
    assert shown == labels and any(any(c.isdigit() for c in label) for label in shown), shown

    lines = show_lines(rec)
    text = "\n".join(lines)
    assert "None" not in text and "[" not in text and "{" not in text, text
    assert f"result {rec.result}" in lines[0]
    for w in rec.wagers:
        assert w.words in text  # "Anna's 25 on straight 17"
        placed = [e for e in rec.entries if e.type == "round.wager_placed" and e.payload["id"] == w.id]
        assert rec.text(placed[0]) == f"wager placed: {w.words}"  # the audit tab's sentence too
