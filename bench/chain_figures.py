"""Single-table chain figures (issue 15): full verify speed, incremental verify, table start.

`chain_figures(journal, workdir)` measures them on a private copy of a long synthetic journal
(bench.synthetic: real rounds played through the table service, repeated, every entry hashed,
MAC'd, checkpointed and signed with the table's key):
- `audit_verify_entries_per_s`: `verify` of the whole chain from entry 1 (no verified mark), on a
  store just opened (the file is in the OS cache: the copy was just written);
- `audit_verify_command_entries_per_s`: the whole `drr audit verify` (`engine.store.verify.audit`):
  that verify again, then the store file's check and the derived tables rebuilt from the journal
  (in a transaction rolled back) and compared row by row, which costs most of it;
- `audit_verify_incremental_ms`: after that verify left its mark at the head, 1,000 entries
  appended through `Journal.append_many`, then `verify(incremental=True)`;
- `table_start_ms`: `open_store` + `TableService.start` to ready (the journal verified from the
  mark, the state folded from the last round, `table.started` durable).

Each beside its limit (bench.limits), measured on the same file in the same run, alternated with it:
- `limit_select_entries_per_s`: a bare sqlite3 SELECT of the columns verify reads, every row
  fetched; `verify_vs_limit` (goal <= 1.3) and `audit_verify_command_vs_limit` (goal <= 2.0) are the
  verify's and the whole command's time over its time;
- `limit_hash_entries_per_s`: that SELECT with sha256 over each entry's bytes (the least a chain
  check does);
- `rebuild_entries_per_s`: `projections.rebuild` of the copy (what `drr db rebuild` does per table,
  in a transaction), beside `limit_select_rebuild_entries_per_s`, the bare SELECT of the columns it
  reads; `rebuild_vs_limit` (goal <= 2.0).
Every figure is the median of its repetitions (`_min`, `_max` beside it).

`drr bench` runs them on a 200,000-entry journal, three repetitions each; `drr bench --scale` on 5M,
one repetition (bench/scale_chain.py).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.synthetic import LongJournal

SINCE_MARK = 1000  # entries appended after the last verified position
REPEATS = 3  # each figure and its limit: the median of three, min and max beside it
# What a verify reads of each entry (engine.store.chain_walk's fast pass), and what a rebuild reads.
VERIFY_COLUMNS = ("seq", "time", "user_name", "round_id", "type", "payload", "prev_hash", "hash", "mac")
REBUILD_COLUMNS = ("round_id", "seq", "type", "payload")
SHORT_ENTRIES = 200_000


def chain_figures(
    journal: LongJournal,
    workdir: Path,
    progress: Callable[[float, str], None] | None = None,
    repeats: int = REPEATS,
) -> dict[str, float]:
    """The figures and their limits on a copy of `journal` (see the module docstring)."""
    from bench.limits import Spread, bare_select_rows_per_s, hash_rows_per_s, interleaved, vs_limit
    from bench.synthetic import append_rounds, copy_long_journal
    from engine.rng import SeededRng
    from engine.store import open_store
    from engine.store.projections import rebuild
    from engine.store.verify import audit, verify
    from engine.table.service import TableService

    note = progress or (lambda done, what: None)
    copy = copy_long_journal(journal, workdir / "chain-figures.sqlite")
    note(0.1, "full verify")
    path = Path(copy.path)
    with open_store(copy.url, table=copy.table) as store:

        def full_verify(remember: bool = False) -> float:
            started = time.perf_counter()
            found = verify(store, copy.table, remember=remember)
            if not found.ok:
                raise RuntimeError(f"the benchmark's journal does not verify: {found.problem}")
            return found.events / (time.perf_counter() - started)

        full = verify(store, copy.table, remember=True)  # the mark the incremental verify starts from
        if not full.ok:
            raise RuntimeError(f"the benchmark's journal does not verify: {full.problem}")
        # Each repetition beside one of its limit, alternated (bench.limits): a bare SELECT of the
        # columns verify reads, and that SELECT with sha256 over each entry's bytes.
        verify_s, select_s = interleaved(
            full_verify, lambda: bare_select_rows_per_s(path, VERIFY_COLUMNS, copy.table), repeats
        )
        hash_s = Spread.of(hash_rows_per_s(path, copy.table) for _ in range(repeats))
        note(0.3, "the whole drr audit verify")

        def whole_audit() -> float:
            started = time.perf_counter()
            whole = audit(store, copy.table)
            if not whole.report.ok or whole.damage is not None or whole.derived is not None:
                raise RuntimeError(f"drr audit verify fails the benchmark's journal: {whole}")
            return whole.report.events / (time.perf_counter() - started)

        audit_s = Spread.of(whole_audit() for _ in range(repeats))
        note(0.5, "rebuild")

        def rebuilt() -> float:
            started = time.perf_counter()
            with store.begin() as conn:
                count = rebuild(conn, copy.table)
            return count / (time.perf_counter() - started)

        rebuild_s, rebuild_limit_s = interleaved(
            rebuilt, lambda: bare_select_rows_per_s(path, REBUILD_COLUMNS, copy.table), repeats
        )
        note(0.6, "incremental verify")
        append_rounds(store, copy.table, SINCE_MARK)
        started = time.perf_counter()
        incr = verify(store, copy.table, incremental=True, remember=False)
        incr_s = time.perf_counter() - started
        if not incr.ok or incr.events <= full.events:
            raise RuntimeError(f"the incremental verify failed: {incr.problem}")

    async def restart() -> float:
        began = time.perf_counter()
        with open_store(copy.url, table=copy.table) as store:
            svc = TableService(store, copy.table, rng=SeededRng(5), allow_seeded_rng=True, claim=False)
            await svc.start()
            ready = time.perf_counter() - began
            await svc.close()
        return ready

    note(0.8, "table start")
    start_s = asyncio.run(restart())
    copy.path.unlink(missing_ok=True)
    return {
        **verify_s.figures("audit_verify_entries_per_s"),
        **audit_s.figures("audit_verify_command_entries_per_s"),
        **rebuild_s.figures("rebuild_entries_per_s"),
        **select_s.figures("limit_select_entries_per_s"),
        **rebuild_limit_s.figures("limit_select_rebuild_entries_per_s"),
        **hash_s.figures("limit_hash_entries_per_s"),
        "verify_vs_limit": vs_limit(verify_s.median, select_s.median, rate=True),
        "audit_verify_command_vs_limit": vs_limit(audit_s.median, select_s.median, rate=True),
        "rebuild_vs_limit": vs_limit(rebuild_s.median, rebuild_limit_s.median, rate=True),
        "audit_verify_incremental_ms": incr_s * 1000,
        "table_start_ms": start_s * 1000,
        "chain_entries": float(full.events),
    }


def bench_chain() -> dict[str, float]:
    """`drr bench`: the figures on a 200,000-entry journal (the scale bench measures 5M)."""
    import os

    from bench.synthetic import build_long_journal

    with tempfile.TemporaryDirectory() as tmp:
        old = os.environ.get("DRR_KEY_DIR")
        os.environ["DRR_KEY_DIR"] = str(Path(tmp) / "keys")  # the bench's keys, never the user's
        try:
            journal = build_long_journal(Path(tmp) / "long.sqlite", SHORT_ENTRIES, key_dir=Path(tmp) / "keys")
            figures = chain_figures(journal, Path(tmp))
        finally:
            if old is None:
                os.environ.pop("DRR_KEY_DIR", None)
            else:
                os.environ["DRR_KEY_DIR"] = old
    renamed = {
        "audit_verify_incremental_ms": "audit_verify_incremental_ms_at_200k",
        "table_start_ms": "table_start_ms_at_200k_entries",
    }
    return {renamed.get(k, k): v for k, v in figures.items() if k != "chain_entries"}
