"""Scale figures of one table's chain at 5M entries (drr bench --scale): verify, incremental verify, start."""

from __future__ import annotations

from bench.scale import ScaleContext, register


def bench_chain_scale(ctx: ScaleContext) -> dict[str, float]:
    from bench.chain_figures import chain_figures

    journal = ctx.long_journal()
    figures = chain_figures(journal, ctx.workdir, ctx.progress)
    return {
        "audit_verify_entries_per_s": figures["audit_verify_entries_per_s"],
        "audit_verify_command_entries_per_s": figures["audit_verify_command_entries_per_s"],
        "audit_verify_incremental_ms": figures["audit_verify_incremental_ms"],
        "table_start_ms_at_5M_entries": figures["table_start_ms"],
        "chain_entries": figures["chain_entries"],
    }


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
