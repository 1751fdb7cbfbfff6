"""`drr stats`: outcome statistics of a table from the store's aggregates (the surveillance figures)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime
    from fractions import Fraction

from engine.cli.store_args import add_db, add_signer, add_table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("stats", help="outcome statistics and bias tests of a table")
    add_db(p)
    add_table(p, help="the table (default: every table in the store)")
    add_signer(p)
    p.add_argument("--since", metavar="TIME", help="from this UTC date or time (ISO 8601, e.g. 2026-11-29)")
    p.add_argument("--until", metavar="TIME", help="before this UTC date or time")
    p.add_argument("--last", metavar="N", type=int, help="only the last N spins")
    p.add_argument(
        "--house-edge",
        metavar="X",
        help="one house edge for the theoretical hold (e.g. 0.027 or 1/37); default: each bet's own edge "
        "from the Rules Submission's math, weighted by the handle on it",
    )
    p.add_argument(
        "--strategy",
        choices=("optimal", "cash_out_at_3", "play_to_end"),
        default="optimal",
        help="bonus-game play assumed for the inside bets' edges (default: optimal, the design figure)",
    )
    p.add_argument("--alpha", type=float, default=0.01, help="family-wise error rate of the z-score flags")
    p.add_argument(
        "--rules", metavar="FILE", default=None, help="Rules Submission for the expected Lucky rate"
    )
    p.add_argument("--json", action="store_true", help="one JSON object")
    from engine.config import mark_settings_options

    mark_settings_options(p, "rules")
    p.set_defaults(func=run)


def parse_moment(text: str | None, what: str) -> datetime | None:
    """An ISO date or time given on the command line, as aware UTC; a clear error otherwise."""
    from datetime import UTC, datetime

    from engine.errors import DrrError

    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise DrrError(
            f"{what} {text!r} is not an ISO 8601 date or time (e.g. 2026-11-29 or 2026-11-29T02:13)"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def parse_edge(text: str | None) -> Fraction | None:
    from fractions import Fraction

    from engine.errors import DrrError

    if text is None:
        return None
    try:
        edge = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise DrrError(f"--house-edge {text!r} is not a number such as 0.027 or 1/37") from None
    if not 0 <= edge < 1:
        raise DrrError(f"--house-edge {text} must be at least 0 and below 1")
    return edge


def run(args: argparse.Namespace) -> int:
    import json

    from engine.cli.store_args import open_from_args, sign_in_if_users
    from engine.config import bias_thresholds
    from engine.errors import DrrError
    from engine.rules import load_default_rules, load_rules
    from engine.store.stats import expected_lucky_count, house_edges, table_stats

    if args.last is not None and args.last <= 0:
        raise DrrError(f"--last {args.last}: give a positive number of spins")
    rules = load_rules(args.rules) if args.rules else load_default_rules()
    edge = parse_edge(args.house_edge)
    with open_from_args(args) as store:
        sign_in_if_users(store, args, "view_stats", doing="drr stats")
        if args.only_table is not None and args.only_table not in (known := store.journal.tables()):
            listed = ", ".join(known) or "none"
            raise DrrError(f"no table {args.only_table} in {store.where} (tables: {listed})")
        result = table_stats(
            store,
            args.only_table,
            since=parse_moment(args.since, "--since"),
            until=parse_moment(args.until, "--until"),
            last=args.last,
            expected_lucky=expected_lucky_count(rules.lucky_counts),
            house_edge=edge if edge is not None else house_edges(rules, args.strategy),
            alpha=args.alpha,
            sequential=True,
            thresholds=bias_thresholds(getattr(args, "settings", None)),  # the settings file's
        )
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(render(result))
    return 0


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.3f}%"


def render(s: dict[str, Any]) -> str:
    chi = s["chi_square"]
    lines = [f"table {s['table'] or 'all'}: {s['spins']:,} spins"]
    if chi["statistic"] is not None:
        lines.append(f"chi-square {chi['statistic']:.2f} on {chi['df']} df, p = {chi['p_value']:.4f}")
    if chi.get("words"):
        lines.append(f"  {chi['words']}")
    lines.append("counts  " + " ".join(f"{n}:{c}" for n, c in enumerate(s["counts"])))
    flagged = s["z_scores"]["flagged"]
    lines.append(f"numbers flagged (Bonferroni, p < {s['z_scores']['threshold']:.2g}): {flagged or 'none'}")
    for width, sector in s["sectors"].items():
        p = sector["p_value"]
        lines.append(
            f"hottest {width}-pocket sector {sector['numbers']}: {sector['count']} hits "
            f"(expected {sector['expected']:.1f}), p = {'—' if p is None else f'{p:.4f}'}"
        )
        if sector.get("words"):
            lines.append(f"  {sector['words']}")
    rbz, oe, lh = s["red_black_zero"], s["odd_even"], s["low_high"]
    lines.append(
        f"red {rbz['red']}  black {rbz['black']}  zero {rbz['zero']}  odd {oe['odd']}  even {oe['even']}"
    )
    lines.append(f"low {lh['low']}  high {lh['high']}  dozens {s['dozens']}  columns {s['columns']}")
    for name, d in s["by_direction"].items():
        p = d["chi_square"]["p_value"]
        lines.append(f"rotor {name}: {d['spins']} spins, chi-square p = {'—' if p is None else f'{p:.4f}'}")
        if d["chi_square"].get("words"):
            lines.append(f"  {d['chi_square']['words']}")
    lucky, bonus, hold = s["lucky"], s["bonus"], s["hold"]
    lines.append(
        f"Lucky hits {lucky['hits']} in {lucky['spins_with_draw']}: {_pct(lucky['rate'])}"
        f" (expected {_pct(lucky['expected_rate'])})"
    )
    lines.append(
        f"Bonus hits {bonus['hits']} in {bonus['spins_with_draw']}: {_pct(bonus['rate'])}"
        f" (expected {_pct(bonus['expected_rate'])})"
    )
    lines.append(
        f"handle {hold['wagered']}  paid {hold['paid']} (returned with stakes {hold['returned']})"
        f"  win {hold['win']}  hold {_pct(hold['actual'])}"
        f"  theoretical {_pct(hold['theoretical'])} (win {hold['theoretical_win'] or '—'})"
    )
    seq = s.get("sequential")
    if seq is not None:
        rate = 100 * seq["false_alarms_per_table_year"]
        lines.append(
            f"sequential bias tests: {len(seq['alarms'])} alarm(s) over these spins"
            f" (a fair wheel: {rate:.2f} false alarms per 100 table-years)"
        )
        lines += [f"  alarm: {a['words']}" for a in seq["alarms"]]
    return "\n".join(lines)
