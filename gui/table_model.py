"""The one Qt adapter between the screens and a table: commands in, one push per journal batch out.

`TableModel` sits on a `TableSource`: this process's `engine.table.service.TableService` (the
croupier station) or `engine.table.follower.JournalFollower` (a player display or bonus screen in
another process, following the journal read-only). Both are the same typed interface, so the
screens cannot tell them apart. Before a source is attached (the journal still loading) the model
is "starting": it shows an empty table with that reason and refuses every command.

One round's path from the service to pixels:

    service command -> journal (durable) -> TableState fold -> service.subscribe_batches(batch)
    -> TableModel: changes_of(batch) (engine.table.changes.Changes), the TableView rebuilt ONCE
       (only if the notice names something a screen shows), the settlement read from the
       service's per-round-state cache (engine.table.settlements)
    -> changed(Changes, TableView) and, from the same notice, the per-part signals below
    -> each window redraws only the parts the notice names, reading values from the view.

Qt face (what the windows connect to; payloads are `gui.view_model` / `engine.bets` values):
    changed(Changes, TableView)     once per journal batch (and once, naming everything, on attach)
    phaseChanged(Phase)             wagersChanged(tuple[Wager, ...])
    drawMade(Draw)                  resultArrived(int number, str source)  # wheel|manual
    payoutsChanged(tuple[PayLine, ...], tuple[str, ...] wager ids needing approval)
    settled(tuple[PayLine, ...])    bonusUpdated(BonusView)   # one per player the notice names
    sensorHealth(SensorHealth)      irregularity(str)   # no-spin, void, sensor fault … with reason
    refused(str)                    historyChanged(tuple[HistoryEntry, ...])
    dealerChanged(User | None)      # who deals after a sign-in, dealer change or sign-out
Reading: `view` / `snapshot()` (the last pushed TableView; never rebuilt on read), `rules`,
`players`, `phase`, `clock` (the source's clock: a bonus countdown is `deadline - clock()`).

For the GUI tests and demos (what changed from `gui.table_model.TableModel`, which is now this
class under its old name): construct as before, `TableModel(service, user, players,
authenticate=..., history=...)`, or `TableModel.starting(rules, players, table_id)` and later
`attach(source, user, ...)` (replaces gui.deferred_table.DeferredTable). `refresh()` pushes the
whole view again. `tasks` holds the commands in flight. `bonus_timeout` is gone: the service's own
timers (TableService.tick_bonus_games on its clock) end a countdown; a test moves a fake clock and
calls `service.tick_bonus_games()`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, Signal

from engine.auth import User
from engine.errors import DrrError
from gui.view_model import Draw, HistoryEntry, Phase, SensorHealth, TableView, TimeoutPreset

if TYPE_CHECKING:  # the table's modules load once a table is attached, not before the first frame
    from engine.bets import Bet
    from engine.bonus_game import Preset
    from engine.rules import RulesSubmission
    from engine.settlement import RoundSettlement
    from engine.store.records import Entry
    from engine.table.changes import Changes
    from engine.table.holds import HoldRemedies
    from engine.table.service import Approval
    from engine.table.state import TableState
    from engine.wheel_events import WheelEvent

HISTORY_KEPT = 500
STARTING = "starting: reading the journal"
SIGNED_OUT = "nobody is signed in at this station: sign in first"


class TableSource(Protocol):
    """A table the screens can show and command: the local TableService or a journal follower."""

    table: str
    state: TableState
    clock: Callable[[], float]

    @property
    def phase(self) -> str: ...

    @property
    def rules(self) -> RulesSubmission | None: ...

    def subscribe_batches(
        self, callback: Callable[[list[Entry]], Awaitable[None] | None]
    ) -> Callable[[], None]: ...

    def settlement(self) -> RoundSettlement | None: ...

    def provisional_settlement(self) -> RoundSettlement | None: ...

    def approval_needed(self) -> Approval | None: ...

    async def open_bets(self, user: User) -> list[Entry]: ...

    async def place_wager(
        self,
        user: User,
        player: str,
        bet: Bet,
        amount: Decimal | str | int,
        *,
        wager_id: str | None = None,
        seat: int | None = None,
    ) -> list[Entry]: ...

    async def place_wagers(
        self,
        user: User,
        player: str,
        wagers: Sequence[tuple[Bet, Decimal | str | int]],
        *,
        seat: int | None = None,
    ) -> list[Entry]: ...

    async def rebet(self, user: User, player: str, *, seat: int | None = None) -> list[Entry]: ...

    async def sign_in_dealer(self, user: User) -> list[Entry]: ...

    async def sign_out_dealer(self, user: User) -> list[Entry]: ...

    async def remove_wager(self, user: User, wager_id: str) -> list[Entry]: ...

    async def no_more_bets(self, user: User) -> list[Entry]: ...

    async def wheel_event(self, ev: WheelEvent | Mapping[str, Any]) -> list[Entry]: ...

    async def confirm_result(self, user: User) -> list[Entry]: ...

    async def dispute_result(self, user: User, reason: str) -> list[Entry]: ...

    async def manual_result(self, user: User, number: int, reason: str) -> list[Entry]: ...

    async def approve_payout(self, user: User) -> list[Entry]: ...

    async def settle(self, user: User) -> list[Entry]: ...

    async def start_bonus_games(self, user: User) -> list[Entry]: ...

    async def next_round(self, user: User) -> list[Entry]: ...

    async def no_spin(self, user: User, reason: str) -> list[Entry]: ...

    async def void(self, user: User, reason: str) -> list[Entry]: ...

    async def resolve_irregularity(self, user: User, reason: str) -> list[Entry]: ...

    async def accept_sensor_result(self, user: User, reason: str) -> list[Entry]: ...

    async def set_bonus_preset(self, user: User, player: str, preset: Preset) -> list[Entry]: ...

    async def bonus_start(self, user: User, player: str) -> list[Entry]: ...

    async def bonus_pick(self, user: User, player: str, box: int) -> list[Entry]: ...

    async def bonus_cash_out(self, user: User, player: str) -> list[Entry]: ...

    async def close(self) -> None: ...


class TableModel(QObject):
    """The screens' table (see the module docstring)."""

    changed = Signal(object, object)  # (engine.table.changes.Changes, gui.view_model.TableView)
    phaseChanged = Signal(object)
    wagersChanged = Signal(object)
    drawMade = Signal(object)
    resultArrived = Signal(int, str)
    payoutsChanged = Signal(object, object)
    settled = Signal(object)
    bonusUpdated = Signal(object)
    sensorHealth = Signal(object)
    irregularity = Signal(str)
    refused = Signal(str)
    historyChanged = Signal(object)
    dealerChanged = Signal(object)  # engine.auth.User who deals now, None: signed out

    def __init__(
        self,
        source: TableSource | None = None,
        user: User | None = None,
        players: tuple[str, ...] = (),
        *,
        rules: RulesSubmission | None = None,
        table_id: str = "",
        authenticate: Callable[[str, str], User] | None = None,
        history: Sequence[HistoryEntry] = (),
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._players = players
        self._starting_rules = rules
        self._table_id = table_id or (source.table if source is not None else "")
        self.source: TableSource | None = None
        self.user: User = user or User("viewer", "surveillance")
        self._authenticate = authenticate  # (name, pin) -> User, for a pit boss's approval
        self.tasks: set[asyncio.Task[Any]] = set()
        self.signed_out = False  # the dealer signed out: every command waits for the next sign-in
        self._history: list[HistoryEntry] = []
        self._unsubscribe: Callable[[], None] | None = None
        self._view = TableView(self._table_id, 0, Phase.IDLE, players=players, hold=STARTING)
        if source is not None:
            self.attach(source, self.user, authenticate=authenticate, history=history)

    @classmethod
    def starting(cls, rules: RulesSubmission, players: tuple[str, ...], table_id: str) -> TableModel:
        """A model with no table yet: the windows paint at once, commands are refused until `attach`."""
        return cls(None, None, players, rules=rules, table_id=table_id)

    @property
    def service(self) -> TableSource:
        """The attached table (the GUI tests' handle on it)."""
        if self.source is None:
            raise DrrError(f"the table is {STARTING}")
        return self.source

    @property
    def authenticate(self) -> Callable[[str, str], User] | None:
        """(name, pin) -> User against the station's user store (journals the login), or None."""
        return self._authenticate

    @property
    def inner(self) -> TableSource | None:
        """The attached source, None while starting."""
        return self.source

    def attach(
        self,
        source: TableSource,
        user: User,
        *,
        authenticate: Callable[[str, str], User] | None = None,
        history: Sequence[HistoryEntry] = (),
    ) -> None:
        """From now on commands go to `source` and every journal batch it hands over is pushed; the
        whole table is pushed once now, so every screen redraws from what the journal says."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.source = source
        self.user = user
        self._authenticate = authenticate
        self._table_id = source.table
        self._history = list(history)[-HISTORY_KEPT:]
        self._unsubscribe = source.subscribe_batches(self._on_batch)
        self.refresh()

    # --- reading ------------------------------------------------------------------------------

    @property
    def rules(self) -> RulesSubmission:
        rules = self.source.rules if self.source is not None else None
        rules = rules or self._starting_rules
        if rules is None:
            raise DrrError("the table has no Rules Submission loaded")
        return rules

    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def phase(self) -> Phase:
        return self._view.phase

    @property
    def clock(self) -> Callable[[], float]:
        return self.source.clock if self.source is not None else time.time

    @property
    def view(self) -> TableView:
        return self._view

    def snapshot(self) -> TableView:
        """The last pushed view (reading it never rebuilds it)."""
        return self._view

    @staticmethod
    def _hold_text(st: TableState) -> str | None:
        """What stops the round, in one line: an RNG fault first (it outlasts any hold), else the hold."""
        from engine.table.changes import rng_fault_text

        if st.rng_fault is not None:
            return rng_fault_text(st.rng_fault)
        return None if st.hold is None else f"{st.hold.kind.replace('_', ' ')}: {st.hold.reason}"

    def _build_view(self) -> TableView:
        """The whole table as the source's state says: once per batch that changes what is shown."""
        from engine.round import Phase as RoundPhase
        from engine.round import bonus_needed
        from engine.table.limits import limits_in_force
        from engine.table.wheel_drive import wheel_phase
        from gui.bonus_bridge import bonus_view
        from gui.pay_lines import lines_of, with_bonus_payout

        src = self.source
        assert src is not None
        st = src.state
        r = st.round
        draw = None if r is None or r.draw is None else Draw(dict(r.draw.lucky), r.draw.bonus_number)
        result = r.result if r is not None else None
        if result is None and st.pending_result is not None:
            result = st.pending_result.number
        lines = lines_of(r, src.provisional_settlement()) if r is not None else ()
        need = src.approval_needed()
        rules = src.rules or self.rules
        games = tuple(
            with_bonus_payout(
                bonus_view(p, st.games.get(p), TimeoutPreset(st.presets.get(p, "cash_out")), rules), lines
            )
            for p in (r.bonus_players if r is not None else ())
        )
        raw = src.phase
        return TableView(
            table_id=src.table,
            round_no=st.rounds_opened,
            phase=Phase.IDLE if raw in ("idle", "new") else Phase(raw),
            wagers=r.wagers if r is not None else (),
            draw=draw,
            result=result,
            pay_lines=lines,
            history=tuple(self._history),
            bonus_games=games,
            players=self._players,
            approvals_needed=need.wager_ids if need is not None else (),
            hold=self._hold_text(st),
            stopped=st.rng_fault is not None,
            spin=wheel_phase(st),
            # The round's settings while it is in play; a change waits for the next round (shown so).
            limits=limits_in_force(
                rules.limits, st.round_settings if st.in_play else st.settings, st.settings
            ),
            dealer=st.dealer,
            winning_only=r is not None and r.winning_only,
            bonus_due=r is not None and r.phase is RoundPhase.RESULT and bool(bonus_needed(r)),
            remedies=self._remedies(st),
            void_reason=r.void_reason if r is not None else "",
        )

    @staticmethod
    def _remedies(st: TableState) -> HoldRemedies | None:
        """The hold in words and what ends it (engine.table.holds), while a round is on hold."""
        from engine.table.holds import hold_remedies

        if st.hold is None or st.round is None or st.rng_fault is not None:
            return None
        return hold_remedies(st.hold, st.round.phase, st.expected_game)

    # --- the push -----------------------------------------------------------------------------

    def _on_batch(self, entries: list[Entry]) -> None:
        from engine.table.changes import changes_of
        from gui.pay_lines import history_entry

        changes = changes_of(entries, self.source.state if self.source is not None else None)
        if changes.history and self.source is not None:
            r = self.source.state.round
            found = history_entry(r) if r is not None else None
            if found is not None:
                self._history.append(found)
                del self._history[:-HISTORY_KEPT]
        self.push(changes)

    def refresh(self) -> None:
        """Push the whole table (attach, reconnect, a test's starting point)."""
        from engine.table.changes import EVERYTHING

        self.push(EVERYTHING)

    def push(self, changes: Changes) -> None:
        """Rebuild the view if the notice names what a screen shows, then tell the screens, once."""
        if not changes:
            return
        if changes.shown and self.source is not None:
            self._view = self._build_view()
        view = self._view
        self.changed.emit(changes, view)
        if changes.wagers:
            self.wagersChanged.emit(view.wagers)
        if changes.draw and view.draw is not None:
            self.drawMade.emit(view.draw)
        if changes.result is not None and view.result is not None:
            self.resultArrived.emit(view.result, changes.result.source)
        # A recorded result always names the pay lines (even none, with no wager on the felt): the
        # screens mark the confirmed result when its pay lines arrive.
        if changes.pay_lines or changes.approvals:
            self.payoutsChanged.emit(view.pay_lines, view.approvals_needed)
        for game in view.bonus_games:
            if changes.everything or game.player in changes.bonus:
                self.bonusUpdated.emit(game)
        if changes.history:
            self.historyChanged.emit(view.history)
        # A hold, or a result taken back (a no-spin drops the wheel's number), is a change of the
        # round's state the screens take from the phase signal.
        if changes.phase or changes.hold or changes.result_cleared:
            self.phaseChanged.emit(view.phase)
            if view.phase is Phase.SETTLED and changes.phase:
                self.settled.emit(view.pay_lines)
        # Last, so the reason stays on screen over what the phase's redraw shows.
        for found in changes.irregularities:
            self.irregularity.emit(found.text)

    # --- commands -----------------------------------------------------------------------------

    def _submit(
        self, make: Callable[[TableSource], Coroutine[Any, Any, Any]], *, dealer: bool = True
    ) -> None:
        """`make(source)` as a task; `dealer`: a croupier's command, refused while nobody is signed in
        (the wheel's messages and the players' own bonus games go on regardless)."""
        if self.source is None:
            self.refused.emit(f"the table is {STARTING}; try again in a moment")
            return
        if dealer and self.signed_out:
            self.refused.emit(SIGNED_OUT)
            return
        self._spawn(make(self.source))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(self._guarded(coro))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # --- who deals (engine.table.dealer; gui.widgets.dealer_bar) -------------------------------

    def sign_in_dealer(self, user: User) -> None:
        """`user` (signed in with name and PIN) deals from now on: journaled, then the commands are
        theirs."""
        source = self.source
        if source is None:
            self.refused.emit(f"the table is {STARTING}; try again in a moment")
            return

        async def sign_in() -> None:
            await source.sign_in_dealer(user)
            self.user, self.signed_out = user, False
            self.dealerChanged.emit(user)

        self._spawn(sign_in())

    def sign_out_dealer(self) -> None:
        """The dealer signs out (journaled); nothing is done at the station until the next sign-in."""

        async def sign_out(source: TableSource) -> None:
            await source.sign_out_dealer(self.user)
            self.signed_out = True
            self.dealerChanged.emit(None)

        self._submit(sign_out)

    def place_wagers(self, player: str, wagers: Sequence[tuple[Bet, Decimal]]) -> None:
        """Several wagers of `player` at once (a typed line): all placed, or none and the reason."""
        items = list(wagers)
        self._submit(lambda s: s.place_wagers(self.user, player, items, seat=self._seat(player)))

    def rebet(self, player: str) -> None:
        """`player`'s wagers of their last round again, each checked like any wager."""
        self._submit(lambda s: s.rebet(self.user, player, seat=self._seat(player)))

    async def _guarded(self, coro: Coroutine[Any, Any, Any]) -> None:
        try:
            await coro
        except DrrError as exc:
            self.refused.emit(exc.message)

    def open_bets(self) -> None:
        self._submit(lambda s: s.open_bets(self.user))

    def place_wager(self, player: str, bet: Bet, amount: Decimal) -> None:
        self._submit(lambda s: s.place_wager(self.user, player, bet, amount, seat=self._seat(player)))

    def _seat(self, player: str) -> int | None:
        """The seat `player` bets from on this station: journaled with the wager, so recall draws its
        chips as this felt does."""
        return self._players.index(player) if player in self._players else None

    def _remove_last(self, player: str | None, bet: Bet | None, nothing: str) -> None:
        found = next(
            (
                w
                for w in reversed(self._view.wagers)
                if (player is None or w.player == player) and (bet is None or w.bet == bet)
            ),
            None,
        )
        if found is None:
            self.refused.emit(nothing)
            return
        self._submit(lambda s: s.remove_wager(self.user, found.id))

    def remove_wager(self, player: str, bet: Bet) -> None:
        self._remove_last(player, bet, f"{player} has no wager on {bet.label}")

    def undo(self, player: str | None = None) -> None:
        self._remove_last(player, None, "nothing to undo")

    def clear_player(self, player: str) -> None:
        ids = [w.id for w in self._view.wagers if w.player == player]

        async def remove_all(source: TableSource) -> None:
            for wid in ids:
                await source.remove_wager(self.user, wid)

        self._submit(remove_all)

    def no_more_bets(self) -> None:
        self._submit(lambda s: s.no_more_bets(self.user))

    def set_sensor_health(self, health: SensorHealth) -> None:
        """The wheel link's health (not a journal fact), passed on to every screen as `sensorHealth`."""
        self.sensorHealth.emit(health)

    def wheel_event(self, event: WheelEvent) -> None:
        """An engine.wheel_events event from the wheel link, passed as it is to the table (before the
        start: dropped; the wheel's messages are in its capture file)."""
        if self.source is not None:
            self._submit(lambda s: s.wheel_event(event), dealer=False)

    def confirm_result(self) -> None:
        self._submit(lambda s: s.confirm_result(self.user))

    def dispute_result(self, reason: str) -> None:
        """The croupier disputes the wheel's number before it confirms itself (a hold follows)."""
        self._submit(lambda s: s.dispute_result(self.user, reason))

    def manual_result(self, number: int, reason: str, by: User | None = None) -> None:
        """A result typed by hand (twice on screen), with the reason the croupier (or the pit boss
        `by`, during a hold) chose; the service's own two steps journal both entries."""
        user = by or self.user

        async def twice(source: TableSource) -> None:
            await source.manual_result(user, number, reason)
            await source.manual_result(user, number, reason)

        self._submit(twice)

    def sign_in(self, name: str, pin: str, permission: str) -> User:
        """A pit boss's sign-off on this station: name and PIN checked against the table's user store
        (with its lock-out, journaled), then the role against `permission`; DrrError if refused."""
        from engine.auth import require

        if self._authenticate is None:
            raise DrrError("a pit boss's sign-off needs the user store, and this station has none")
        if not name:
            raise DrrError("a pit boss signs off with name and PIN")
        user = self._authenticate(name, pin)
        require(user, permission)
        return user

    def resolve_hold(self, boss: User, reason: str) -> None:
        self._submit(lambda s: s.resolve_irregularity(boss, reason))

    def accept_sensor_result(self, boss: User, reason: str) -> None:
        self._submit(lambda s: s.accept_sensor_result(boss, reason))

    def void_by(self, boss: User, reason: str) -> None:
        self._submit(lambda s: s.void(boss, reason))

    def _signed_off(self, approver: str, pin: str, what: str) -> User | None:
        """The pit boss who signs `what` off, checked against the user store (None: refused)."""
        if self.source is None:
            self.refused.emit(f"the table is {STARTING}; try again in a moment")
            return None
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
            self._submit(lambda s: s.approve_payout(boss))

    def settle(self) -> None:
        self._submit(lambda s: s.settle(self.user))

    def start_bonus_games(self) -> None:
        self._submit(lambda s: s.start_bonus_games(self.user))

    def next_round(self) -> None:
        self._submit(lambda s: s.next_round(self.user))

    def no_spin(self, reason: str) -> None:
        self._submit(lambda s: s.no_spin(self.user, reason))

    def void(self, reason: str, approver: str = "", pin: str = "") -> None:
        # The station's own user may void when the role allows it; otherwise a pit boss signs off.
        if self.user.may("void_round"):
            self._submit(lambda s: s.void(self.user, reason))
            return
        boss = self._signed_off(approver, pin, "voiding a round")
        if boss is not None:
            self._submit(lambda s: s.void(boss, reason))

    def bonus_start(self, player: str) -> None:
        self._submit(lambda s: s.bonus_start(self.user, player), dealer=False)

    def bonus_pick(self, player: str, box: int) -> None:
        self._submit(lambda s: s.bonus_pick(self.user, player, box), dealer=False)

    def bonus_cash_out(self, player: str) -> None:
        self._submit(lambda s: s.bonus_cash_out(self.user, player), dealer=False)

    def bonus_set_preset(self, player: str, preset: TimeoutPreset) -> None:
        value: Preset = "random" if preset is TimeoutPreset.RANDOM else "cash_out"
        self._submit(lambda s: s.set_bonus_preset(self.user, player, value), dealer=False)

    async def shutdown(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.source is not None:
            await self.source.close()


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
