"""Errors that carry a message meant for a person (croupier, operator, lab), not a traceback."""


class DrrError(Exception):
    """A refusal or failure with a clear one-line message; the CLI prints it and exits with `exit_code`."""

    exit_code: int = 1

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self) -> str:
        return str(self.args[0])


class IllegalWager(DrrError):
    """A wager that is not a legal bet (shape, numbers or amount); names the wager and the reason."""

    exit_code = 2


class RulesError(DrrError):
    """A Rules Submission that cannot be read or breaks § 617b.12; carries every violation."""

    def __init__(self, message: str, violations: list[str] | None = None) -> None:
        super().__init__(message)
        self.violations = violations or []


class BonusOutcomeMissing(DrrError):
    """A player won on the Bonus Number with an inside wager but their bonus game has no outcome yet."""


class IllegalTransition(DrrError):
    """An event that the round or the bonus game cannot accept in its current state."""
