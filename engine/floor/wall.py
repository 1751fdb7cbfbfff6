"""The surveillance wall's tiles: for many tables at once, only what a tile shows, in a few queries.

A tile shows a table's outcome counts over the window (the frequency bars with the 99% band), the
numbers beyond the Bonferroni limit, the chi-square p-value, the plain-words verdict and the time of
the table's last entry. These are the same functions `drr stats` and the full page use
(`engine.store.stats.chi_square`, `z_scores`, `engine.floor.power.verdict`,
`engine.floor.surveillance.frequency`) over the same counts, so a tile never disagrees with them;
what differs is the reading: a wall of a hundred tables reads its counts in one query on PostgreSQL
(a LATERAL index scan of each table's newest rounds for a "last N spins" window) and the last entries
of every table in another, instead of a full page of figures per table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.floor.power import verdict
from engine.floor.surveillance import LAYOUT_ORDER, frequency
from engine.floor.windows import SpinWindow
from engine.store import schema
from engine.store.stats import DEFAULT_ALPHA, POCKETS, chi_square_in_words, read_tally, z_scores

if TYPE_CHECKING:
    from engine.store.db import Store


@dataclass
class TileView:
    """One table's wall tile; `stats` holds the `drr stats` keys a tile shows (spins, chi_square,
    z_scores) with the same values."""

    table: str
    window: SpinWindow
    stats: dict[str, Any]
    layout: dict[str, Any]
    verdict: str
    last_time: str | None
    seq: int  # the table's head when read


def tile_views(
    store: Store, tables: list[str], window: SpinWindow, *, alpha: float = DEFAULT_ALPHA
) -> dict[str, TileView]:
    """The tiles of `tables` for `window` (see the module docstring)."""
    if not tables:
        return {}
    kwargs = window.stats_kwargs()
    if kwargs.get("last") is None or store.is_sqlite:
        # Whole-day windows read the aggregates, as `drr stats` does; SQLite has one table or few.
        counts = {t: list(read_tally(store, t, **kwargs).counts) for t in tables}
        with store.read() as conn:
            heads = _heads(conn, tables)
    else:
        # Both queries in one read: each read of the floor's PostgreSQL is a pool pre-ping, BEGIN and
        # an end besides its queries, round trips the station's reader waited on per tile (issue 28).
        with store.read() as conn:
            counts = _last_counts(conn, tables, kwargs)
            heads = _heads(conn, tables)
    views = {}
    for table in tables:
        c = counts.get(table, [0] * POCKETS)
        stats = {
            "spins": sum(c),
            "counts": c,
            "chi_square": chi_square_in_words(c, alpha),
            "z_scores": z_scores(c, alpha),
        }
        seq, last = heads.get(table, (0, None))
        views[table] = TileView(
            table=table,
            window=window,
            stats=stats,
            layout=frequency(c, LAYOUT_ORDER),
            verdict=verdict(stats, alpha=alpha),
            last_time=last,
            seq=seq,
        )
    return views


def _last_counts(conn: sa.Connection, tables: list[str], kwargs: dict[str, Any]) -> dict[str, list[int]]:
    """Each table's counts over its last N spins (PostgreSQL), in one query."""
    from engine.store.canonical import format_time

    conds = ["r.table_id = t.table_id", "r.result IS NOT NULL"]
    params: dict[str, Any] = {"last": int(kwargs["last"]), "tables": tables}
    if kwargs.get("since") is not None:
        conds.append("r.opened_at >= :since")
        params["since"] = format_time(kwargs["since"])
    if kwargs.get("until") is not None:
        conds.append("r.opened_at < :until")
        params["until"] = format_time(kwargs["until"])
    # Each table's newest rounds through ix_rounds_table_opened, the same rows `read_tally(last=N)` reads.
    query = sa.text(
        "SELECT t.table_id, x.result, count(*) FROM unnest(CAST(:tables AS text[])) AS t(table_id) "
        "CROSS JOIN LATERAL (SELECT r.result FROM rounds r WHERE "
        + " AND ".join(conds)
        + " ORDER BY r.opened_at DESC LIMIT :last) AS x GROUP BY t.table_id, x.result"
    )
    out: dict[str, list[int]] = {t: [0] * POCKETS for t in tables}
    for table, result, n in conn.execute(query, params):
        out[table][int(result)] = int(n)
    return out


def _heads(conn: sa.Connection, tables: list[str]) -> dict[str, tuple[int, str | None]]:
    """Each table's head seq and the time of its last entry, in one query."""
    h, j = schema.chain_heads, schema.journal
    query = (
        sa.select(h.c.table_id, h.c.seq, j.c.time)
        .select_from(h.outerjoin(j, sa.and_(j.c.table_id == h.c.table_id, j.c.seq == h.c.seq)))
        .where(h.c.table_id.in_(tables))
    )
    return {t: (int(seq), time) for t, seq, time in conn.execute(query)}
