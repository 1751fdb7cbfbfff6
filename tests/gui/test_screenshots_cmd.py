"""`drr screenshots DIR` writes one PNG per station view, rendered offscreen."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from gui import cli, demo

# The README's pictures show 60 rounds of history (gui.demo.demo_table's default): this test checks
# that every view is written and drawn, which a few rounds show as well, at a fraction of the time.
HISTORY = 6


def test_screenshots_are_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], qapp: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The floor stations' pictures are tested with those stations (they build a large demo floor).
    monkeypatch.setattr("gui.floor.screens.floor_shots", lambda app, out_dir: [])
    demo_table = demo.demo_table
    monkeypatch.setattr(
        demo, "demo_table", lambda directory, seed=2026, history=60: demo_table(directory, seed, HISTORY)
    )
    assert cli.main(["screenshots", str(tmp_path / "shots")]) == 0
    written = capsys.readouterr().out.split()
    names = {Path(p).name for p in written}
    # The table stations' views (the floor stations add their own pictures to the same folder).
    assert {
        "bonus-game.png",
        "croupier-lucky-numbers.png",
        "croupier-lucky-win.png",
        "player-display.png",
    } <= names
    for p in written:
        image = QImage(p)
        assert image.width() >= 1000 and image.height() >= 600
        # Not a blank frame: many distinct colours.
        colours = {
            image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)
        }
        assert len(colours) > 20
