"""Who deals at the table: the croupier signed in at the croupier station, a relief dealer taking over
(a dealer change), a sign-out. Each is one `table.dealer_changed` entry (engine.table_events.DealerChanged).

The rounds opened after the entry carry its dealer in `round.opened` (TableService.open_bets takes
TableState.dealer), so the surveillance's per-dealer figures (engine.floor.sequence, the `rounds`
projection's `dealer`) follow every change; a round already on the felt keeps the dealer it was
opened by. A change is refused to nobody: only a role that may run a table deals.
"""

from __future__ import annotations

from engine.auth import User, require
from engine.errors import IllegalTransition
from engine.table.state import TableState
from engine.table_events import DealerChanged


def signed_in(state: TableState, user: User, station: str) -> DealerChanged | None:
    """The entry for `user` signing in to deal (None: `user` deals already, e.g. after a restart)."""
    require(user, "open_bets")
    if state.dealer == user.name:
        return None
    return DealerChanged(user.name, state.dealer, station, user.role)


def signed_out(state: TableState, user: User, station: str) -> DealerChanged:
    """The entry for `user` signing out: nobody deals at the table until the next sign-in."""
    if state.dealer is None:
        raise IllegalTransition(f"{user.name} cannot sign out: nobody is signed in at table {state.table}")
    # (The station's user signs out even when a pit boss has since named another dealer: the
    # station's user is who leaves.)
    return DealerChanged(None, user.name, station, user.role)
