"""What a table may play: only what `drr rules check` accepts; a seeded generator only on a demo/test store.

`problems_for_play(rules)` is the check's own verdict (engine.rules' structure and
engine.math.rules_gate's return-to-player refusal); every load path for play (`drr table run
--rules`, the croupier station `drr gui --rules`, the table service's start, `drr settle --rules`,
`drr certify`) refuses a refused file with those lines and exit 2 (`rules_for_play`,
`load_rules_for_play`). `seeded_play_problem(store, table)` refuses a seeded generator on a store
that has played production rounds; a store is a demo's or a test's when its chain's first
`table.started` names a seeded generator (the journaled fact of its creation).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import RulesError
from engine.math.rules_gate import math_check
from engine.rules import RulesSubmission, default_rules_path, parse_rules

if TYPE_CHECKING:
    from engine.store.database import Database
    from engine.store.records import Entry

# The store's readers below import SQLAlchemy and the journal's types when they are called: the
# croupier station checks its Rules Submission before its first frame, with no store open yet
# (issue 28: those imports were a third of the time to that frame).

# The name every seeded generator journals (engine.rng.SeededRng: "seeded:<seed>").
SEEDED_PREFIX = "seeded"
# A draw by one, in the journal's stored canonical text (engine.rng.Draw.to_record): a LIKE pattern.
SEEDED_DRAW = f'%"rng":"{SEEDED_PREFIX}%'


class RefusedForPlay(RulesError):
    """A Rules Submission `drr rules check` refuses, given to a table for play: exit 2."""

    exit_code = 2


def problems_for_play(rules: RulesSubmission) -> list[str]:
    """`drr rules check`'s one-line refusals of a structurally valid Rules Submission ([] = playable):
    a wager kind returning 100% or more under some bonus strategy (engine.math.rules_gate)."""
    refusals, _ = math_check(rules)
    return [str(v) for v in refusals]


def _refuse(source: str, problems: list[str]) -> RefusedForPlay:
    return RefusedForPlay(
        f"{source}: {len(problems)} problem(s); the Rules Submission is NOT valid, not loaded for play "
        "(drr rules check):\n  " + "\n  ".join(problems),
        violations=problems,
    )


def rules_for_play(text: bytes, source: str = "the Rules Submission") -> RulesSubmission:
    """The Rules Submission of `text`, or RefusedForPlay (exit 2) with the check's lines."""
    try:
        rules = parse_rules(text, source=source)
    except RulesError as exc:
        raise _refuse(source, exc.violations or [exc.message]) from None
    problems = problems_for_play(rules)
    if problems:
        raise _refuse(source, problems)
    return rules


def read_rules_text(path: str | Path) -> bytes:
    """The bytes of a Rules Submission file, or RulesError (exit 1) naming why it cannot be read."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise RulesError(f"{path}: cannot read the Rules Submission: {exc.strerror or exc}") from None


def load_rules_for_play(path: str | Path | None) -> RulesSubmission:
    """The Rules Submission at `path` (None: the shipped one) for play, or RefusedForPlay (exit 2)."""
    file = Path(path) if path is not None else default_rules_path()
    return rules_for_play(read_rules_text(file), source=str(file))


def _generator(entry: Entry) -> str:
    """The generator a `table.started` names ("" for none)."""
    from engine.journal_types import read
    from engine.table_events import TableStarted

    payload = read(entry)
    return payload.rng if isinstance(payload, TableStarted) else ""


def is_seeded(rng_name: str) -> bool:
    return rng_name.startswith(SEEDED_PREFIX)


def store_purpose(store: Database, table: str) -> str | None:
    """ "demo/test" or "production": what the chain's first `table.started` says of its generator
    (None: the table has never started, a new store)."""
    import sqlalchemy as sa

    from engine.entry_types import EntryType
    from engine.journal_types import spellings
    from engine.store import schema
    from engine.store.records import row_to_entry

    j = schema.journal
    query = (
        sa.select(j)
        .where(j.c.table_id == table, j.c.type.in_(spellings(EntryType.TABLE_STARTED)))
        .order_by(j.c.seq)
        .limit(1)
    )
    with store.read() as conn:
        first = conn.execute(query).first()
    if first is None:
        return None
    return "demo/test" if is_seeded(_generator(row_to_entry(first))) else "production"


def production_rounds(store: Database, table: str) -> int:
    """How many of the table's rounds were drawn by a generator that is not a seeded one (an old
    journal's `round.closed` named none: a production table's). Counted in SQL, as
    `seeded_round_ids` finds the seeded ones: a draw's stored canonical text names its generator as
    `"rng":"seeded:…"`, so a store of a million rounds is not read and typed draw by draw."""
    import sqlalchemy as sa

    from engine.entry_types import EntryType
    from engine.journal_types import spellings
    from engine.store import schema

    j = schema.journal
    query = sa.select(sa.func.count()).where(
        j.c.table_id == table,
        j.c.type.in_(spellings(EntryType.ROUND_BETS_CLOSED)),  # today's spelling and the legacy one
        j.c.payload.not_like(SEEDED_DRAW),
    )
    with store.read() as conn:
        return int(conn.execute(query).scalar() or 0)


def seeded_round_ids(store: Database, table: str, rounds: Any = None) -> set[str]:
    """The ids of the table's rounds drawn by a seeded generator (a demo's or a test's), among
    `rounds` (a select of round ids, e.g. a report's period) or all of them. The draw's stored
    canonical text names its generator as `"rng":"seeded:…"` (engine.rng.Draw.to_record)."""
    import sqlalchemy as sa

    from engine.entry_types import EntryType
    from engine.store import schema

    j = schema.journal
    query = sa.select(j.c.round_id).where(
        j.c.table_id == table,
        j.c.type == EntryType.ROUND_BETS_CLOSED.value,
        j.c.payload.like(SEEDED_DRAW),
    )
    if rounds is not None:
        query = query.where(j.c.round_id.in_(rounds))
    with store.read() as conn:
        return {str(rid) for rid in conn.execute(query).scalars() if rid is not None}


def seeded_play_problem(store: Database, table: str) -> str | None:
    """None when a seeded generator may play `table` on this store, else the one-line refusal: the
    store was created by a production table, or it has played rounds drawn by the production
    generator (their figures must never mix with predictable draws)."""
    played = production_rounds(store, table)
    if played:
        return (
            f"--seed is refused: table {table} on this store has played {played:,} production round(s); "
            "a seeded generator is for a demo's or a test's store only (start one on a new store)"
        )
    if store_purpose(store, table) == "production":
        return (
            f"--seed is refused: table {table}'s store was created by a production table, not marked "
            "for demos or tests; a seeded generator is for a demo's or a test's store only"
        )
    return None
