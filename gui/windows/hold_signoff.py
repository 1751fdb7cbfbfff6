"""A pit boss's sign-off at the croupier station: what ends the hold (the remedies engine.table.holds
opens now, the others greyed with why), a manual result's number typed twice, then the reason, name
and PIN in the shared sign-off dialog (gui.floor.signoff.SignOffDialog), checked by the engine."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from engine.auth import User
from engine.errors import DrrError
from engine.table.holds import ACCEPT_SENSOR, ACKNOWLEDGE, MANUAL_RESULT, PERMISSION, VOID
from engine.table.view import TableView, money
from gui.floor.signoff import SignOffDialog
from gui.table_model import TableModel

# The pit boss's remedies, in the order offered, with what each does.
CHOICES = (
    (ACKNOWLEDGE, "Acknowledge it: the round goes on, a fresh result is needed"),
    (ACCEPT_SENSOR, "Accept the sensor's number{number} (checked at the wheel)"),
    (MANUAL_RESULT, "Enter this round's result (game {game}) by hand"),
    (VOID, "Void the round: every wager is returned"),
)


def parse_number(text: str) -> int:
    """A pocket number typed by a person: 0-36, digits only; DrrError naming what is wrong."""
    raw = text.strip()
    if not raw:
        raise DrrError("type the ball's number (0-36)")
    if not raw.isdigit() or int(raw) > 36:
        raise DrrError(f"{raw!r} is not a number 0-36")
    return int(raw)


class RemedyChoice(QWidget):
    """The choice of remedy and, for a manual result, the number twice (validated as typed)."""

    def __init__(self, view: TableView, offer: tuple[str, ...], chosen: str | None = None) -> None:
        super().__init__()
        rem = view.remedies
        # The hold's dialog lists the pit boss's remedies that are not open now too, greyed with why;
        # the Void button's lists only the void.
        refused = rem.refused if rem is not None and chosen is None else {}
        number = rem.sensor_number if rem is not None else None
        game = rem.game if rem is not None and rem.game is not None else "of this spin"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        self.refused_labels: dict[str, QLabel] = {}
        for remedy, text in CHOICES:
            if remedy not in offer and remedy not in refused:
                continue
            b = QRadioButton(text.format(number=f" {number}" if number is not None else "", game=game))
            open_ = remedy in offer
            b.setEnabled(open_)
            self.group.addButton(b)
            self.buttons[remedy] = b
            layout.addWidget(b)
            if not open_:  # greyed, with why under it (a radio button's text does not wrap)
                b.setToolTip(refused.get(remedy, ""))
                why = QLabel(f"not now: {refused.get(remedy, '')}")
                why.setObjectName("dim")  # not wrapped: a form row squeezes wrapped lines over the fields
                why.setContentsMargins(26, 0, 0, 4)
                layout.addWidget(why)
                self.refused_labels[remedy] = why
            b.toggled.connect(self._changed)
        self.number = QLineEdit()
        self.number.setPlaceholderText("the ball's number, 0-36")
        self.again = QLineEdit()
        self.again.setPlaceholderText("the same number again")
        if MANUAL_RESULT in offer:
            grid = QGridLayout()
            grid.setVerticalSpacing(8)
            grid.addWidget(QLabel("Result"), 0, 0)
            grid.addWidget(self.number, 0, 1)
            grid.addWidget(QLabel("Again"), 1, 0)
            grid.addWidget(self.again, 1, 1)
            layout.addLayout(grid)
        self.error = QLabel("")
        self.error.setObjectName("error")
        layout.addWidget(self.error)
        self.number.textChanged.connect(self._changed)
        self.again.textChanged.connect(self._changed)
        if chosen is not None and chosen in offer:
            self.buttons[chosen].setChecked(True)
        self._changed()

    @property
    def chosen(self) -> str | None:
        return next((r for r, b in self.buttons.items() if b.isChecked()), None)

    def _changed(self) -> None:
        manual = self.chosen == MANUAL_RESULT
        self.number.setEnabled(manual)
        self.again.setEnabled(manual)
        try:  # as typed: the error is on screen before the reason and PIN are
            if manual and (self.number.text() or self.again.text()):
                self.check()
            self.error.setText("")
        except DrrError as exc:
            self.error.setText(exc.message)

    def check(self) -> None:
        """Raise DrrError unless a remedy is chosen and, for a manual result, one number typed twice."""
        if self.chosen is None:
            raise DrrError("choose what ends the hold")
        if self.chosen != MANUAL_RESULT:
            return
        first = parse_number(self.number.text())
        if not self.again.text().strip():
            raise DrrError("type the number a second time to confirm it")
        if parse_number(self.again.text()) != first:
            raise DrrError("the two entries differ: type the ball's number again")

    def manual_number(self) -> int:
        return parse_number(self.number.text())


@dataclass(frozen=True)
class SignedRemedy:
    """What the pit boss signed off: the remedy, who, why, and a manual result's number."""

    remedy: str
    boss: User
    reason: str
    number: int | None = None


def void_amounts(view: TableView) -> str:
    """What a void hands back (issue 25 point 6: the void dialog showed no amounts): the round's
    wagered total and each player's share, all of it returned."""
    per: dict[str, Decimal] = {}
    for w in view.wagers:
        per[w.player] = per.get(w.player, Decimal(0)) + w.amount
    total = sum(per.values(), Decimal(0))
    if not per:
        return "no wagers on the felt: nothing to return."
    players = ", ".join(f"{p} {money(v)}" for p, v in per.items())
    return f"wagered {money(total)} ({players}); returned {money(total)} to the players."


def pit_boss_dialog(
    table: TableModel, view: TableView, offer: tuple[str, ...], chosen: str | None, parent: QWidget
) -> tuple[SignOffDialog, RemedyChoice]:
    """The sign-off dialog for `offer` (the remedies open now); nothing preselected unless the
    croupier's own click chose it (`chosen`: the Void button)."""
    choice = RemedyChoice(view, offer, chosen)
    rem = view.remedies
    if chosen == VOID or rem is None:
        held = f"On hold: {rem.what}.\n" if rem is not None else ""
        title = "Void round"
        detail = f"{held}Void this round? Every wager is returned to its player.\n{void_amounts(view)}"
    else:
        # What happened; what may end it is the choice below (the croupier's line says it in full).
        title, detail = "Pit boss sign-off", f"On hold: {rem.what}."
        if VOID in offer:
            detail += f"\nA void: {void_amounts(view)}"

    def authorize(name: str, pin: str, _permission: str) -> User:
        remedy = choice.chosen
        if remedy is None:
            raise DrrError("choose what ends the hold")
        return table.sign_in(name, pin, PERMISSION[remedy])

    dialog = SignOffDialog(
        None,
        "croupier",
        PERMISSION[chosen or ACKNOWLEDGE],
        title,
        detail,
        parent=parent,
        extra=choice,
        check=choice.check,
        authorize=authorize,
    )
    # Its least height is the wrapped text's at its width: shown at the layout's plain minimum it was
    # 584 px for 694 of content, the manual result's two fields drawn over each other (1280x720).
    layout = dialog.layout()
    assert layout is not None  # (SignOffDialog lays itself out)
    dialog.setMinimumHeight(layout.totalHeightForWidth(dialog.minimumSizeHint().width()))
    return dialog, choice


def signed_remedy(dialog: SignOffDialog, choice: RemedyChoice) -> SignedRemedy | None:
    """What was signed off, once the dialog is accepted (None: cancelled or refused)."""
    if dialog.user is None or choice.chosen is None:
        return None
    number = choice.manual_number() if choice.chosen == MANUAL_RESULT else None
    return SignedRemedy(choice.chosen, dialog.user, dialog.reason_text, number)


def carry_out(table: TableModel, signed: SignedRemedy) -> None:
    """The signed remedy as the pit boss's command to the table (the engine checks the role again)."""
    if signed.remedy == ACKNOWLEDGE:
        table.resolve_hold(signed.boss, signed.reason)
    elif signed.remedy == ACCEPT_SENSOR:
        table.accept_sensor_result(signed.boss, signed.reason)
    elif signed.remedy == MANUAL_RESULT:
        assert signed.number is not None
        table.manual_result(signed.number, signed.reason, by=signed.boss)
    elif signed.remedy == VOID:
        table.void_by(signed.boss, signed.reason)
