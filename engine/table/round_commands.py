"""The table service's round commands: open bets, wagers, the dealer, close, confirm, approve,
settle, next round, rules.

A mixin of engine.table.service.TableService on engine.table.service_core.ServiceCore (the write path,
the guards, the shared steps); split from the service by concern, behaviour unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

from engine.auth import User, require
from engine.bets import Bet, Wager, amount_words, check_amount
from engine.errors import IllegalTransition, IllegalWager
from engine.rng import HealthFailure
from engine.round import (
    WINNING_ONLY,
    PaidWager,
    Phase,
    ResultRecorded,
    RoundOpened,
    RoundState,
    WagerPlaced,
    WagerRemoved,
    apply,
    bonus_needed,
    settle,
    wager_refusal,
)
from engine.rules_play import rules_for_play
from engine.store.records import Entry
from engine.table import dealer as dealers
from engine.table import limits as table_limits
from engine.table.gate import Play
from engine.table.service_core import (
    ServiceCore,
    Step,
    _rules_loaded,
    _seconds,
)
from engine.table.thresholds import approval_threshold
from engine.table_events import (
    BettingTime,
    ManualEntry,
    ManualEntryRejected,
    NextRound,
    PayoutApproved,
)


class RoundCommands(ServiceCore):
    """The table service's round commands (see engine.table.service)."""

    async def open_bets(self, user: User) -> list[Entry]:
        require(user, "open_bets")
        async with self._lock:
            self._need_started()
            self._play(Play.OPEN_BETS)
            if self.state.in_play:
                raise IllegalTransition(
                    f"cannot open bets: round {self.state.round_id} is still {self.phase.upper()}"
                )
            rules = self.state.rules_by_sha[self.state.latest_rules] if self.state.latest_rules else None
            if rules is None:
                raise IllegalTransition("cannot open bets: no Rules Submission is loaded")
            # The pit boss's table settings (table.settings_changed) take effect here, from the next round.
            settings = dict(self.state.settings)
            if settings.get("status") == "closed":
                raise IllegalTransition("cannot open bets: the pit boss has closed this table")
            self._round_settings = settings
            self.approval_threshold, _ = approval_threshold(
                settings, self._station_threshold, table=self.table
            )
            round_id = f"{self.table[:50]}-{self.state.rounds_opened + 1:06d}"
            # The dealer signed in at the station or named by the pit boss (the later), else the opener.
            dealer = self.state.dealer or user.name
            entry = WINNING_ONLY if settings.get("entry_mode") == WINNING_ONLY else None
            event = RoundOpened(round_id, rules.sha256, dealer, self._wheel_game_at_open, entry)
            apply(RoundState.initial(rules), event)
            self._before_open = self._in_flight.game
            steps: list[Step] = [(event, round_id)]
            betting = _seconds(settings.get("betting_seconds"), self.betting_seconds)
            if betting is not None:
                steps.append((BettingTime(betting, self.clock() + betting), round_id))
            return await self._run(user.name, steps)

    async def place_wager(
        self,
        user: User,
        player: str,
        bet: Bet,
        amount: Decimal | str | int,
        *,
        wager_id: str | None = None,
        seat: int | None = None,  # the croupier station's seat, journaled for recall's chips
    ) -> list[Entry]:
        return await self.place_wagers(user, player, [(bet, amount)], wager_id=wager_id, seat=seat)

    async def place_wagers(
        self,
        user: User,
        player: str,
        wagers: Sequence[tuple[Bet, Decimal | str | int]],
        *,
        wager_id: str | None = None,
        seat: int | None = None,
    ) -> list[Entry]:
        """Several wagers of `player` at once (a line typed on the keyboard, a Rebet): each checked
        against the rules and every limit in force after the ones before it, all journaled in one
        transaction or none (the refusal names the wager)."""
        require(user, "place_wager")
        async with self._lock:
            return await self._run(user.name, self._wager_steps(player, wagers, wager_id, seat))

    async def rebet(self, user: User, player: str, *, seat: int | None = None) -> list[Entry]:
        """`player`'s wagers of the last round they played, placed again (as place_wagers)."""
        require(user, "place_wager")
        async with self._lock:
            self._round(Phase.OPEN, doing="place a wager")
            last = self.state.last_wagers.get(player, ())
            if not last:
                raise IllegalWager(f"{player} has no wagers of an earlier round to place again")
            again = [(w.bet, w.amount) for w in last]
            return await self._run(user.name, self._wager_steps(player, again, seat=seat))

    def _wager_steps(
        self,
        player: str,
        wagers: Sequence[tuple[Bet, Decimal | str | int]],
        wager_id: str | None = None,
        seat: int | None = None,
    ) -> list[Step]:
        # OPEN, or RESULT in a round of winning wagers only: apply() says which is allowed.
        s = self._round(Phase.OPEN, Phase.RESULT, doing="place a wager")
        self._play(Play.WAGER)
        # The limits of the Rules Submission (engine.round.check_wager), of the pit boss's settings as
        # the round opened and the player's own (engine.table.limits).
        settings = self.state.settings if self._round_settings is None else self._round_settings
        limits = table_limits.limits_in_force(s.rules.limits, settings)
        try:
            self._no_hold("place a wager")  # e.g. the wheel's result came while bets were open
        except IllegalTransition as exc:
            raise IllegalWager(exc.message) from None
        steps: list[Step] = []
        for i, (bet, amount) in enumerate(wagers):
            # Each refusal names the wager in words (player, bet, amount), never its journal id.
            try:
                value = check_amount(amount, s.rules.unit)
            except ValueError as exc:
                raise IllegalWager(f"{amount_words(player, bet, amount)}: {exc}") from None
            refused = table_limits.refusal(settings, player, value)  # the settings' min_bet / max_bet
            if refused is not None:
                raise IllegalWager(f"{amount_words(player, bet, value)}: {refused}")
            limits.check_player(player, bet, value, s.player_total(player))
            wid = wager_id or f"{s.round_id}-w{self.state.wagers_placed + 1 + i}"
            wager = Wager(wid, player, bet, value)
            why = wager_refusal(s, wager)
            if why is not None:
                raise IllegalWager(f"{wager.words}: {why}")
            event = WagerPlaced(wager, seat)
            s = apply(s, event)  # the next wager is checked with this one on the felt
            steps.append((event, s.round_id))
        if not steps:
            raise IllegalWager(f"no wager of {player} to place")
        return steps

    async def sign_in_dealer(self, user: User) -> list[Entry]:
        """`user` deals at this table from the next round opened (engine.table.dealer)."""
        async with self._lock:
            self._need_started()
            change = dealers.signed_in(self.state, user, self.station)
            return [] if change is None else await self._run(user.name, [(change, None)])

    async def sign_out_dealer(self, user: User) -> list[Entry]:
        """`user` stops dealing; nobody is signed in until the next sign_in_dealer."""
        async with self._lock:
            self._need_started()
            return await self._run(user.name, [(dealers.signed_out(self.state, user, self.station), None)])

    async def remove_wager(self, user: User, wager_id: str) -> list[Entry]:
        require(user, "remove_wager")
        async with self._lock:
            s = self._round(Phase.OPEN, Phase.RESULT, doing="remove a wager")
            if s.wager(wager_id) is None:  # a stale click: said without the journal's internal id
                raise IllegalTransition("that wager is no longer on the felt: nothing removed")
            event = WagerRemoved(wager_id)
            apply(s, event)
            return await self._run(user.name, [(event, s.round_id)])

    async def no_more_bets(self, user: User) -> list[Entry]:
        require(user, "no_more_bets")
        async with self._lock:
            s = self._round(Phase.OPEN, doing="call no more bets")
            self._play(Play.DRAW)
            try:
                step = self._close_event(s)
            except HealthFailure as failure:
                await self._journal_rng_fault(user.name, failure, s.round_id)
                raise
            return await self._run(user.name, [step])

    async def confirm_result(self, user: User) -> list[Entry]:
        """The croupier confirms the wheel's result; bonus games start being due if someone won one."""
        require(user, "confirm_result")
        async with self._lock:
            s = self._round(Phase.CLOSED, doing="confirm a result")
            self._no_hold("confirm the result")
            pending = self.state.pending_result
            if pending is None:
                raise IllegalTransition(
                    "no result from the wheel to confirm yet (wait, or enter it manually)"
                )
            event = ResultRecorded(
                pending.number,
                "sensor",
                game=pending.game,
                direction=pending.direction,
                wheel_seq=pending.seq,
            )
            return await self._run(user.name, self._result_events(s, event))

    async def manual_result(self, user: User, number: int, reason: str) -> list[Entry]:
        """Two steps: the first call records the entry, a second call with the same number records the
        result (source "manual"); a different number cancels the entry. A pit boss may enter a result
        while an irregularity is on hold, which resolves it."""
        require(user, "enter_result")
        async with self._lock:
            s = self._round(Phase.CLOSED, doing="enter a result")
            if self.state.hold is not None and not user.may("resolve_irregularity"):
                self._no_hold("enter a result")
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 36:
                raise IllegalTransition(f"{number!r} is not a number 0-36")
            if not reason.strip():
                raise IllegalTransition("a manual result needs a reason (e.g. the sensor is down)")
            entry = self.state.manual_entry
            if entry is None:
                return await self._run(user.name, [(ManualEntry(number, reason.strip()), s.round_id)])
            if entry[0] != number:
                rejected = ManualEntryRejected(entry[0], number, "the two entries differ")
                await self._run(user.name, [(rejected, s.round_id)])
                raise IllegalTransition(
                    f"not recorded: {number} differs from the first entry {entry[0]}; enter again"
                )
            event = ResultRecorded(
                number,
                "manual",
                entry[1],
                game=self.state.expected_game,  # this round's spin, never a later one's
                confirmed_by=user.name,
                direction=self._direction,
            )
            # Both entries are journaled as typed (docs/croupier-guide.md: "journaled with both entries
            # and the result"), the second in the result's own transaction.
            second: Step = (ManualEntry(number, reason.strip()), s.round_id)
            return await self._run(user.name, [second, *self._result_events(s, event)])

    async def approve_payout(self, user: User) -> list[Entry]:
        require(user, "approve_payout")
        async with self._lock:
            s = self._round(Phase.RESULT, Phase.BONUS, doing="approve payouts")
            need = self.approval_needed()
            if need is None:
                raise IllegalTransition("no payout needs approval")
            approval = PayoutApproved(need.wager_ids, need.total, self.approval_threshold, user.name)
            return await self._run(user.name, [(approval, s.round_id)])

    async def settle(self, user: User) -> list[Entry]:
        require(user, "settle_round")
        async with self._lock:
            s = self._round(Phase.RESULT, Phase.BONUS, doing="settle")
            self._no_hold("settle")
            missing = [p for p in s.bonus_players if p not in s.bonus_odds]
            if missing:
                raise IllegalTransition(f"cannot settle: bonus games not finished for {', '.join(missing)}")
            due = bonus_needed(s) if s.phase is Phase.RESULT else ()
            if due:  # winning wagers only: entered after the result, their games have not started
                raise IllegalTransition(
                    f"cannot settle: {', '.join(due)} won on the Bonus Number; start the bonus games first"
                )
            need = self.approval_needed()
            if need is not None:
                raise IllegalTransition(
                    f"payouts of {need.total} on {len(need.wager_ids)} wager(s) need a pit boss's approval"
                )
            # The settlement the approval check, the screens and the fold read (worked out once).
            settled = self.settlement()
            event = settle(s, settled)  # refuses while a bonus game is unfinished
            after = apply(s, event, settled=settled)
            assert after.settlement is not None
            paid = tuple(PaidWager.from_json(x.to_wire()) for x in after.settlement.settlements if x.won)
            event = replace(event, total_returned=after.settlement.total_returned, payouts=paid)
            return await self._run(user.name, [(event, s.round_id)])

    async def next_round(self, user: User) -> list[Entry]:
        """Clear the settled or void round from the felt (the next action is open bets)."""
        require(user, "open_bets")
        async with self._lock:
            s = self._round(Phase.SETTLED, Phase.VOID, doing="go to the next round")
            self._play(Play.NEW_ROUND)
            return await self._run(user.name, [(NextRound(s.round_id), s.round_id)])

    async def load_rules(self, user: User, text: bytes, source: str = "the Rules Submission") -> list[Entry]:
        """A new Rules Submission; it takes effect when the next round opens."""
        require(user, "load_rules")
        rules = rules_for_play(text, source=source)
        async with self._lock:
            return await self._run(user.name, [(_rules_loaded(rules, text), None)])
