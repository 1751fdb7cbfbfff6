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

`drr bench` runs them on a 200,000-entry journal; `drr bench --scale` on 5M
(bench/scale_chain.py).
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
SHORT_ENTRIES = 200_000


def chain_figures(
    journal: LongJournal, workdir: Path, progress: Callable[[float, str], None] | None = None
) -> dict[str, float]:
    """The three figures on a copy of `journal` (see the module docstring)."""
    from bench.synthetic import append_rounds, copy_long_journal
    from engine.rng import SeededRng
    from engine.store import open_store
    from engine.store.verify import audit, verify
    from engine.table.service import TableService

    note = progress or (lambda done, what: None)
    copy = copy_long_journal(journal, workdir / "chain-figures.sqlite")
    note(0.1, "full verify")
    with open_store(copy.url, table=copy.table) as store:
        started = time.perf_counter()
        full = verify(store, copy.table, remember=True)
        full_s = time.perf_counter() - started
        if not full.ok:
            raise RuntimeError(f"the benchmark's journal does not verify: {full.problem}")
        note(0.3, "the whole drr audit verify")
        started = time.perf_counter()
        whole = audit(store, copy.table)
        whole_s = time.perf_counter() - started
        if not whole.report.ok or whole.damage is not None or whole.derived is not None:
            raise RuntimeError(f"drr audit verify fails the benchmark's journal: {whole}")
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
        "audit_verify_entries_per_s": full.events / full_s,
        "audit_verify_command_entries_per_s": whole.report.events / whole_s,
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
    return {
        "audit_verify_entries_per_s": figures["audit_verify_entries_per_s"],
        "audit_verify_command_entries_per_s": figures["audit_verify_command_entries_per_s"],
        "audit_verify_incremental_ms_at_200k": figures["audit_verify_incremental_ms"],
        "table_start_ms_at_200k_entries": figures["table_start_ms"],
    }
