"""Roles and what each may do: one permission table the engine enforces for the CLI and the GUI alike.

`require(user, "void_round")` raises `PermissionDenied` (a DrrError naming the user, the role and the
action) unless the user's role holds that permission. Users and PINs live in the store
(`engine.store.users`); this module is pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine.errors import DrrError

ROLES: Final = ("croupier", "surveillance", "pitboss", "admin")

_VIEW: Final = frozenset({"view_tables", "view_stats", "view_history", "recall_round", "export_history"})
_DEAL: Final = frozenset(
    {
        "open_bets", "place_wager", "remove_wager", "no_more_bets", "enter_result", "confirm_result",
        "no_spin", "bonus_pick", "cash_out", "settle_round", "view_tables",
    }
)  # fmt: skip
_SUPERVISE: Final = frozenset(
    {
        "void_round", "correct_result", "approve_payout", "acknowledge_alert", "change_settings",
        "load_rules", "import_history", "resolve_irregularity",
    }
)  # fmt: skip

PERMISSIONS: Final[dict[str, frozenset[str]]] = {
    "croupier": _DEAL,
    "surveillance": _VIEW | {"acknowledge_alert"},
    "pitboss": _DEAL | _VIEW | _SUPERVISE,
    "admin": _DEAL | _VIEW | _SUPERVISE | {"manage_users"},
}

ALL_PERMISSIONS: Final = frozenset().union(*PERMISSIONS.values())


class PermissionDenied(DrrError):
    """A user's role does not allow the action (exit code 3)."""

    exit_code = 3


class AuthenticationFailed(DrrError):
    """Unknown user, wrong PIN, disabled or locked-out account (exit code 3); never says which PIN part."""

    exit_code = 3


@dataclass(frozen=True)
class User:
    name: str
    role: str

    def may(self, permission: str) -> bool:
        return permission in PERMISSIONS.get(self.role, frozenset())


def check_role(role: str) -> str:
    if role not in ROLES:
        raise DrrError(f"unknown role {role!r}: use one of {', '.join(ROLES)}")
    return role


def require(user: User, permission: str) -> None:
    """Refuse unless `user` may do `permission` (a name from PERMISSIONS)."""
    if permission not in ALL_PERMISSIONS:
        raise ValueError(f"unknown permission {permission!r}")
    if not user.may(permission):
        allowed = [role for role in ROLES if permission in PERMISSIONS[role]]
        raise PermissionDenied(
            f"{user.name} ({user.role}) may not {permission.replace('_', ' ')}: needs {' or '.join(allowed)}"
        )
