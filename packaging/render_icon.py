"""Render resources/icons/drr.svg to the PNG (Linux .desktop, README) and ICO (Windows) beside it.

Run after changing the SVG: `QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icon.py`.
Qt's own SVG renderer and image writers, so no extra tool is needed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def render(svg: Path, size: int) -> QImage:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841 - Qt's image writers need an application
    svg = ICONS / "drr.svg"
    for name, size, fmt in (("drr.png", 256, "PNG"), ("drr.ico", 256, "ICO")):
        if not render(svg, size).save(str(ICONS / name), fmt):  # type: ignore[call-overload]  # the stubs say bytes, PySide6 wants str
            raise SystemExit(f"could not write {ICONS / name}")
        print(ICONS / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
