"""Scale figures of one table's chain at 5M entries (drr bench --scale): verify, incremental verify, start."""

from __future__ import annotations

from bench.scale import ScaleContext, register


def bench_chain_scale(ctx: ScaleContext) -> dict[str, float]:
    from bench.chain_figures import chain_figures

    journal = ctx.long_journal()
    # One repetition at 5M entries: three of the whole audit and the rebuild would take many minutes.
    figures = chain_figures(journal, ctx.workdir, ctx.progress, repeats=1)
    renamed = {"table_start_ms": "table_start_ms_at_5M_entries"}
    return {renamed.get(k, k): v for k, v in figures.items()}


register(
    "chain",
    bench_chain_scale,
    weight=240,
    goals={
        "audit_verify_entries_per_s": (">=", 300_000),
        "audit_verify_incremental_ms": ("<=", 200),
        "table_start_ms_at_5M_entries": ("<=", 2_000),
    },
)
