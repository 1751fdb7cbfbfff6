"""The one Qt adapter between the screens and a table: commands in, the engine's pushes out as signals.

`TableModel` sits on a `TableSource`: this process's `engine.table.service.TableService` (the
croupier station) or `engine.table.follower.JournalFollower` (a player display or bonus screen in
another process, following the journal read-only). Both are the same typed interface, so the
screens cannot tell them apart. Before a source is attached (the journal still loading) the model
is "starting": it shows an empty table with that reason and refuses every command.

One round's path from the service to pixels:

    service command -> journal (durable) -> TableState fold -> the source's read model
       (engine.table.read_model: changes_of(batch), the TableView rebuilt ONCE if the notice names
       something shown, its settlement from the table's SettlementCache, its next step with it)
    -> subscribe_batches callback(entries, changes, view) -> TableModel: signal plumbing only
    -> changed(Changes, TableView) and, from the same notice, the per-part signals below
    -> each window redraws only the parts the notice names, reading values from the view.

Qt face (what the windows connect to; payloads are `engine.table.view` / `engine.bets` values):
    changed(Changes, TableView)     once per journal batch (and once, naming everything, on attach)
    phaseChanged(Phase)             wagersChanged(tuple[Wager, ...])
    drawMade(Draw)                  resultArrived(int number, str source)  # sensor|manual
    payoutsChanged(tuple[PayLine, ...], tuple[str, ...] wager ids needing approval)
    settled(tuple[PayLine, ...])    bonusUpdated(BonusView)   # one per player the notice names
    sensorHealth(SensorHealth)      irregularity(str)   # no-spin, void, sensor fault … with reason
    refused(str)  bonusRefused(str) historyChanged(tuple[HistoryEntry, ...])
    dealerChanged(User | None)      # who deals after a sign-in, dealer change or sign-out
Reading: `view` / `snapshot()` (the last pushed TableView; never rebuilt on read), `rules`,
`players` (the station's seat names), `phase`, `clock` (the source's clock: a bonus countdown is
`deadline - clock()`).

Construct `TableModel(service, user, players, authenticate=...)`, or
`TableModel.starting(rules, players, table_id)` and later `attach(source, user, ...)`. `refresh()`
pushes the source's whole view again. `tasks` holds the commands in flight. The service's own
timers (TableService.tick_bonus_games on its clock) end a bonus countdown; a test moves a fake
clock and calls `service.tick_bonus_games()`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeAlias

from PySide6.QtCore import QObject, Signal

from engine.auth import User
from engine.errors import DrrError
from engine.round import Phase
from engine.table.view import TableView
from gui.widgets.status import SensorHealth

if TYPE_CHECKING:  # the table's modules load once a table is attached, not before the first frame
    from engine.bets import Bet
    from engine.bonus_game import Preset
    from engine.rules import RulesSubmission
    from engine.store.records import Entry
    from engine.table.changes import Changes
    from engine.table.follower import JournalFollower
    from engine.table.service import TableService
    from engine.wheel_events import WheelEvent

# A table the screens can show and command: this process's TableService, or a journal follower (the
# same methods, its commands refused): the screens cannot tell them apart.
TableSource: TypeAlias = "TableService | JournalFollower"

STARTING = "starting: reading the journal"
SIGNED_OUT = "nobody is signed in at this station: sign in first"


class TableModel(QObject):
    """The screens' table (see the module docstring)."""

    changed = Signal(object, object)  # (engine.table.changes.Changes, engine.table.view.TableView)
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
    # A refusal of a player's bonus command (pick, cash-out, preset, start) only: the bonus screen
    # shows these and never the croupier's refusals (issue 25 point 3: each station its own messages).
    bonusRefused = Signal(str)
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
        self._unsubscribe: Callable[[], None] | None = None
        self._view = _starting_view(self._table_id)
        if source is not None:
            self.attach(source, self.user, authenticate=authenticate)

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
    ) -> None:
        """From now on commands go to `source` and every view it hands over is pushed; the whole
        table is pushed once now, so every screen redraws from what the journal says."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.source = source
        self.user = user
        self._authenticate = authenticate
        self._table_id = source.table
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

    def set_players(self, names: tuple[str, ...]) -> None:
        """The seats' names from now on (the croupier named a seat): the next wager of a renamed
        seat is journaled with its seat at once, not only after a restart (issue 25 point 6)."""
        self._players = tuple(names)

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

    # --- the push -----------------------------------------------------------------------------

    def _on_batch(self, entries: list[Entry], changes: Changes, view: TableView) -> None:
        self.push(changes, view)

    def refresh(self) -> None:
        """Push the whole table (attach, reconnect, a test's starting point)."""
        from engine.table.changes import EVERYTHING

        if self.source is not None:
            self.push(EVERYTHING, self.source.view)

    def push(self, changes: Changes, view: TableView) -> None:
        """Tell the screens, once, what the notice names, with the view the source built."""
        if not changes:
            return
        self._view = view
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
        self,
        make: Callable[[TableSource], Coroutine[Any, Any, Any]],
        *,
        dealer: bool = True,
        bonus: bool = False,
    ) -> None:
        """`make(source)` as a task; `dealer`: a croupier's command, refused while nobody is signed in
        (the wheel's messages and the players' own bonus games go on regardless)."""
        if self.source is None:
            self.refused.emit(f"the table is {STARTING}; try again in a moment")
            return
        if dealer and self.signed_out:
            self.refused.emit(SIGNED_OUT)
            return
        self._spawn(make(self.source), bonus=bonus)

    def _spawn(self, coro: Coroutine[Any, Any, Any], *, bonus: bool = False) -> None:
        task = asyncio.ensure_future(self._guarded(coro, bonus=bonus))
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

    def place_wagers(
        self,
        player: str,
        wagers: Sequence[tuple[Bet, Decimal]],
        on_placed: Callable[[], None] | None = None,
    ) -> None:
        """Several wagers of `player` at once (a typed line): all placed, or none and the reason;
        `on_placed()` once they are journaled (never on a refusal: the typed line stays to be
        corrected)."""
        items = list(wagers)

        async def place(s: TableSource) -> None:
            await s.place_wagers(self.user, player, items, seat=self._seat(player))
            if on_placed is not None:
                on_placed()

        self._submit(place)

    def rebet(self, player: str) -> None:
        """`player`'s wagers of their last round again, each checked like any wager."""
        self._submit(lambda s: s.rebet(self.user, player, seat=self._seat(player)))

    async def _guarded(self, coro: Coroutine[Any, Any, Any], *, bonus: bool = False) -> None:
        try:
            await coro
        except DrrError as exc:
            # A player's bonus refusal is the players' screen's to show, never the croupier's too.
            (self.bonusRefused if bonus else self.refused).emit(exc.message)

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

    def hold_confirmation(self) -> bool:
        """A dialog about the wheel's pending result is opening: the service stops its automatic
        confirmation now, before the dialog shows (a plain call, not a task: nothing can confirm the
        number in between). False when there was nothing to stop (or nobody may act here)."""
        source = self.source
        if source is None or self.signed_out:
            return False
        try:
            return source.hold_confirmation(self.user)
        except DrrError:
            return False

    def resume_confirmation(self) -> None:
        """The dialog closed without a dispute or a result: the countdown starts over (journaled)."""
        self._submit(lambda s: s.resume_confirmation(self.user))

    def dispute_result(self, reason: str, *, resume: bool = False) -> None:
        """The croupier disputes the wheel's number before it confirms itself (a hold follows);
        `resume`: the dialog had stopped the confirmation, which resumes if the dispute is refused."""

        async def dispute(source: TableSource) -> None:
            try:
                await source.dispute_result(self.user, reason)
            finally:
                if resume:
                    await source.resume_confirmation(self.user)

        self._submit(dispute)

    def manual_result(
        self, number: int, reason: str, by: User | None = None, *, resume: bool = False
    ) -> None:
        """A result typed by hand (twice on screen), with the reason the croupier (or the pit boss
        `by`, during a hold) chose; the service's own two steps journal both entries. `resume`: as
        for dispute_result."""
        user = by or self.user

        async def twice(source: TableSource) -> None:
            try:
                await source.manual_result(user, number, reason)
                await source.manual_result(user, number, reason)
            finally:
                if resume:
                    await source.resume_confirmation(self.user)

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

    def clear_tilt_by(self, boss: User, reason: str) -> None:
        """A pit boss clears the RNG tilt (the generator's start-up test runs again first)."""
        self._submit(lambda s: s.clear_tilt(boss, reason))

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
        self._submit(lambda s: s.bonus_start(self.user, player), dealer=False, bonus=True)

    def bonus_pick(self, player: str, box: int) -> None:
        self._submit(lambda s: s.bonus_pick(self.user, player, box), dealer=False, bonus=True)

    def bonus_cash_out(self, player: str) -> None:
        self._submit(lambda s: s.bonus_cash_out(self.user, player), dealer=False, bonus=True)

    def bonus_set_preset(self, player: str, preset: Preset) -> None:
        self._submit(lambda s: s.set_bonus_preset(self.user, player, preset), dealer=False, bonus=True)

    async def shutdown(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.source is not None:
            await self.source.close()


def _starting_view(table_id: str) -> TableView:
    """The empty table the windows paint before a source is attached (engine.table.read_model)."""
    # Built here as engine.table.read_model.starting_view builds it, without importing the read model:
    # its event types (engine.table.changes, engine.journal_types: ~80 dataclasses) cost 100 ms of the
    # first frame (issue 28) and load right after it, with the table service.
    import dataclasses

    from engine.round import Phase
    from engine.table.next_step import next_step
    from engine.table.view import TableView

    view = TableView(table_id, 0, Phase.IDLE, hold=STARTING)
    return dataclasses.replace(view, step=next_step(view))
