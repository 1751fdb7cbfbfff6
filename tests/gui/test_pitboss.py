"""The pit-boss station: the lazy history model fetches in pages, recall of a bonus-game round,
every signed-off action allowed for a pit boss and refused for other roles (by the engine), and
report exports."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLabel, QSpinBox
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.floor import actions
from engine.store import Store, schema
from gui.floor.signoff import SignOffDialog
from gui.windows.pitboss import PitBossWindow
from tests.floor.helpers import PINS, import_spins, store, store_url  # noqa: F401 - fixtures
from tests.floor.played import demo_floor  # noqa: F401 - a fixture
from tests.gui.live import PIT_BOSS, LiveTables, service_of


@pytest.fixture
def floor(demo_floor: Callable[..., Store]) -> Store:  # noqa: F811
    # A bonus game (round 40), a manual result (26); played once per test process and copied into this
    # test's store (tests/floor/played.py).
    return demo_floor({"T1": 45}, users=True)


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
    shown = [line.split(": ", 1)[1] for line in recall.wheel.toPlainText().splitlines()]
    assert [s.split()[0] for s in shown] == ["rotor", "ball", "the", "the"]
    assert "launched" in shown[1] and "no more bets" in shown[2] and "reported" in shown[3]
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


def test_open_and_voided_rounds_show_their_wagers_and_recall_draws_the_croupiers_chips(
    qtbot: QtBot, tables: LiveTables, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12: history, recall and the void dialog said "wagered 0.00" with chips on the felt, a void
    hid what it returned, and recall drew every chip as the first seat's (a gold circle)."""
    from decimal import Decimal

    from engine.bets import BetKind, inside_bet, outside_bet
    from gui import theme
    from gui.windows.croupier import CroupierWindow

    seats = ("Seat 1", "Seat 2", "Seat 3")
    table = tables.start(players=seats)
    croupier = CroupierWindow(table, table.players)
    qtbot.addWidget(croupier)
    table.open_bets()
    tables.run()
    for _ in range(3):
        table.place_wager("Seat 3", inside_bet([17]), Decimal(5))
    table.place_wager("Seat 2", outside_bet(BetKind.RED), Decimal(10))
    tables.run()
    db = service_of(table).store
    round_id = service_of(table).state.round_id
    window = PitBossWindow(db, user=User("pat", "pitboss"), live=False)
    qtbot.addWidget(window)
    _select(window, round_id)
    assert window.selected_row().wagered == Decimal("25.00")  # type: ignore[union-attr]
    recall = window.recall
    assert "Wagered</b> 25.00 (Seat 3 15.00, Seat 2 10.00)" in recall.summary.text()
    for seat in ("Seat 2", "Seat 3"):  # each seat's chips as the croupier's felt drew them
        assert recall.felt._styles[seat] == croupier.styles[seat] == theme.player_style(seats.index(seat))
    assert recall.payouts.rowCount() == 4 and recall.payouts.item(0, 3).text() == "not settled yet"
    details: list[str] = []

    def shown(dialog: SignOffDialog) -> int:
        details.append(" ".join(label.text() for label in dialog.findChildren(QLabel)))
        return 0

    monkeypatch.setattr(SignOffDialog, "exec", shown)
    window.void_selected()
    assert any("wagered 25.00" in t and "Seat 3 15.00, Seat 2 10.00" in t for t in details), details
    tables.call(service_of(table).void(User(PIT_BOSS, "pitboss"), "wheel malfunction"))
    window.apply_filters()
    _select(window, round_id)
    row = window.selected_row()
    assert row is not None and row.status == "void" and row.wagered == Decimal("25.00")
    assert "Returned by the void</b> 25.00 (Seat 3 15.00, Seat 2 10.00)" in window.recall.summary.text()
    assert window.recall.payouts.item(0, 3).text() == "returned (void)"
    window.resize(1800, 1000)
    window.grab().save("/tmp/floorui/pitboss-void-recall.png")


def test_no_raw_journal_text_in_recall_or_the_correction_dialog(
    qtbot: QtBot, floor: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12: raw JSON in *Wheel messages*, `deadline=…` in the bonus log, "result None" in the
    correction dialog."""
    window = PitBossWindow(floor, user=User("pat", "pitboss"), live=False)
    qtbot.addWidget(window)
    _select(window, "T1-000040")
    recall = window.recall
    shown = [recall.wheel.toPlainText(), recall.bonus.toPlainText()] + [
        recall.audit.topLevelItem(i).text(4) for i in range(recall.audit.topLevelItemCount())
    ]
    for text in shown:
        assert "{" not in text and "deadline" not in text and "sha256" not in text and "_" not in text, text
    assert "rpm" in recall.wheel.toPlainText() and "the wheel reported" in recall.wheel.toPlainText()
    asked: list[str] = []
    monkeypatch.setattr(SignOffDialog, "exec", lambda d: asked.append("asked") or 0)
    with floor.begin() as conn:  # a round with no result yet
        r = schema.rounds
        conn.execute(sa.update(r).where(r.c.round_id == "T1-000030").values(result=None))
    _select(window, "T1-000030")
    window.correct_selected()
    assert asked == [] and "has no result to correct" in window.status.text()
    assert "None" not in window.status.text()


def test_table_settings_show_the_values_in_force_and_refuse_bad_input_before_the_pin(
    qtbot: QtBot, floor: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12: the Table settings tab showed empty fields, and `abc` was refused only after reason
    and PIN."""
    from engine.rules import load_default_rules

    window = PitBossWindow(floor, user=User("pat", "pitboss"), live=False)
    qtbot.addWidget(window)
    window.tabs.setCurrentWidget(window.settings_tab)
    window.settings_table.setCurrentText("T1")
    edits, sources = window.setting_edits, window.setting_sources
    # The shipped Rules Submission sets no bet limits: the fields say so instead of staying blank.
    assert load_default_rules().limits.minimum is None
    assert edits["min_bet"].text() == "" and "sets no minimum" in sources["min_bet"].text()
    assert edits["status"].text() == "open" and edits["large_payout"].text() == "10000"
    assert edits["silent_after_minutes"].text() == "10"
    assert edits["dealer"].text() and "latest round" in sources["dealer"].text()
    asked: list[str] = []
    monkeypatch.setattr(SignOffDialog, "exec", lambda d: asked.append("asked") or 0)
    edits["max_bet"].setText("abc")
    window.apply_settings()
    assert asked == [] and "max_bet 'abc' is not an amount" in window.status.text()
    edits["max_bet"].setText("1")
    edits["min_bet"].setText("5")
    window.apply_settings()
    assert asked == [] and "min_bet 5 is above max_bet 1" in window.status.text()
    window.resize(1400, 800)
    window.grab().save("/tmp/floorui/pitboss-settings.png")


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
