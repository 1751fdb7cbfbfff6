"""The game math of a Rules Submission as data: JSON for `drr math --json` and docs/math.md.

Every exact value is a fraction string "p/q" (or "p" when whole) so anyone can recompute
it; percentages and standard deviations are decimal strings for reading. docs/math.md is
`markdown(game_math(default rules))`, checked by a test so it cannot drift from the code.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.exact import format_odds
from engine.math.bonus_value import STRATEGIES, Strategy
from engine.math.wager_math import KIND_TITLES, POCKETS, GameMath, WagerStats, percent, sqrt_decimal
from engine.rules import LIMIT_KEYS, MULTIPLIER_BOXES, RulesSubmission, default_rules_path
from engine.software_id import running_digest

STDEV_PLACES = 12

STRATEGY_TITLES = {
    Strategy.OPTIMAL: "optimal",
    Strategy.CASH_OUT_AT_3: "cash out at round 3",
    Strategy.PLAY_TO_END: "play to the end",
}


def frac(x: Fraction) -> str:
    """An exact value as "p/q" ("p" when whole)."""
    return format_odds(Fraction(x))


def _wager_json(w: WagerStats) -> dict[str, Any]:
    return {
        "numbers": w.numbers,
        "example": w.bet.label,
        "base_odds": frac(w.base_odds),
        "rtp": {s.value: frac(w.rtp[s]) for s in STRATEGIES},
        "house_edge": {s.value: frac(w.house_edge(s)) for s in STRATEGIES},
        "hit_frequency": frac(w.hit_frequency),
        "p_lucky": frac(w.p_lucky),
        "p_bonus": frac(w.p_bonus),
        # "variance"/"stdev" are for the optimal player, the design reference; the other
        # strategies are given alongside.
        "variance": frac(w.variance[Strategy.OPTIMAL]),
        "stdev": sqrt_decimal(w.variance[Strategy.OPTIMAL], STDEV_PLACES),
        "variance_by_strategy": {s.value: frac(w.variance[s]) for s in STRATEGIES},
        "stdev_by_strategy": {s.value: sqrt_decimal(w.variance[s], STDEV_PLACES) for s in STRATEGIES},
        "max_payout": frac(w.max_payout),
    }


def to_json(m: GameMath) -> dict[str, Any]:
    """The whole analysis in the `drr math --json` shape."""
    return {
        "rules": {"name": m.rules.name, "sha256": m.rules.sha256},
        "bets": {kind: _wager_json(w) for kind, w in m.wagers.items()},
        "lucky": {
            "mean_count": frac(m.lucky.mean_count),
            "mean_odds": frac(m.lucky.mean_odds),
            "max_odds": frac(m.lucky.max_odds),
        },
        "bonus": {
            "mean": {s.value: frac(m.bonus[s].mean) for s in STRATEGIES},
            "second_moment": {s.value: frac(m.bonus[s].second_moment) for s in STRATEGIES},
            "max": frac(m.rules.max_bonus),
            "distribution": {
                "optimal": {frac(b): frac(p) for b, p in m.bonus[Strategy.OPTIMAL].distribution.items()}
            },
            "optimal_policy": [
                {
                    "round": p.round,
                    "continue_max_at_risk": None
                    if p.continue_max_at_risk is None
                    else frac(p.continue_max_at_risk),
                    "cash_out_min_at_risk": None
                    if p.cash_out_min_at_risk is None
                    else frac(p.cash_out_min_at_risk),
                }
                for p in m.optimal_policy
            ],
        },
    }


def _num(x: Fraction) -> str:
    """Odds for reading: whole numbers with thousands separators, else exact and decimal."""
    if x.denominator == 1:
        return f"{x.numerator:,}"
    return f"{x.numerator:,}/{x.denominator} (≈{float(x):,.4f})"


def _bonus_rounds_table(r: RulesSubmission) -> list[str]:
    """The bonus game's rounds as a Markdown table: multiplier boxes and weighted multipliers."""
    lines = ["| round | multiplier boxes | multiplier (weight) |", "| --- | --- | --- |"]
    for i, table in enumerate(r.bonus_rounds):
        lines.append(f"| {i + 1} | {MULTIPLIER_BOXES[i]} of 5 | {_weights(dict(table))} |")
    return lines


def _weights(table: dict[Fraction, int] | dict[int, int]) -> str:
    total = sum(table.values())
    return ", ".join(f"{_num(Fraction(k))} ({w}/{total})" for k, w in table.items())


@dataclass(frozen=True)
class Band:
    label: str
    probability: Fraction
    at_least: Fraction  # P(B >= the band's lowest value)


BAND_EDGES = (49, 99, 199, 499, 999, 1999, 2999)


def outcome_bands(distribution: Mapping[Fraction, Fraction]) -> list[Band]:
    """The bonus outcome distribution grouped into readable ranges (the lowest value on its own)."""
    values = sorted(distribution)
    lowest = values[0]
    edges: list[Fraction] = [lowest, *(Fraction(e) for e in BAND_EDGES if e > lowest), max(values)]
    bands = [Band(_num(lowest), distribution[lowest], Fraction(1))]
    for lo, hi in itertools.pairwise(edges):
        if lo >= hi:
            continue
        p = sum((q for b, q in distribution.items() if lo < b <= hi), Fraction(0))
        tail = sum((q for b, q in distribution.items() if b > lo), Fraction(0))
        if p:
            whole = all(b.denominator == 1 for b in values)
            label = f"{_num(lo + 1)} - {_num(hi)}" if whole else f"over {_num(lo)}, up to {_num(hi)}"
            bands.append(Band(label, p, tail))
    return bands


def _same_w(m: GameMath) -> str:
    ws = {w.numbers * (1 + w.base_odds) for w in m.wagers.values() if w.bet.inside}
    return _num(ws.pop()) if len(ws) == 1 else "not the same"


def _design_notes(m: GameMath) -> list[str]:
    """How the paytable meets its targets, in figures computed from it."""
    straight = m.wagers["straight"]
    k, ex = m.lucky.mean_count, m.lucky.mean_odds
    w1 = 1 + straight.base_odds
    sq = Fraction(POCKETS * POCKETS)
    parts = [
        ("base odds (neither Lucky nor Bonus)", (POCKETS - 1 - k) * w1 / sq),
        ("Lucky Numbers", k * (1 + ex) / sq),
        ("Bonus Number, optimal play", (1 + m.bonus[Strategy.OPTIMAL].mean) / sq),
    ]
    means = [m.bonus[s].mean for s in STRATEGIES]
    spread = (max(means) - min(means)) / sq
    lines = [
        "Where the straight-up return comes from (percentage points of RTP, optimal play):",
        "",
        "| source | share of RTP |",
        "| --- | --- |",
        *(f"| {name} | {percent(v, 4)} |" for name, v in parts),
        "",
        "How the design meets its targets:",
        "",
        "1. The bonus game adds (n + E[B])/37² to an n-number bet, so the player's strategy moves",
        f"   every inside bet by the same (max E[B] - min E[B])/37² = {percent(spread, 4)} points. Round",
        "   tables whose strategies end close together keep every strategy inside 96.5%-99.0%.",
    ]
    six = m.wagers.get("six_line")
    if six is not None and six.numbers * (1 + six.base_odds) == w1:
        gap = six.rtp[Strategy.OPTIMAL] - straight.rtp[Strategy.OPTIMAL]
        room = (Fraction("0.99") - straight.rtp[Strategy.OPTIMAL]) * sq / 5 - 1
        lines += [
            f"2. The six line returns 5 (E[k] + 1)/37² = {percent(gap, 4)} points more than the straight up;",
            f"   staying under 99.0% needs E[k] <= {float(room):.3f}. Lucky counts weighted to",
            f"   E[k] = {_num(k)} leave room while 10 Lucky Numbers still occur.",
        ]
    lines += [
        f"3. With those fixed, the Lucky odds weights set E[X] = {_num(ex)} so that the straight up lands",
        "   on 97.30%.",
    ]
    return lines


DEFAULT_SOURCE = "resources/rules/default.toml"


def _band_note(r: RulesSubmission, low: Fraction, high: Fraction) -> str:
    """The Rules Submission's expected RTP band ([math], `drr rules check` warns outside it) and
    whether the figures keep to it: never a bare "required" beside numbers that break it."""
    band = f"expected band {percent(r.rtp_min, 2)}% to {percent(r.rtp_max, 2)}%"
    if high >= 1:
        return f"{band}; 100% OR MORE: `drr rules check` refuses this paytable"
    if low < r.rtp_min or high > r.rtp_max:
        return f"{band}; OUTSIDE it: `drr rules check` warns"
    return band


def markdown(m: GameMath, source: str = DEFAULT_SOURCE) -> str:
    """docs/math.md: the reasoning behind the paytable and its exact figures (`source` names
    the Rules Submission file in the text)."""
    r = m.rules
    straight = m.wagers["straight"]
    inside = [w for w in m.wagers.values() if w.bet.inside]
    low = min(w.rtp[s] for w in inside for s in STRATEGIES)
    high = max(w.rtp[s] for w in inside for s in STRATEGIES)
    k = m.lucky.mean_count
    bonus = m.bonus
    lines = [
        "# Game math of the default Rules Submission"
        if source == DEFAULT_SOURCE
        else f"# Game math of {source}",
        "",
        "<!-- Generated by `drr math --markdown`; docs/math.md is its output for the shipped rules, and",
        "     a test fails when the two disagree. Edit engine/math/report.py, not this file. -->",
        "",
        f"Rules Submission: **{r.name}**, `{source}`, sha256 `{r.sha256}`.",
        "",
        "Every figure below is exact (computed with fractions by `engine/math/`, shown rounded);",
        "`drr math --json` gives the exact fractions. `drr simulate` plays whole spins to check them.",
        "",
        "## How a wager returns",
        "",
        "One unit staked returns R (stake included), so the return to player (RTP) is E[R] and the",
        "house edge 1 - E[R]. An inside wager on n numbers wins with probability n/37; only the",
        "winning number matters:",
        "",
        f"- it is a Lucky Number with probability E[k]/37 (E[k] = {_num(k)} Lucky Numbers per spin),",
        f"  and pays X/n to 1 (E[X] = {_num(m.lucky.mean_odds)});",
        "- it is the Bonus Number with probability 1/37 whatever k is (the Bonus Number is uniform",
        "  over the 37 - k others), and pays B/n to 1 with B the player's bonus-game outcome;",
        "- otherwise it pays the base odds, returning W(n) = n (1 + base odds) per n units.",
        "",
        "So  37² x RTP(n) = E[k] (n + E[X]) + (n + E[B]) + (36 - E[k]) W(n).",
        f"On this paytable W(n) is {_same_w(m)} for every inside bet.",
        "",
        "A Lucky hit is worth the same X to every inside bet, but the stake that comes back on",
        "top grows with n: the six line gains 5 (E[k] + 1)/37² over the straight up. That is why",
        f"E[k] is held at {_num(k)} — with ten Lucky Numbers on every spin the six line would pay",
        "more than it takes. Outside wagers are plain single-zero roulette: 36/37 = 97.30%.",
        "",
        "Trios are 0-1-2 and 0-2-3, first four is 0-1-2-3; even money is red, black, odd, even,",
        "low or high. Every bet of a kind has the same figures: each number is equally likely to",
        "be the result, a Lucky Number or the Bonus Number.",
        "",
        "Payouts are taken unrounded; rounding down to the rounding step (§ 601a.2, `wagers.rounding`)",
        "takes less than one step per winning wager and depends on the amount staked.",
        "",
        "## The bonus game",
        "",
        "Round r has "
        + ", ".join(str(b) for b in MULTIPLIER_BOXES)
        + " multiplier boxes out of five (rounds 1-6);",
        'an "X" ends the game paying the round-1 multiplier, cash-out is offered from round 3 and',
        "pays the sum of the picks, surviving round 6 pays the sum. Its value depends on the player:",
        "",
        "- **optimal**: cash out exactly when the sum is worth at least going on (dynamic",
        "  programming over round, sum and round-1 multiplier);",
        "- **cash out at round 3**: an absent player (random picks in rounds 1-2, then the",
        "  cash-out default of § 617b.12(i)(2)(i));",
        "- **play to the end**: never cash out; the only way to the top prize, and what an absent",
        "  player who set the random-selection default of § 617b.12(i)(2)(ii) gets.",
        "",
        "The tables from round 3 are sized so that going on is worth about as much as cashing",
        "out at a typical sum, so the three players end up close together and every inside bet",
        "stays in its band whoever plays the bonus game.",
        "",
        *_bonus_rounds_table(r),
    ]
    lines += [
        "",
        "| strategy | E[B] (straight-up odds) | exact |",
        "| --- | --- | --- |",
    ]
    for s in STRATEGIES:
        lines.append(f"| {STRATEGY_TITLES[s]} | {float(bonus[s].mean):,.6f} | `{frac(bonus[s].mean)}` |")
    lines += [
        "",
        f"Largest outcome: {_num(r.max_bonus)} to 1 (the § 617b.12(l) maximum is 4,999 to 1).",
        "",
        "## Lucky Numbers",
        "",
        f"- how many (weight): {_weights(dict(r.lucky_counts))}",
        f"- straight-up odds X to 1 (weight): {_weights(dict(r.lucky_odds))}",
        "",
        "## Return to player",
        "",
        f"Straight up under optimal bonus play: **{percent(straight.rtp[Strategy.OPTIMAL], 4)}%**"
        " (target 97.30% ± 0.05%).",
        f"Every inside bet under every strategy: {percent(low, 4)}% to {percent(high, 4)}%"
        f" ({_band_note(r, low, high)}).",
        "",
        *_design_notes(m),
        "",
        "| bet | n | "
        + " | ".join(f"RTP {STRATEGY_TITLES[s]}" for s in STRATEGIES)
        + " | house edge (optimal) |",
        "| --- | --- | " + " | ".join("---" for _ in STRATEGIES) + " | --- |",
    ]
    for kind, w in m.wagers.items():
        cells = " | ".join(f"{percent(w.rtp[s], 4)}%" for s in STRATEGIES)
        lines.append(
            f"| {KIND_TITLES[kind]} | {w.numbers} | {cells} | {percent(w.house_edge(Strategy.OPTIMAL), 4)}% |"
        )
    lines += [
        "",
        "## Hits, Lucky and Bonus coverage, spread",
        "",
        "P(Lucky) and P(Bonus) are the chances that the bet's numbers include a Lucky Number /",
        "the Bonus Number on a spin; the standard deviation is of one unit's return (optimal play).",
        "",
        "| bet | hit frequency | P(Lucky) | P(Bonus) | standard deviation | largest payout (to 1) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for kind, w in m.wagers.items():
        lines.append(
            f"| {KIND_TITLES[kind]} | {percent(w.hit_frequency, 3)}% | {percent(w.p_lucky, 3)}% | "
            f"{percent(w.p_bonus, 3)}% | {sqrt_decimal(w.variance[Strategy.OPTIMAL], 4)} | "
            f"{_num(w.max_payout)} |"
        )
    lines += [
        "",
        "## Bonus outcomes under optimal play",
        "",
        f"{len(bonus[Strategy.OPTIMAL].distribution)} different outcomes; `drr math --json` lists the"
        " exact probability of each.",
        "",
        "| B (to 1) | probability | P(B or more) |",
        "| --- | --- | --- |",
    ]
    for band in outcome_bands(bonus[Strategy.OPTIMAL].distribution):
        lines.append(f"| {band.label} | {float(band.probability):.6g} | {float(band.at_least):.6g} |")
    lines += [
        "",
        "Optimal cash-out points (amount at risk = sum - round-1 multiplier, over reachable sums):",
        "",
        "| round | plays on up to | cashes out from |",
        "| --- | --- | --- |",
    ]
    for pol in m.optimal_policy:
        go = "-" if pol.continue_max_at_risk is None else _num(pol.continue_max_at_risk)
        stop = "-" if pol.cash_out_min_at_risk is None else _num(pol.cash_out_min_at_risk)
        lines.append(f"| {pol.round} | {go} | {stop} |")
    lines.append("")
    return "\n".join(lines)


# --- the PAR sheet (`drr math --report`, `drr certify`) ----------------------------------------


@dataclass(frozen=True)
class Interpretation:
    """A reading of the rules the engine relies on, with the code that implements it
    (`where` = "module:qualname", checked to exist by tests/certification/test_par_sheet.py)."""

    topic: str
    clause: str
    text: str
    where: tuple[str, ...]


INTERPRETATIONS: tuple[Interpretation, ...] = (
    Interpretation(
        "Base odds",
        "§ 617b.12(b), Chapter 617a, Rules Submission [payouts]",
        "A winning wager that is neither on a Lucky Number nor on the Bonus Number is paid the base"
        " odds the Rules Submission states for its kind; outside wagers always are.",
        ("engine.rules:RulesSubmission.base_payout", "engine.settlement:_winning_odds"),
    ),
    Interpretation(
        "Lucky Number payout per n-number wager",
        "§ 617b.12(f)",
        "An inside wager on n numbers that wins on a Lucky Number with straight-up odds X to 1 is"
        " paid X/n to 1.",
        ("engine.settlement:_winning_odds",),
    ),
    Interpretation(
        "Bonus payout per n-number wager",
        "§ 617b.12(g), (l)",
        "A player's bonus-game outcome B (straight-up odds, 29 to 4,999 to 1) pays each of that"
        " player's winning inside wagers on n numbers B/n to 1; outside wagers on the Bonus Number"
        " are paid their base odds.",
        ("engine.settlement:settle_round", "engine.settlement:check_bonus_outcome"),
    ),
    Interpretation(
        "Lucky and Bonus Numbers distinct",
        "§ 617b.12(c), (e)",
        "k Lucky Numbers (k weighted by the Rules Submission) are drawn distinct and uniform over"
        " 0-36, each with its own odds; the Bonus Number is then drawn uniform over the other 37 - k,"
        " so it is never a Lucky Number.",
        ("engine.rng:draw_lucky_and_bonus", "engine.rng:Draw"),
    ),
    Interpretation(
        "One bonus game per player",
        "§ 617b.12(g), (h)",
        "A player with one or more inside wagers covering the Bonus Number when it is the result plays"
        " one bonus game; its outcome pays all those wagers.",
        ("engine.settlement:players_needing_bonus", "engine.round:bonus_needed"),
    ),
    Interpretation(
        "An absent player",
        "§ 617b.12(i)",
        "When a round's timer runs out, a box is picked at random in rounds 1 and 2; from round 3 the"
        " player's preset applies: cash out (the default) or a random pick. The RTP columns"
        ' "cash out at round 3" and "play to the end" are those two absent players.',
        ("engine.bonus_game:BonusGame.tick", "engine.bonus_game:PRESETS"),
    ),
    Interpretation(
        "Rounding of payouts",
        "§ 601a.2, Rules Submission wagers.rounding",
        "Each payout is the stake times the odds, rounded down to the rounding step.",
        ("engine.settlement:payout_of",),
    ),
)


def _offered(yes: bool) -> str:
    return "offered" if yes else "not offered"


def par_sheet(m: GameMath, *, source: str, rules_sha256: str, software_digest: str) -> str:
    """The PAR sheet a test lab files, as Markdown (the PDF is this text laid out by gui/par_pdf.py).

    Every figure comes from `m`; `source` names the Rules Submission file, `software_digest` is
    engine.software_id's digest of the program that computed it."""
    r = m.rules
    low = min(w.rtp[s] for w in m.wagers.values() for s in STRATEGIES)
    high = max(w.rtp[s] for w in m.wagers.values() for s in STRATEGIES)
    lines = [
        f"# PAR sheet: {r.name}",
        "",
        "Diamond Rush Roulette (§ 617b.12), a single-zero wheel of 37 numbers.",
        "",
        "| identity | value |",
        "| --- | --- |",
        f"| Rules Submission | `{source}` |",
        f"| Rules Submission sha256 | `{rules_sha256}` |",
        f"| software digest (`drr audit software`) | `{software_digest}` |",
        "",
        "Every figure is computed exactly (fractions) by the engine (`engine/math/`) from the Rules"
        " Submission above and shown rounded; percentages to four decimals, as `drr math` prints them."
        " `drr math --json` gives the exact fractions.",
        "",
        "## Paytable",
        "",
        "| wager | numbers | base odds (to 1) |",
        "| --- | --- | --- |",
    ]
    for kind, w in m.wagers.items():
        lines.append(f"| {KIND_TITLES[kind]} | {w.numbers} | {_num(w.base_odds)} |")
    lim = r.limits
    lines += [
        "",
        f"Trios {_offered(r.trios)}, first four {_offered(r.first_four)};"
        f" betting unit {r.unit}, payouts rounded down to {r.rounding}.",
        "Limits: "
        + ", ".join(
            f"{key.replace('_', ' ')} {'none' if getattr(lim, key) is None else getattr(lim, key)}"
            for key in LIMIT_KEYS
        )
        + ".",
        "",
        "Lucky Numbers per spin (weight): " + _weights(dict(r.lucky_counts)) + ".",
        "",
        "Lucky Number straight-up odds X to 1 (weight): " + _weights(dict(r.lucky_odds)) + ".",
        "",
        f"Bonus game: six rounds, timer {r.bonus_timer_seconds} s per round.",
        "",
        *_bonus_rounds_table(r),
    ]
    lines += [
        "",
        "## Return to player and house edge",
        "",
        "One unit staked; RTP includes the returned stake. The bonus game's value depends on how it is"
        " played (optimal; an absent player who cashes out at round 3; one who plays to the end).",
        "",
        f"Every wager kind under every strategy: {percent(low, 4)}% to {percent(high, 4)}%"
        f" ({_band_note(r, low, high)}).",
        "",
        "| wager | n | "
        + " | ".join(f"RTP {STRATEGY_TITLES[s]}" for s in STRATEGIES)
        + " | "
        + " | ".join(f"house edge {STRATEGY_TITLES[s]}" for s in STRATEGIES)
        + " |",
        "| --- | --- | " + " | ".join("---" for _ in STRATEGIES) * 2 + " |",
    ]
    lines[-1] = "| --- | --- | " + " | ".join("---" for _ in range(2 * len(STRATEGIES))) + " |"
    for kind, w in m.wagers.items():
        rtps = " | ".join(f"{percent(w.rtp[s], 4)}%" for s in STRATEGIES)
        edges = " | ".join(f"{percent(w.house_edge(s), 4)}%" for s in STRATEGIES)
        lines.append(f"| {KIND_TITLES[kind]} | {w.numbers} | {rtps} | {edges} |")
    lines += [
        "",
        "## Hit frequency and volatility",
        "",
        "Hit frequency: the chance that a unit wager wins. P(Lucky) / P(Bonus): the chance that its"
        " numbers include a Lucky Number / the Bonus Number. Volatility: the standard deviation of one"
        " unit's return.",
        "",
        "| wager | hit frequency | P(Lucky) | P(Bonus) | "
        + " | ".join(f"std. dev. {STRATEGY_TITLES[s]}" for s in STRATEGIES)
        + " |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in STRATEGIES) + " |",
    ]
    for kind, w in m.wagers.items():
        sds = " | ".join(sqrt_decimal(w.variance[s], 4) for s in STRATEGIES)
        lines.append(
            f"| {KIND_TITLES[kind]} | {percent(w.hit_frequency, 4)}% | {percent(w.p_lucky, 4)}% | "
            f"{percent(w.p_bonus, 4)}% | {sds} |"
        )
    lines += [
        "",
        "## Largest payouts",
        "",
        f"Lucky Numbers: at most {_num(m.lucky.max_odds)} to 1 straight up; bonus game: at most"
        f" {_num(r.max_bonus)} to 1 straight up.",
        "",
        "| wager | largest payout (to 1) |",
        "| --- | --- |",
    ]
    for kind, w in m.wagers.items():
        lines.append(f"| {KIND_TITLES[kind]} | {_num(w.max_payout)} |")
    opt = m.bonus[Strategy.OPTIMAL]
    lines += [
        "",
        "## The bonus game",
        "",
        "| strategy | E[B] (straight-up odds) | largest outcome |",
        "| --- | --- | --- |",
    ]
    for s in STRATEGIES:
        lines.append(f"| {STRATEGY_TITLES[s]} | {float(m.bonus[s].mean):,.6f} | {_num(m.bonus[s].maximum)} |")
    lines += [
        "",
        f"Outcome distribution under optimal play ({len(opt.distribution)} different outcomes;"
        " `drr math --json` lists each exactly):",
        "",
        "| B (to 1) | probability | P(B or more) |",
        "| --- | --- | --- |",
    ]
    for band in outcome_bands(opt.distribution):
        lines.append(f"| {band.label} | {float(band.probability):.6g} | {float(band.at_least):.6g} |")
    lines += [
        "",
        "## Rule interpretations the engine relies on",
        "",
    ]
    for it in INTERPRETATIONS:
        where = ", ".join(f"`{w.replace(':', '.')}`" for w in it.where)
        lines.append(f"- **{it.topic}** ({it.clause}): {it.text} Implemented in {where}.")
    lines.append("")
    return "\n".join(lines)


def par_sheet_text(m: GameMath, rules_file: str | None) -> str:
    """The PAR sheet of `m` (Markdown): the Rules Submission named as given, the running program's digest
    (`drr math --report` and `drr certify`)."""
    source = rules_file or str(default_rules_path())
    return par_sheet(m, source=source, rules_sha256=m.rules.sha256, software_digest=running_digest())
