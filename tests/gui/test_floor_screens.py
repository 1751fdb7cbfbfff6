"""`drr screenshots` pictures of the floor stations: four PNGs, each a real, non-blank frame."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication


def test_floor_screenshots(tmp_path: Path, qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    from gui.floor import screens

    # A smaller demo floor than the documentation's: the same views, a fraction of the rounds.
    monkeypatch.setattr(screens, "DEMO_TABLES", {"T1": 120, "T2": 80, "T3": 60})
    paths = screens.floor_shots(qapp, tmp_path)
    assert [p.name for p in paths] == [
        "surveillance-table.png",
        "surveillance-wall.png",
        "pitboss-recall-bonus.png",
        "pitboss-report.png",
    ]
    for path in paths:
        image = QImage(str(path))
        assert image.width() >= 1600 and image.height() >= 1000
        colours = {
            image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)
        }
        assert len(colours) > 20
