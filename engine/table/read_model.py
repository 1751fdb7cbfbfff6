"""The table's read model: one `TableView` per journal batch, built from the folded state (no Qt).

The table service and a journal follower each keep one `ReadModel`. After every durable batch it
makes the batch's change notice (engine.table.changes) and, when the notice names something a
screen shows, rebuilds the view once (the settlement read from the table's per-round-state cache,
engine.table.settlements); the source hands `(entries, changes, view)` to each subscriber, the way
Anki's core returns OpChanges with an operation. Reading `view` never rebuilds it unless the state
moved since (a screen attaching between batches).

    model = ReadModel(service)              # the service: state, store, settlement, approvals
    changes, view = model.batch(entries)    # once per durable batch
    view.phase, view.pay_lines, view.step   # engine.table.view values; the next step worked out with it
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Protocol

from engine.bonus_game import BonusGame, Preset
from engine.entry_types import EntryType
from engine.round import Phase, RoundState, bonus_needed
from engine.rules import CASH_OUT_FROM_ROUND, RulesSubmission
from engine.settlement import BONUS, RoundSettlement
from engine.table.changes import EVERYTHING, Changes, changes_of, rng_fault_text
from engine.table.gate import Verdict, tilt_refusals
from engine.table.holds import HoldRemedies, hold_remedies
from engine.table.limits import LimitsInForce, limits_in_force
from engine.table.next_step import next_step
from engine.table.state import TableState
from engine.table.view import (
    BonusStatus,
    BonusView,
    BoxState,
    BoxView,
    HistoryEntry,
    PayLine,
    TableView,
    money,
    odds_text,
)
from engine.table.wheel_drive import wheel_phase
from engine.table_events import TILT_RNG

if TYPE_CHECKING:
    # Only named: importing engine.store runs its package (SQLAlchemy, the projections), which the
    # croupier station's first frame does without (issue 28).
    from engine.store.records import Entry

HISTORY_KEPT: Final = 500  # results in the history strip (and the player display's statistics)
_SETTLED: Final = EntryType.ROUND_SETTLED.value


class ViewSource(Protocol):
    """What the read model reads of its table (engine.table.service.TableService, the follower)."""

    table: str
    store: Any
    state: TableState

    def provisional_settlement(self) -> RoundSettlement | None: ...

    def approval_needed(self) -> Any: ...  # engine.table.service.Approval | None: `.wager_ids`


class ReadModel:
    """The view of one table source, rebuilt once per batch that changes what a screen shows."""

    def __init__(self, source: ViewSource) -> None:
        self._source = source
        self._history: list[HistoryEntry] | None = None  # read from the store on the first build
        self._view: TableView | None = None
        self._built_at = -1  # the state's last_seq when the view was built

    @property
    def view(self) -> TableView:
        """The table as its state stands (the last built view while the state has not moved)."""
        if self._view is None or self._built_at != self._source.state.last_seq:
            self._build()
        assert self._view is not None
        return self._view

    def batch(self, entries: Sequence[Entry]) -> tuple[Changes, TableView]:
        """The notice of a durable batch and the view after it (rebuilt only if the notice names
        something shown); the history strip grows by the round the batch settled."""
        st = self._source.state
        changes = changes_of(entries, st)
        if changes.history and self._history is not None:
            found = history_entry(st.round) if st.round is not None else None
            if found is not None:
                self._history.append(found)
                del self._history[:-HISTORY_KEPT]
        current = bool(entries) and self._built_at == entries[0].seq - 1
        if self._view is None or changes.shown or not current:
            self._build()
        else:
            self._built_at = st.last_seq  # nothing shown moved: the view stands for this state too
        assert self._view is not None
        return changes, self._view

    def track(self, entries: Iterable[Entry]) -> None:
        """A batch nobody is shown (no subscriber): only the history is kept up, and the view is
        rebuilt when next read."""
        if self._history is not None and any(e.type == _SETTLED for e in entries):
            r = self._source.state.round
            found = history_entry(r) if r is not None else None
            if found is not None:
                self._history.append(found)
                del self._history[:-HISTORY_KEPT]

    def refresh(self) -> tuple[Changes, TableView]:
        """Everything, as a screen attaching (or reconnecting) draws it."""
        return EVERYTHING, self.view

    def _build(self) -> None:
        src = self._source
        if self._history is None:  # the store has every settled round so far (same transactions)
            self._history = journal_history(src.store, src.table)
        need = src.approval_needed()
        self._view = build_view(
            src.table,
            src.state,
            src.provisional_settlement(),
            need.wager_ids if need is not None else (),
            tuple(self._history),
        )
        self._built_at = src.state.last_seq


def build_view(
    table: str,
    st: TableState,
    settled: RoundSettlement | None,
    approvals: tuple[str, ...],
    history: tuple[HistoryEntry, ...],
) -> TableView:
    """The whole table as its state says, with the croupier's next step worked out from it."""
    r = st.round
    result = r.result if r is not None else None
    if result is None and st.pending_result is not None:
        result = st.pending_result.number
    lines = lines_of(r, settled) if r is not None else ()
    rules = st.rules
    games = (
        tuple(
            with_bonus_payout(bonus_view(p, st.games.get(p), st.presets.get(p, "cash_out"), r.rules), lines)
            for p in r.bonus_players
        )
        if r is not None
        else ()
    )
    view = TableView(
        table_id=table,
        round_no=st.rounds_opened,
        phase=st.phase,
        wagers=r.wagers if r is not None else (),
        draw=r.draw if r is not None else None,
        result=result,
        pay_lines=lines,
        history=history,
        bonus_games=games,
        approvals_needed=approvals,
        hold=hold_text(st),
        stopped=bool(st.tilts),
        tilt_todo=Verdict(tuple(tilt_refusals(st))).todo(),
        tilt_causes=tuple(st.tilts),
        spin=wheel_phase(st),
        # The round's settings while it is in play; a change waits for the next round (shown so).
        limits=limits_in_force(rules.limits, st.round_settings if st.in_play else st.settings, st.settings)
        if rules is not None
        else LimitsInForce(),
        dealer=st.dealer,
        winning_only=r is not None and r.winning_only,
        bonus_due=r is not None and r.phase is Phase.RESULT and bool(bonus_needed(r)),
        remedies=remedies(st),
        void_reason=r.void_reason if r is not None else "",
        round=r,
    )
    return dataclasses.replace(view, step=next_step(view))


def starting_view(table: str, reason: str) -> TableView:
    """The view before a table is attached (the journal still loading): empty, with `reason`."""
    view = TableView(table, 0, Phase.IDLE, hold=reason)
    return dataclasses.replace(view, step=next_step(view))


def hold_text(st: TableState) -> str | None:
    """What stops the round, in one line: the tilt's causes first (they outlast any hold: an RNG
    fault in its own words), else the hold."""
    if st.tilts:
        return "; ".join(
            rng_fault_text(st.rng_fault) if r.cause == TILT_RNG and st.rng_fault is not None else r.text()
            for r in tilt_refusals(st)
        )
    return None if st.hold is None else f"{st.hold.kind.replace('_', ' ')}: {st.hold.reason}"


def remedies(st: TableState) -> HoldRemedies | None:
    """The hold in words and what ends it (engine.table.holds), while a round is on hold."""
    if st.hold is None or st.round is None or st.tilts:
        return None
    return hold_remedies(st.hold, st.round.phase, st.expected_game)


# --- pay lines and history -------------------------------------------------------------------------


def lines_of(r: RoundState, settled: RoundSettlement | None) -> tuple[PayLine, ...]:
    """The paying list of round `r` from its settlement (the provisional one while bonus games run:
    those players' Bonus wins are marked pending, their stand-in amount never shown)."""
    if settled is None:
        return ()
    waiting = {p for p in r.bonus_players if p not in r.bonus_odds}
    lines = []
    for s in settled.settlements:
        is_pending = s.kind == BONUS and s.wager.player in waiting
        lines.append(PayLine(s.wager, s.kind, s.odds, Decimal(0) if is_pending else s.payout, is_pending))
    return tuple(lines)


def with_bonus_payout(view: BonusView, lines: Iterable[PayLine]) -> BonusView:
    """A finished bonus game's view with what it pays: the sum over the player's Bonus wins."""
    if not view.finished:
        return view
    won = [ln for ln in lines if ln.wager.player == view.player and ln.kind == BONUS and not ln.pending]
    if not won:
        return view
    # The multiplier is "to 1" on a straight-up; a wider bet shares it (39 to 6 on a six line), so
    # the screen says which wager the payout is for.
    if len(won) == 1:
        w = won[0].wager
        basis = f"{money(w.amount)} on {w.bet.label}" + (
            f" at {odds_text(view.final_odds, w.bet.size)}" if view.final_odds is not None else ""
        )
    else:
        basis = f"{len(won)} wagers on the Bonus Number"
    return dataclasses.replace(view, payout=sum((ln.payout for ln in won), Decimal(0)), paid_on=basis)


def history_entry(r: RoundState) -> HistoryEntry | None:
    """The history strip's entry of a round with a result (None without one)."""
    if r.result is None or r.draw is None:
        return None
    return HistoryEntry(
        r.result,
        lucky=r.result in r.draw.lucky,
        bonus=r.result == r.draw.bonus_number,
        manual=r.result_source == "manual",
    )


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


# --- a bonus game as the bonus panel draws it ------------------------------------------------------

_END_STATUS = {"x": BonusStatus.LOST, "cash_out": BonusStatus.CASHED_OUT, "completed": BonusStatus.COMPLETED}
_HIDDEN = (BoxView(),) * 5


def bonus_view(player: str, game: BonusGame | None, preset: Preset, rules: RulesSubmission) -> BonusView:
    """What the bonus panel draws for `player`'s game (None: not started, the preset still open).
    Boxes are numbered 1..5 as in engine.bonus_game."""

    def view(status: BonusStatus, rnd: int, boxes: tuple[BoxView, ...], **extra: Any) -> BonusView:
        return BonusView(
            player=player,
            status=status,
            round=rnd,
            boxes=boxes,
            timer_seconds=rules.bonus_timer_seconds,
            cash_out_from_round=CASH_OUT_FROM_ROUND,
            **extra,
        )

    if game is None:
        return view(BonusStatus.SETUP, 1, _HIDDEN, picks=(), preset=preset)
    picks = tuple(p.content for p in game.picks if isinstance(p.content, Fraction))
    revealed: tuple[BoxView, ...] = ()
    if game.boxes is not None and game.picks:
        picked = game.picks[-1].box
        revealed = tuple(_box(c, i + 1 == picked) for i, c in enumerate(game.boxes))
    if game.finished:
        assert game.end_reason is not None
        last_pick_round = game.picks[-1].round if game.picks else 0
        # An X or the sixth pick ends the game on the round just revealed; a cash-out ends it
        # on a round whose boxes stay closed, after the previous round's reveal.
        shows_last = game.end_reason != "cash_out" and last_pick_round == game.round
        return view(
            _END_STATUS[game.end_reason],
            game.round,
            revealed if shows_last else _HIDDEN,
            picks=picks,
            previous=() if shows_last else revealed,
            preset=game.preset,
            final_odds=game.outcome,
        )
    return view(
        BonusStatus.PLAYING,
        game.round,
        _HIDDEN,
        picks=picks,
        previous=revealed,
        preset=game.preset,
        seconds_left=game.time_left(),
        deadline=game.deadline if game.time_left() is not None else None,
    )


def _box(content: Fraction | str, picked: bool) -> BoxView:
    if isinstance(content, str):
        return BoxView(BoxState.X, None, picked)
    return BoxView(BoxState.MULTIPLIER, content, picked)
