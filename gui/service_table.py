"""The table service (engine.table.service) behind the `TableAdapter` interface.

Commands become coroutines on the qasync loop (held in `tasks`: asyncio keeps only weak
references); a refusal comes back as `refused` with the service's one-line reason. The screens
redraw only after the service has journaled a fact: its subscriber hands over each durable entry,
the adapter rebuilds a `TableView` from the service's state and emits a signal for each part
that changed. A restart therefore shows exactly what the journal says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from decimal import Decimal
from typing import Any

from PySide6.QtCore import QObject

from engine.auth import User
from engine.bets import Bet
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.rules import RulesSubmission
from engine.store.records import Entry
from engine.table.service import TableService
from gui.bonus_bridge import bonus_view
from gui.pay_lines import history_entry, round_lines, with_bonus_payout
from gui.table_adapter import MANUAL_REASON, TableAdapter
from gui.view_model import BonusView, Draw, HistoryEntry, PayLine, Phase, TableView, TimeoutPreset

HISTORY_KEPT = 500


class ServiceTable(TableAdapter):
    def __init__(
        self,
        service: TableService,
        user: User,
        players: tuple[str, ...],
        *,
        authenticate: Any = None,
        history: Sequence[HistoryEntry] = (),
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.user = user
        self._players = players
        self._authenticate = authenticate  # (name, pin) -> User, for a pit boss's approval
        self.tasks: set[asyncio.Task[Any]] = set()
        self._last: TableView | None = None
        self._history: list[HistoryEntry] = list(history)[-HISTORY_KEPT:]
        self._unsubscribe = service.subscribe(self._on_entry)

    # --- reading ------------------------------------------------------------------------------

    @property
    def rules(self) -> RulesSubmission:
        rules = self.service.rules
        if rules is None:
            raise DrrError("the table service has no Rules Submission loaded")
        return rules

    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def phase(self) -> Phase:
        raw = self.service.phase
        return Phase.IDLE if raw in ("idle", "new") else Phase(raw)

    def snapshot(self) -> TableView:
        st = self.service.state
        r = st.round
        draw = None if r is None or r.draw is None else Draw(dict(r.draw.lucky), r.draw.bonus_number)
        result = r.result if r is not None else None
        if result is None and st.pending_result is not None:
            result = st.pending_result.number
        lines = round_lines(r) if r is not None else ()
        need = self.service.approval_needed()
        games = tuple(self._bonus_view(p, lines) for p in (r.bonus_players if r is not None else ()))
        return TableView(
            table_id=self.service.table,
            round_no=st.rounds_opened,
            phase=self.phase,
            wagers=r.wagers if r is not None else (),
            draw=draw,
            result=result,
            pay_lines=lines,
            history=tuple(self._history),
            bonus_games=games,
            players=self._players,
            approvals_needed=need.wager_ids if need is not None else (),
            hold=None if st.hold is None else f"{st.hold.kind.replace('_', ' ')}: {st.hold.reason}",
        )

    def _bonus_view(self, player: str, lines: tuple[PayLine, ...]) -> BonusView:
        st = self.service.state
        rules = self.rules
        preset = TimeoutPreset(st.presets.get(player, "cash_out"))
        return with_bonus_payout(bonus_view(player, st.games.get(player), preset, rules), lines)

    # --- events: the journal's entries turned into signals -------------------------------------

    def _on_entry(self, entry: Entry) -> None:
        if entry.type == EntryType.ROUND_SETTLED:
            r = self.service.state.round
            found = history_entry(r) if r is not None else None
            if found is not None:
                self._history.append(found)
                del self._history[:-HISTORY_KEPT]
        elif entry.type in (
            EntryType.ROUND_IRREGULARITY,
            EntryType.ROUND_RESULT_BEFORE_CLOSE,
            EntryType.ROUND_NO_SPIN,
            EntryType.ROUND_VOIDED,
        ):
            p = entry.payload
            self.irregularity.emit(
                f"{entry.type.split('.', 1)[1].replace('_', ' ')}: {p.get('reason', '')}".strip()
            )
        self.refresh(source="manual" if entry.type == EntryType.TABLE_MANUAL_ENTRY else "wheel")

    def refresh(self, source: str = "wheel") -> None:
        """Emit a signal for each part of the table view that changed since the last refresh."""
        new = self.snapshot()
        old = self._last
        self._last = new
        if old is None or old.wagers != new.wagers:
            self.wagersChanged.emit(new.wagers)
        if new.draw is not None and (old is None or old.draw != new.draw):
            self.drawMade.emit(new.draw)
        if new.result is not None and (old is None or old.result != new.result):
            self.resultArrived.emit(new.result, source)
        # A new phase re-sends the pay lines even when they are the same (none, with no wager on the
        # felt): the screens mark the confirmed result when its pay lines arrive.
        if old is None or (old.pay_lines, old.approvals_needed, old.phase) != (
            new.pay_lines,
            new.approvals_needed,
            new.phase,
        ):
            self.payoutsChanged.emit(new.pay_lines, new.approvals_needed)
        for view in new.bonus_games:
            before = next((b for b in old.bonus_games if b.player == view.player), None) if old else None
            if before != view:
                self.bonusUpdated.emit(view)
        if old is None or old.history != new.history:
            self.historyChanged.emit(new.history)
        # A withdrawn result (a no-spin drops the wheel's number) is a change of the round's state the
        # screens take from the phase signal, as they do a hold.
        withdrawn = old is not None and old.result is not None and new.result is None
        if old is None or old.phase != new.phase or old.hold != new.hold or withdrawn:
            self.phaseChanged.emit(new.phase)
            if new.phase is Phase.SETTLED:
                self.settled.emit(new.pay_lines)

    # --- commands -----------------------------------------------------------------------------

    def _submit(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(self._guarded(coro))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _guarded(self, coro: Coroutine[Any, Any, Any]) -> None:
        try:
            await coro
        except DrrError as exc:
            self.refused.emit(exc.message)

    def open_bets(self) -> None:
        self._submit(self.service.open_bets(self.user))

    def place_wager(self, player: str, bet: Bet, amount: Decimal) -> None:
        self._submit(self.service.place_wager(self.user, player, bet, amount))

    def _remove_last(self, player: str | None, bet: Bet | None, nothing: str) -> None:
        wagers = self.snapshot().wagers
        found = next(
            (
                w
                for w in reversed(wagers)
                if (player is None or w.player == player) and (bet is None or w.bet == bet)
            ),
            None,
        )
        if found is None:
            self.refused.emit(nothing)
            return
        self._submit(self.service.remove_wager(self.user, found.id))

    def remove_wager(self, player: str, bet: Bet) -> None:
        self._remove_last(player, bet, f"{player} has no wager on {bet.label}")

    def undo(self, player: str | None = None) -> None:
        self._remove_last(player, None, "nothing to undo")

    def clear_player(self, player: str) -> None:
        ids = [w.id for w in self.snapshot().wagers if w.player == player]

        async def remove_all() -> None:
            for wid in ids:
                await self.service.remove_wager(self.user, wid)

        self._submit(remove_all())

    def no_more_bets(self) -> None:
        self._submit(self.service.no_more_bets(self.user))

    def wheel_event(self, event: Any) -> None:
        self._submit(self.service.wheel_event(event))

    def confirm_result(self) -> None:
        self._submit(self.service.confirm_result(self.user))

    def manual_result(self, number: int) -> None:
        # The croupier already typed the number twice on screen; the service's own two steps
        # journal both entries.
        async def twice() -> None:
            await self.service.manual_result(self.user, number, MANUAL_REASON)
            await self.service.manual_result(self.user, number, MANUAL_REASON)

        self._submit(twice())

    def _signed_off(self, approver: str, pin: str, what: str) -> User | None:
        """The pit boss who signs `what` off, checked against the user store (None: refused)."""
        if self._authenticate is None:
            self.refused.emit(f"{what} needs a pit boss's sign-off, and this station has no user store")
            return None
        if not approver:
            self.refused.emit(f"{what} needs a pit boss's name and PIN")
            return None
        try:
            boss: User = self._authenticate(approver, pin)
        except DrrError as exc:
            self.refused.emit(exc.message)
            return None
        return boss

    def approve_payouts(self, approver: str, pin: str = "") -> None:
        boss = self._signed_off(approver, pin, "approving payouts")
        if boss is not None:
            self._submit(self.service.approve_payout(boss))

    def settle(self) -> None:
        self._submit(self.service.settle(self.user))

    def next_round(self) -> None:
        self._submit(self.service.next_round(self.user))

    def no_spin(self, reason: str) -> None:
        self._submit(self.service.no_spin(self.user, reason))

    def void(self, reason: str, approver: str = "", pin: str = "") -> None:
        # The station's own user may void when the role allows it; otherwise a pit boss signs off.
        if self.user.may("void_round"):
            self._submit(self.service.void(self.user, reason))
            return
        boss = self._signed_off(approver, pin, "voiding a round")
        if boss is not None:
            self._submit(self.service.void(boss, reason))

    def bonus_start(self, player: str) -> None:
        self._submit(self.service.bonus_start(self.user, player))

    def bonus_pick(self, player: str, box: int) -> None:
        self._submit(self.service.bonus_pick(self.user, player, box))

    def bonus_cash_out(self, player: str) -> None:
        self._submit(self.service.bonus_cash_out(self.user, player))

    def bonus_set_preset(self, player: str, preset: TimeoutPreset) -> None:
        self._submit(self.service.set_bonus_preset(self.user, player, preset.value))  # type: ignore[arg-type]

    def bonus_timeout(self, player: str) -> None:
        self._submit(self.service.tick_bonus_games())

    async def shutdown(self) -> None:
        self._unsubscribe()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.service.close()


def journal_history(store: Any, table: str, count: int = HISTORY_KEPT) -> list[HistoryEntry]:
    """The last `count` settled results of `table` from the store's round history, oldest first,
    so the history strip and the player display's statistics survive a restart."""
    from engine.store.history import RoundFilter, list_rounds

    rows = list(
        list_rounds(store, RoundFilter(table=table, status="settled"), limit=count, newest_first=True)
    )
    out = []
    for row in reversed(rows):
        number = row["result"]
        if number is None:
            continue
        lucky = {int(n) for n, _ in row["lucky"]}
        out.append(
            HistoryEntry(
                number, lucky=number in lucky, bonus=number == row["bonus_number"], manual=row["manual"]
            )
        )
    return out
