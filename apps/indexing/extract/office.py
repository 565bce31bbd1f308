"""Text of Office Open XML documents: Word (.docx), Excel (.xlsx) and PowerPoint (.pptx).

The caller has already checked the zip container (``zipguard``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .kinds import ExtractedText, FileKind
from .text import normalise_whitespace

if TYPE_CHECKING:
    from docx.table import Table
    from pptx.shapes.base import BaseShape


def extract_docx(path: Path) -> ExtractedText:
    """Paragraphs and tables of the body in document order (headers and footers left out)."""
    import docx
    from docx.text.paragraph import Paragraph

    document = docx.Document(str(path))
    blocks: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            blocks.append(block.text)
        else:
            blocks.append(_docx_table_text(block))
    title = document.core_properties.title or None
    return ExtractedText(normalise_whitespace("\n\n".join(blocks)), FileKind.DOCX, title=title)


def _docx_table_text(table: Table) -> str:
    rows = []
    for row in table.rows:
        # A merged cell is returned once per grid column it spans.
        cells = _without_repeats(cell.text.strip() for cell in row.cells)
        rows.append("\t".join(cells))
    return "\n".join(rows)


def extract_xlsx(path: Path) -> ExtractedText:
    """Each sheet as a ``## name`` line then its rows, cells tab-separated, values as
    last computed (not formulas)."""
    import openpyxl

    with warnings.catch_warnings():
        # openpyxl warns about workbook features it ignores (data validation, …).
        warnings.simplefilter("ignore")
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        sheets = []
        for sheet in workbook.worksheets:
            lines = [f"## {sheet.title}"]
            for row in sheet.iter_rows(values_only=True):
                cells = ["" if value is None else str(value).strip() for value in row]
                while cells and not cells[-1]:
                    cells.pop()
                if cells:
                    lines.append("\t".join(cells))
            sheets.append("\n".join(lines))
        title = workbook.properties.title or None
    finally:
        workbook.close()
    return ExtractedText(normalise_whitespace("\n\n".join(sheets)), FileKind.XLSX, title=title)


def extract_pptx(path: Path) -> ExtractedText:
    """Each slide as ``Slide N`` then the text of its shapes and tables, then its notes."""
    from pptx import Presentation

    presentation = Presentation(str(path))
    slides = []
    for number, slide in enumerate(presentation.slides, start=1):
        parts = [f"Slide {number}"]
        parts.extend(_shapes_text(slide.shapes))
        if slide.has_notes_slide:
            notes_frame = slide.notes_slide.notes_text_frame
            if notes_frame is not None and notes_frame.text.strip():
                parts.append(f"Notes: {notes_frame.text}")
        slides.append("\n".join(parts))
    title = presentation.core_properties.title or None
    return ExtractedText(
        normalise_whitespace("\n\n".join(slides)),
        FileKind.PPTX,
        title=title,
        page_count=len(slides),
    )


def _shapes_text(shapes: Iterable[BaseShape]) -> Iterator[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes_text(shape.shapes)  # type: ignore[attr-defined]
        elif shape.has_text_frame:
            text = shape.text_frame.text  # type: ignore[attr-defined]
            if text.strip():
                yield text
        elif getattr(shape, "has_table", False):
            for row in shape.table.rows:  # type: ignore[attr-defined]
                cells = _without_repeats(cell.text.strip() for cell in row.cells)
                yield "\t".join(cells)


def _without_repeats(cells: Iterable[str]) -> list[str]:
    kept: list[str] = []
    for cell in cells:
        if not kept or cell != kept[-1] or not cell:
            kept.append(cell)
    return kept
