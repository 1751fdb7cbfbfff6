"""The rich console a command prints its tables to: a reader that goes away (`drr math | head -1`) is
handed to `drr`'s one broken-pipe handler (gui.cli.main) instead of rich's own exit 1; the progress bar
a long command draws on standard error."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # rich redirects stdout and raises SystemExit(1); a closed pipe is normal use, and gui.cli.main
        # is the one place that says so (exit 0, nothing printed).
        raise BrokenPipeError


def stdout_console() -> Console:
    """A console on standard output whose closed pipe raises BrokenPipeError."""
    return _Console()


@contextmanager
def progress_bar(description: str, total: int | None = None) -> Iterator[Callable[..., None] | None]:
    """A rich bar on stderr when stderr is a terminal, else None: its `update(done, total)` (the
    collectors', the battery's) or `update(advance=n)` (`drr simulate`'s spins)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)

        def update(done: int | None = None, total: int | None = None, *, advance: int | None = None) -> None:
            bar.update(task, completed=done, total=total, advance=advance)

        yield update
