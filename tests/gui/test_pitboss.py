"""The pit-boss station: the lazy history model fetches in pages, recall of a bonus-game round,
every signed-off action allowed for a pit boss and refused for other roles (by the engine), and
report exports."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QSpinBox
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.floor import actions
from engine.floor.demo import fill_demo_floor
from engine.store import Store, schema
from gui.floor.signoff import SignOffDialog
from gui.windows.pitboss import PitBossWindow
from tests.floor.helpers import PINS, add_users, import_spins, store, store_url  # noqa: F401 - fixtures


@pytest.fixture
def floor(store: Store) -> Store:  # noqa: F811
    add_users(store)
    fill_demo_floor(store, {"T1": 45})  # a bonus game (round 40), a manual result (26)
    return store


class Signer:
    """Stands in for the person at the sign-off dialog: fills name, PIN and reason, presses OK."""

    def __init__(self, name: str, pin: str, reason: str = "checked on camera") -> None:
        self.name, self.pin, self.reason = name, pin, reason
        self.errors: list[str] = []

    def exec(self, dialog: SignOffDialog) -> int:
        dialog.name.setText(self.name)
        dialog.pin.setText(self.pin)
        dialog.reason.setPlainText(self.reason)
        for spin in dialog.findChildren(QSpinBox):  # the corrected result: the next number
            spin.setValue((spin.value() + 1) % 37)
        dialog.try_sign()
        if dialog.error.text():
            self.errors.append(dialog.error.text())
        return int(dialog.result() == QDialog.DialogCode.Accepted)


@pytest.fixture
def signer(monkeypatch: pytest.MonkeyPatch) -> Iterator[Signer]:
    person = Signer("pat", PINS["pat"])
    monkeypatch.setattr(SignOffDialog, "exec", lambda dialog: person.exec(dialog))
    yield person


def _select(window: PitBossWindow, round_id: str) -> None:
    window.filters.round_id.setText(round_id)
    window.apply_filters()
    assert window.selected_row() is not None and window.selected_row().round_id == round_id  # type: ignore[union-attr]


def _types(db: Store, round_id: str) -> list[str]:
    j = schema.journal
    with db.read() as conn:
        return list(
            conn.execute(sa.select(j.c.type).where(j.c.round_id == round_id).order_by(j.c.seq)).scalars()
        )


def test_history_model_fetches_in_pages(qtbot: QtBot, store: Store, tmp_path: Path) -> None:  # noqa: F811
    import_spins(store, tmp_path, "T7", [n % 37 for n in range(1000)])
    window = PitBossWindow(store, page=100)
    qtbot.addWidget(window)
    model = window.model
    assert model.rowCount() == 100 and model.fetches == 1 and model.canFetchMore()
    model.fetchMore()
    assert model.rowCount() == 200 and model.fetches == 2
    window.resize(1200, 800)
    window.show()
    window.view.scrollToBottom()  # Qt asks for more as the view nears the end
    qtbot.waitUntil(lambda: model.rowCount() > 200, timeout=2000)
    while model.canFetchMore():
        model.fetchMore()
    ids = [r.round_id for r in model.rows]
    assert len(ids) == len(set(ids)) == 1000 and model.fetches == 10
    window.model.sort(4)  # Result, ascending: a new keyset query from the first page
    assert model.fetches == 1 and model.rows[0].result == 0


def test_recall_of_a_bonus_round(qtbot: QtBot, floor: Store) -> None:
    window = PitBossWindow(floor, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    _select(window, "T1-000040")
    recall = window.recall
    assert recall.banner.text().startswith("RECALL MODE — round T1-000040")
    assert recall.felt.result == recall.felt.bonus_number == recall.recall.result  # type: ignore[union-attr]
    assert len(recall.felt._wagers) == len(recall.recall.wagers) >= 4  # type: ignore[union-attr]
    assert "picked box" in recall.bonus.toPlainText() and "to 1" in recall.bonus.toPlainText()
    assert recall.payouts.rowCount() == len(recall.recall.wagers)  # type: ignore[union-attr]
    assert recall.audit.topLevelItemCount() == len(recall.recall.entries)  # type: ignore[union-attr]
    # The wheel's messages the service journaled (wheel.rotor, not the old demo's wheel.rotor_speed).
    shown = [line.split()[1] for line in recall.wheel.toPlainText().splitlines()]
    assert shown == ["rotor", "launched", "no_more_bets", "result"]
    assert recall.felt.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)


def test_buttons_follow_the_role(qtbot: QtBot, floor: Store) -> None:
    for user, visible in (
        (User("pat", "pitboss"), True),
        (User("sam", "surveillance"), False),
        (None, False),
    ):
        window = PitBossWindow(floor, user=user)
        qtbot.addWidget(window)
        for button in (window.void_button, window.correct_button, window.approve_button,
                       window.load_rules_button, window.apply_settings_button):  # fmt: skip
            assert (not button.isHidden()) == visible


def test_void_correct_approve_for_a_pitboss(qtbot: QtBot, floor: Store, signer: Signer) -> None:
    window = PitBossWindow(floor, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    _select(window, "T1-000010")
    window.void_selected()
    assert "voided by pat" in window.status.text()
    assert _types(floor, "T1-000010")[-1] == "round.voided"
    _select(window, "T1-000011")
    old = window.selected_row().result  # type: ignore[union-attr]
    window.correct_selected()
    assert "round.result_corrected" in _types(floor, "T1-000011")
    assert window.recall.recall.original_result == old  # type: ignore[union-attr]
    _select(window, "T1-000012")
    window.approve_selected()
    assert _types(floor, "T1-000012")[-1] == "round.payout_approved"
    assert signer.errors == []


@pytest.mark.parametrize(
    ("name", "why"), [("cody", "may not"), ("sam", "may not"), ("pat-wrong", "wrong PIN")]
)
def test_actions_refused_for_other_roles_or_a_wrong_pin(
    qtbot: QtBot, floor: Store, signer: Signer, name: str, why: str
) -> None:
    window = PitBossWindow(floor, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    signer.name, signer.pin = ("pat", "0000") if name == "pat-wrong" else (name, PINS[name])
    before = _types(floor, "T1-000020")
    _select(window, "T1-000020")
    window.void_selected()
    window.correct_selected()
    window.approve_selected()
    window.rules_table.addItems(["T1"])
    assert not window.load_rules_file(Path("resources/rules/default.toml"))
    window.settings_table.addItems(["T1"])
    window.setting_edits["max_bet"].setText("750")
    window.apply_settings()
    assert _types(floor, "T1-000020") == before
    assert len(signer.errors) == 5 and all(why in e for e in signer.errors)
    j = schema.journal
    with floor.read() as conn:
        assert (
            conn.execute(sa.select(sa.func.count()).where(j.c.type == "table.settings_changed")).scalar() == 0
        )


def test_settings_and_rules_for_a_pitboss(qtbot: QtBot, floor: Store, signer: Signer) -> None:
    window = PitBossWindow(floor, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    window.tabs.setCurrentWidget(window.settings_tab)
    window.settings_table.setCurrentText("T1")
    window.setting_edits["max_bet"].setText("750")
    window.apply_settings()
    window.show_settings()
    assert window.setting_edits["max_bet"].text() == "750"
    window.tabs.setCurrentWidget(window.rules_tab)
    assert window.load_rules_file(Path("resources/rules/default.toml"))
    assert "loaded by pat" in window.rules_text.toPlainText()
    assert "Game math" in window.last_dialog.findChildren(type(window.rules_text))[0].toPlainText()


def test_report_on_screen_csv_and_pdf(qtbot: QtBot, floor: Store, tmp_path: Path) -> None:
    window = PitBossWindow(floor, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    reports = window.reports
    reports.set_period("T1", datetime(2026, 11, 29, tzinfo=UTC))
    reports.show_report()
    rep = reports.report
    assert rep is not None and rep.rounds == 45
    assert reports.figure_labels["Handle"].text() == f"{rep.handle:,.2f}"
    assert reports.chart.values == [float(rep.handle), float(rep.returned), float(rep.win)]
    assert rep.theoretical_win is not None and reports.chart.expected_values[2] == float(rep.theoretical_win)
    csv_path = reports.export_csv(tmp_path / "report.csv")
    pdf_path = reports.export_pdf(tmp_path / "report.pdf")
    assert csv_path is not None and f"{rep.handle:.2f}" in csv_path.read_text(encoding="utf-8")
    assert (
        pdf_path is not None and pdf_path.read_bytes().startswith(b"%PDF") and pdf_path.stat().st_size > 5000
    )


@pytest.mark.parametrize(("name", "allowed"), [("pat", True), ("cody", False)])
def test_acknowledging_an_alert_needs_the_pin_of_a_role_that_may(
    qtbot: QtBot, floor: Store, signer: Signer, name: str, allowed: bool
) -> None:
    from engine.floor.alerts import AlertScanner, list_alerts

    AlertScanner().scan(floor, ["T1"])  # the demo floor's manual results
    window = PitBossWindow(floor, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    window.tabs.setCurrentWidget(window.alerts)
    signer.name, signer.pin = name, PINS[name]
    window.alerts.table.selectRow(0)
    target = window.alerts.selected()
    assert target is not None
    window.alerts.acknowledge_selected()
    after = {a.alert_id: a for a in list_alerts(floor)}[target.alert_id]
    assert (after.acknowledged_by == name) is allowed
    assert bool(signer.errors) is not allowed


def test_new_rounds_are_announced_while_the_history_is_open(qtbot: QtBot, floor: Store) -> None:
    from datetime import timedelta

    from engine.floor.demo import START, play_rounds

    window = PitBossWindow(floor, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    before = window.model.rowCount()
    assert play_rounds(floor, "T1", 1, seed="later", start=START + timedelta(days=1)) == ["T1-000046"]
    qtbot.waitUntil(lambda: "new journal entries on table T1" in window.status.text(), timeout=1000)
    assert window.model.rowCount() == before  # the list does not move under the reader
    window.apply_filters()
    assert window.model.rows[0].round_id == "T1-000046"


def test_correct_result_refuses_before_the_reason_and_pin(
    qtbot: QtBot, floor: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round whose result cannot be corrected is refused when the button is pressed, not after the
    pit boss has typed a reason and a PIN (issue 12)."""
    window = PitBossWindow(floor, user=User("pat", "pitboss"))
    qtbot.addWidget(window)
    _select(window, "T1-000010")
    actions.void(floor, "T1-000010", "dispute", User("pat", "pitboss"), table="T1")

    def no_dialog(dialog: SignOffDialog) -> int:
        raise AssertionError("the sign-off dialog was opened for a round that cannot be corrected")

    monkeypatch.setattr(SignOffDialog, "exec", no_dialog)
    window.correct_selected()
    assert "void: there is no result to correct" in window.status.text()
