"""The game math's gate on a Rules Submission: refused at a return to player of 100% or more.

`engine.rules` reads and validates a file's structure (§ 617b.12); this module, above both it and
the exact math, adds the return-to-player refusal and the `[math]` band's warnings. It is the gate
of `drr rules check`, `drr math`, `drr simulate`, `drr rng`, `drr certify` and the pit boss's
Rules Submission (engine.floor.actions).
"""

from __future__ import annotations

from pathlib import Path

from engine.bets import KIND
from engine.errors import RulesError
from engine.math.bonus_value import STRATEGIES
from engine.math.report import STRATEGY_TITLES
from engine.math.wager_math import KIND_TITLES, game_math, percent
from engine.rules import RTP_CLAUSE, RulesSubmission, Violation, default_rules_path, load_rules

_MATH_CACHE: dict[str, tuple[list[Violation], list[str]]] = {}


def math_check(rules: RulesSubmission) -> tuple[list[Violation], list[str]]:
    """(refusals, warnings) from the exact game math (engine.math.wager_math): a wager kind returning 100%
    or more under any bonus strategy is refused; one outside [math] rtp_min..rtp_max is warned of.
    Cached by the Rules Submission's sha256 (the math takes about half a second)."""
    cached = _MATH_CACHE.get(rules.sha256)
    if cached is not None and rules.sha256:
        return cached
    m = game_math(rules)
    refusals: list[Violation] = []
    warnings: list[str] = []
    band = f"{percent(rules.rtp_min, 2)}% to {percent(rules.rtp_max, 2)}%"
    for kind, w in m.wagers.items():
        key = f"payouts.{KIND[w.bet.kind].payout_key}"
        worst = max(STRATEGIES, key=lambda s: w.rtp[s])
        best = min(STRATEGIES, key=lambda s: w.rtp[s])
        if w.rtp[worst] >= 1:
            refusals.append(
                Violation(
                    key,
                    RTP_CLAUSE,
                    f"{KIND_TITLES[kind]} returns {percent(w.rtp[worst], 4)}% to the player with bonus "
                    f"games played {STRATEGY_TITLES[worst]}: 100% or more, the house would lose",
                )
            )
        elif w.rtp[worst] > rules.rtp_max or w.rtp[best] < rules.rtp_min:
            low, high = percent(w.rtp[best], 4), percent(w.rtp[worst], 4)
            warnings.append(
                f"{key}: warning: {KIND_TITLES[kind]} returns {low}% to {high}% across bonus strategies, "
                f"outside the expected {band} (math.rtp_min / math.rtp_max)"
            )
    result = (refusals, warnings)
    if rules.sha256:
        if len(_MATH_CACHE) > 64:
            _MATH_CACHE.clear()
        _MATH_CACHE[rules.sha256] = result
    return result


def refuse_bad_math(rules: RulesSubmission, source: str = "<rules>") -> RulesSubmission:
    """`rules` itself, or RulesError when `math_check` refuses it (return to player >= 100%)."""
    refusals, _ = math_check(rules)
    if refusals:
        lines = [str(v) for v in refusals]
        raise RulesError(
            f"{source}: {len(lines)} violation(s) of the house advantage:\n  " + "\n  ".join(lines),
            violations=lines,
        )
    return rules


def check_rules_file(path: str | Path) -> tuple[RulesSubmission | None, list[str]]:
    """(rules, []) when valid and returning under 100% (`math_check`), (None, messages)
    otherwise: never raises for a bad file."""
    try:
        return refuse_bad_math(load_rules(path), source=str(path)), []
    except RulesError as exc:
        return None, exc.violations or [exc.message]


def load_rules_or_refuse(path: str | None) -> RulesSubmission:
    """The Rules Submission at `path` (default: shipped), or RulesError with `drr rules check`'s lines."""
    file = path or str(default_rules_path())
    rules, problems = check_rules_file(file)
    if rules is None:
        message = f"{file}: {len(problems)} problem(s); the Rules Submission is NOT valid:\n  " + "\n  ".join(
            problems
        )
        raise RulesError(message, violations=problems)
    return rules
