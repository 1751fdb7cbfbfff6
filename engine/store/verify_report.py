"""What a verification found (`VerifyReport`) and how a failure is put in it (`fail`): the first bad
table and entry, in the one line `drr audit verify` prints (engine.store.verify)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from engine.store.canonical import GENESIS_HASH, canonical_json


@dataclass
class VerifyReport:
    ok: bool
    events: int = 0
    rounds: int = 0
    tables: dict[str, tuple[int, str]] = field(default_factory=dict)  # table -> (seq, head hash)
    problem: str | None = None
    bad_table: str | None = None
    bad_seq: int | None = None
    detail: str | None = None  # the problem without its "table T entry N:" prefix
    keys: dict[str, str] = field(default_factory=dict)  # table -> fingerprint of the key in force
    unpinned: list[str] = field(default_factory=list)  # signed tables verified without a pinned key

    @property
    def head(self) -> str:
        """The head hash (one table) or a digest of all heads (several tables)."""
        if len(self.tables) == 1:
            return next(iter(self.tables.values()))[1]
        text = canonical_json({t: h for t, (_, h) in sorted(self.tables.items())})
        return hashlib.sha256(text.encode()).hexdigest() if self.tables else GENESIS_HASH

    def summary(self) -> str:
        if self.ok:
            signed = "".join(f", table {t} signed by key {fp}" for t, fp in sorted(self.keys.items()))
            note = (
                f" (key not pinned for {', '.join(self.unpinned)}: compare the fingerprint with the table's)"
                if self.unpinned
                else ""
            )
            return f"OK: {self.events} events, {self.rounds} rounds, head {self.head}{signed}{note}"
        return f"FAILED: {self.problem}"


def fail(report: VerifyReport, table: str, seq: int | None, problem: str) -> VerifyReport:
    """`report` failed at `table`'s entry `seq` (None: the chain as a whole) with `problem`."""
    report.ok = False
    report.bad_table, report.bad_seq, report.detail = table, seq, problem
    report.problem = (
        f"table {table} entry {seq}: {problem}" if seq is not None else f"table {table}: {problem}"
    )
    return report
