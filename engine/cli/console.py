"""The rich console a command prints its tables to: a reader that goes away (`drr math | head -1`) is
handed to `drr`'s one broken-pipe handler (gui.cli.main) instead of rich's own exit 1."""

from __future__ import annotations

from rich.console import Console


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # rich redirects stdout and raises SystemExit(1); a closed pipe is normal use, and gui.cli.main
        # is the one place that says so (exit 0, nothing printed).
        raise BrokenPipeError


def stdout_console() -> Console:
    """A console on standard output whose closed pipe raises BrokenPipeError."""
    return _Console()
