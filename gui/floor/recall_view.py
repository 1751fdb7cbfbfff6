"""Round recall for the pit boss: the felt as it was, the draw, wheel messages, bonus picks, payouts
and the round's audit trail — rebuilt from the journal (`engine.floor.recall`) and clearly marked as
RECALL MODE so nobody mistakes it for a live round.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.exact import money
from engine.floor.recall import Recall
from engine.table.view import PayLine
from engine.wheel_layout import colour as number_colour
from gui import theme
from gui.widgets.felt import FeltWidget


def money_line(rec: Recall) -> str:
    """Wagered as placed, and what was paid, or what a void handed back player by player."""
    r = rec.record
    wagered = f"<b>Wagered</b> {money(r.wagered)}"
    if r.status == "void":
        return f"{wagered} · <b>Returned by the void</b> {money(r.returned)} ({rec.stakes_text()})"
    if r.status != "settled":
        return f"{wagered} ({rec.stakes_text()}) · <b>Paid</b> not settled yet"
    return f"{wagered} · <b>Paid</b> {money(r.paid)} · <b>Handed back</b> {money(r.returned)}"


class RecallView(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.recall: Recall | None = None
        self.banner = QLabel("RECALL MODE — select a round")
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setStyleSheet(
            f"background: {theme.WARN.name()}; color: #1a1200; font-size: 14pt; font-weight: bold;"
            " padding: 6px; border-radius: 6px"
        )
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.felt = FeltWidget()
        # Recall is read-only: touches never reach the felt (drawn at full colour, unlike a disabled widget).
        self.felt.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.felt.setMinimumSize(520, 230)
        self.payouts = QTableWidget(0, 5)
        self.payouts.setHorizontalHeaderLabels(("Player", "Wager", "Amount", "Outcome", "Payout"))
        self.payouts.verticalHeader().setVisible(False)
        self.payouts.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.bonus = QPlainTextEdit()
        self.bonus.setReadOnly(True)
        self.wheel = QPlainTextEdit()
        self.wheel.setReadOnly(True)
        self.audit = QTreeWidget()
        self.audit.setHeaderLabels(("Seq", "Time (UTC)", "Type", "User", "Details"))
        self.audit.header().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.details = QTabWidget()
        self.details.addTab(self.payouts, "Payouts")
        self.details.addTab(self.bonus, "Bonus game")
        self.details.addTab(self.wheel, "Wheel messages")
        self.details.addTab(self.audit, "Audit trail")
        split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.summary)
        tl.addWidget(self.felt, 1)
        split.addWidget(top)
        split.addWidget(self.details)
        split.setSizes([420, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)

    def show_recall(self, rec: Recall) -> None:
        from engine.rules import load_default_rules

        self.recall = rec
        r = rec.record
        self.banner.setText(f"RECALL MODE — round {r.round_id} · table {r.table} · {r.time[:19]} UTC")
        styles = theme.seat_styles(rec.players, rec.seats)  # the croupier felt's chips
        self.felt.set_rules(rec.rules or load_default_rules())  # the felt of the round's own rules
        self.felt.set_wagers(rec.wagers, styles)
        self.felt.set_draw(rec.lucky, rec.bonus_number)
        pay_lines = [PayLine(s.wager, s.kind, s.odds, s.payout) for s in rec.settlements]
        self.felt.set_result(rec.result, pay_lines)
        result = "—" if rec.result is None else f"{rec.result} {number_colour(rec.result)}"
        if rec.original_result is not None:
            result += f" (corrected from {rec.original_result})"
        lucky = ", ".join(f"{n} ({x} to 1)" for n, x in sorted(rec.lucky.items())) or "—"
        players = " ".join(f"<span style='color:{styles[p].colour}'>■ {p}</span>" for p in rec.players)
        self.summary.setText(
            f"<b>Status</b> {r.status} · <b>Result</b> {result} · <b>Lucky</b> {lucky} · "
            f"<b>Bonus Number</b> {rec.bonus_number if rec.bonus_number is not None else '—'} · "
            f"<b>Dealer</b> {r.dealer or '—'}<br>{money_line(rec)} · "
            f"<b>Irregularities</b> {r.irregularities}"
            f"{' · <b>manual result</b>' if r.manual else ''}"
            f"{' · <b>note</b> ' + r.note if r.note else ''}<br>{players}"
            + (
                f"<br><span style='color:{theme.WARN.name()}'>{rec.replay_note}</span>"
                if rec.replay_note
                else ""
            )
        )
        rows: list[tuple[str, ...]] = [
            (s.wager.player, s.wager.bet.label, f"{s.wager.amount}",
             f"{s.kind} {s.odds} to 1" if s.won else "lost", f"{s.payout}")
            for s in rec.settlements
        ]  # fmt: skip
        if not rows:  # open, held or void: the wagers as placed, and what becomes of them
            outcome = "returned (void)" if r.status == "void" else "not settled yet"
            rows = [
                (w.player, w.bet.label, f"{w.amount}", outcome,
                 money(w.amount) if r.status == "void" else "—")
                for w in rec.wagers
            ]  # fmt: skip
        self.payouts.setRowCount(len(rows))
        for row, cells in enumerate(rows):
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col == 0 and cells[0] in styles:
                    item.setForeground(styles[cells[0]].qcolor)
                self.payouts.setItem(row, col, item)
        steps = [f"{st.time[11:19]}  {st.player:8s} {st.text}" for st in rec.bonus_steps]
        outcomes = [f"{p}: {x} to 1" for p, x in rec.bonus_outcomes.items()]
        self.bonus.setPlainText(
            "\n".join(steps + (["", "Outcomes: " + ", ".join(outcomes)] if outcomes else []))
            or "no bonus game in this round"
        )
        self.wheel.setPlainText(
            "\n".join(f"{e.time[11:23]}  {rec.text(e)}" for e in rec.wheel)
            or "no wheel messages journaled for this round"
        )
        self.audit.clear()
        for e in rec.entries:
            text = rec.text(e)
            node = QTreeWidgetItem([str(e.seq), e.time[:23], e.type, e.user or "", text])
            # The chain links an auditor checks (drr audit verify), not the payload: that is the text.
            node.setToolTip(4, f"{text}\nentry hash {e.hash}\nprevious entry's hash {e.prev_hash}")
            self.audit.addTopLevelItem(node)
        for col in range(4):
            self.audit.resizeColumnToContents(col)
