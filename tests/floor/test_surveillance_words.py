"""Issue 25 points 5 and 6 at surveillance: a bias alert was raised at 40 spins while the same page
said "too few spins to judge: 40 of the 185"; and the words were an engineer's ("beyond the
Bonferroni limit", "ball_not_detected: no-ball-flag", "with a round closed")."""

from __future__ import annotations

from pathlib import Path

from engine.floor import windows as win
from engine.floor.alerts import AlertScanner, _hold_words
from engine.floor.power import verdict
from engine.floor.surveillance import table_view
from engine.store import Store
from engine.store.stats import CHI_NEEDS
from engine.table_events import Irregularity
from tests.floor.helpers import import_spins, store, store_url  # noqa: F401 - fixtures

ENGINEER = ("Bonferroni", "z-score", "power", "_", "no-ball-flag")


def test_no_bias_alert_below_the_sample_the_page_says_is_needed(store: Store, tmp_path: Path) -> None:  # noqa: F811
    spins = [5] * 12 + [n % 37 for n in range(28)]  # 40 spins, 5 far too often
    import_spins(store, tmp_path, "T7", spins)
    view = table_view(store, "T7", win.everything())
    assert view.stats["spins"] == 40 < CHI_NEEDS and view.stats["z_scores"]["flagged"] == [5]
    assert "too few spins to judge: 40 of the 185" in view.verdict
    assert [a for a in AlertScanner().check_view(store, view) if a.kind == "bias"] == []


def test_a_bias_alert_at_a_sample_big_enough_speaks_plainly(store: Store, tmp_path: Path) -> None:  # noqa: F811
    """Since issue 27 the page's fixed-sample figures raise no alert (the page says them in words); the
    table's sequential test journals the alarm in the import itself (engine.store.history.import_csv,
    whatever called it) and the scan raises it, in words too."""
    spins = [17] * 60 + [n % 37 for n in range(370)]
    import_spins(store, tmp_path, "T8", spins)
    view = table_view(store, "T8", win.everything())
    assert [a for a in AlertScanner().check_view(store, view) if a.kind == "bias"] == []
    assert "number 17 comes up far too often" in verdict(view.stats)
    raised = [a for a in AlertScanner().scan(store, ["T8"]) if a.kind == "bias"]
    words = [a.message for a in raised if "pocket 17:" in a.message]
    assert words and "where a fair wheel gives" in words[0], [a.message for a in raised]
    assert not any(w in words[0] for w in ENGINEER), words[0]


def test_a_hold_is_told_in_words() -> None:
    told = _hold_words(Irregularity("ball_not_detected", "no-ball-flag", 12, None))
    assert told == "the sensor did not detect the ball (the wheel signalled no ball for 5 seconds)"
    assert not any(w in told for w in ENGINEER)
