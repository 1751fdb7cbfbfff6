"""Every `drr …` command line in the README and the operators' manual parses with the real parser.

Guards the manual against commands and options that do not exist (or no longer exist). Command
lines in fenced code blocks must parse completely. Inline code spans starting with `drr ` often
just name a command ("`drr settle` reads…"), so for them a missing required argument is fine, but
an unknown command or option is not; spans written as synopses ([optional] parts, a|b
alternatives, …, PLACEHOLDER words) are skipped. docs/math.md and docs/rules-submission.md
belong to the engine and math authors and are generated or checked by their own tests.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from gui.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
OTHERS = {"math.md", "rules-submission.md"}
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in OTHERS)]


def command_lines(text: str) -> list[tuple[str, bool]]:
    """(command line, complete?) pairs: complete for code blocks, not for inline mentions."""
    lines: list[tuple[str, bool]] = []
    for block in re.findall(r"```(?:sh|bash|bat|console)?\n(.*?)```", text, re.S):
        joined = block.replace("\\\n", " ")
        lines += [(ln.strip(), True) for ln in joined.splitlines() if ln.strip().startswith("drr ")]
    for span in re.findall(r"`(drr [^`]+)`", text):
        synopsis = any(mark in span for mark in ("[", "|", "…", "...")) or re.search(r"\b[A-Z]{3,}\b", span)
        if not synopsis:
            lines.append((span, False))
    return lines


def parse_error(line: str, complete: bool) -> str | None:
    command = re.split(r" #| \| | > | 2>", line)[0].strip()
    argv = shlex.split(command)[1:]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser().parse_args(argv)
        except SystemExit as exc:
            if exc.code not in (0, None):
                message = err.getvalue().strip().splitlines()[-1]
                if complete or "arguments are required" not in message:
                    return message
    return None


CASES = [
    (doc.relative_to(ROOT).as_posix(), line, complete)
    for doc in DOCS
    for line, complete in command_lines(doc.read_text("utf-8"))
]


def test_the_docs_hold_command_lines_and_the_checker_catches_bad_ones() -> None:
    assert len(CASES) > 40  # the checker finds them: a regex that matched nothing would pass everything
    assert parse_error("drr history list --colour red", complete=True) is not None
    assert parse_error("drr sing", complete=False) is not None
    assert parse_error("drr settle", complete=False) is None  # a mention of the command
    assert parse_error("drr settle", complete=True) is not None  # as a command line it lacks its file


@pytest.mark.parametrize(("doc", "line", "complete"), CASES, ids=[f"{d}:{ln[:60]}" for d, ln, _ in CASES])
def test_documented_command_parses(doc: str, line: str, complete: bool) -> None:
    error = parse_error(line, complete)
    assert error is None, f"{doc}: `{line}`: {error}"
