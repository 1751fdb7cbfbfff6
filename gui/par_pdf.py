"""The PAR sheet as a PDF: engine.math.report's Markdown laid out by Qt (QTextDocument on QPdfWriter).

engine/ imports no Qt, so the PDF is written here; `register` plugs `write_pdf` into
`drr math --report FILE.pdf` and `drr certify` (engine.cli.math_cmd.PDF_WRITERS), the way the
other commands that need Qt come from gui/ (gui/cli.py COMMAND_MODULES).
"""

from __future__ import annotations

import argparse
from pathlib import Path

TITLE = "Diamond Rush Roulette PAR sheet"


def _application() -> None:
    """An application object for fonts and layout (offscreen when there is no display). A
    QApplication, not a bare QGuiApplication: in the same process (the test suite, a station)
    widgets may come later, and Qt aborts on a widget without a QApplication."""
    from gui.app import offscreen_if_headless

    offscreen_if_headless()
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        QApplication([])


def write_pdf(markdown_text: str, path: Path, title: str = TITLE) -> Path:
    """Lay the Markdown out on A4 pages (tables as tables) and write the PDF to `path`."""
    _application()
    from PySide6.QtCore import QMarginsF
    from PySide6.QtGui import QFont, QPageLayout, QPageSize, QPdfWriter, QTextDocument

    writer = QPdfWriter(str(path))
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4),
            QPageLayout.Orientation.Portrait,
            QMarginsF(12, 12, 12, 12),
        )
    )
    writer.setTitle(title)
    writer.setCreator("drr math --report")
    doc = QTextDocument()
    font = QFont("Sans Serif")
    font.setPointSizeF(7.5)  # eight-column RTP table on a portrait A4 page
    doc.setDefaultFont(font)
    doc.setDefaultStyleSheet("table { border-collapse: collapse; } td, th { padding: 2px; }")
    doc.setMarkdown(markdown_text)
    # Tables in Markdown get no borders in Qt: give each a thin grid so the sheet reads as one.
    from PySide6.QtGui import QColor, QTextFrame, QTextFrameFormat, QTextTable

    def borders(frame: QTextFrame) -> None:
        for child in frame.childFrames():
            if isinstance(child, QTextTable):
                fmt = child.format()
                fmt.setBorder(1)
                fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
                fmt.setBorderBrush(QColor("#808080"))
                fmt.setBorderCollapse(True)
                fmt.setCellPadding(2)
                fmt.setCellSpacing(0)
                child.setFormat(fmt)
            borders(child)

    borders(doc.rootFrame())
    doc.print_(writer)  # paginates a copy at the writer's page size and resolution
    return path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """No command of its own: gives `drr math --report` and `drr certify` their PDF writer."""
    from engine.cli.math_cmd import PDF_WRITERS

    PDF_WRITERS.append(write_pdf)
