"""Small sample files of every supported kind, written at test time (nothing is shipped).

Each ``write_*`` function writes one file to ``path`` and returns ``path``; the words they
are given end up in the file's text, so tests can look for them.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path


def write_pdf(path: Path, pages: Sequence[Sequence[str]]) -> Path:
    """A PDF with a real text layer: one page per entry, one line of Helvetica per string."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in once the page objects are numbered
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    kids = []
    for lines in pages:
        shown = " ".join(f"({_pdf_string(line)}) Tj T*" for line in lines)
        content = f"BT /F1 12 Tf 16 TL 72 720 Td {shown}"
        stream = (content + " ET").encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content_number = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content_number
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))

    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))
    return path


def _pdf_string(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def write_scanned_pdf(path: Path, page_count: int = 2) -> Path:
    """A PDF whose pages have no text at all, as a scanner produces (minus the image)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument.new()
    for _ in range(page_count):
        document.new_page(612, 792)
    document.save(path)
    document.close()
    return path


def write_docx(path: Path, paragraphs: Sequence[str], table: Sequence[Sequence[str]] = ()) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = "Sample document"
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for row, values in zip(grid.rows, table, strict=True):
            for cell, value in zip(row.cells, values, strict=True):
                cell.text = value
    document.save(str(path))
    return path


def write_xlsx(path: Path, sheets: dict[str, Sequence[Sequence[object]]]) -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for title, rows in sheets.items():
        sheet = workbook.create_sheet(title)
        for row in rows:
            sheet.append(list(row))
    workbook.save(path)
    return path


def write_pptx(path: Path, slides: Sequence[tuple[str, str, str]]) -> Path:
    """One slide per ``(title, body, notes)``."""
    from pptx import Presentation
    from pptx.util import Inches

    presentation = Presentation()
    layout = presentation.slide_layouts[1]  # title and content
    for title, body, notes in slides:
        slide = presentation.slides.add_slide(layout)
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        table = slide.shapes.add_table(1, 2, Inches(1), Inches(5), Inches(4), Inches(1)).table
        table.cell(0, 0).text = f"{title} cell A"
        table.cell(0, 1).text = f"{title} cell B"
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    presentation.save(str(path))
    return path


def write_eml(path: Path, *, subject: str, plain: str, html: str) -> Path:
    message = EmailMessage()
    message["From"] = "Alice Example <alice@example.com>"
    message["To"] = "bob@example.com"
    message["Date"] = "Fri, 02 May 2025 10:00:00 +0000"
    message["Subject"] = subject
    message.set_content(plain)
    message.add_alternative(html, subtype="html")
    message.add_attachment(b"secret attachment bytes", maintype="application",
                           subtype="octet-stream", filename="data.bin")  # fmt: skip
    path.write_bytes(message.as_bytes())
    return path


def write_epub(path: Path, chapters: Sequence[tuple[str, str]], title: str = "A Book") -> Path:
    """An EPUB 3 whose spine lists ``chapters`` (``(file name, body text)``) in order; the
    manifest lists them in reverse, so reading order must come from the spine."""
    manifest = "\n".join(
        f'<item id="c{i}" href="text/{name}" media-type="application/xhtml+xml"/>'
        for i, (name, _) in reversed(list(enumerate(chapters)))
    )
    spine = "\n".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    package = f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">sample</dc:identifier><dc:title>{title}</dc:title>
  </metadata>
  <manifest>
    <item id="css" href="style.css" media-type="text/css"/>
    {manifest}
  </manifest>
  <spine>{spine}</spine>
</package>"""
    container = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>"""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", container)
        archive.writestr("OEBPS/content.opf", package)
        archive.writestr("OEBPS/style.css", "p { color: red; }")
        for name, body in chapters:
            archive.writestr(
                f"OEBPS/text/{name}",
                '<?xml version="1.0" encoding="utf-8"?>\n'
                '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title>'
                f"<style>p {{ margin: 0 }}</style></head><body><p>{body}</p></body></html>",
            )
    return path


def write_zip_bomb(path: Path, *, member: str = "word/document.xml", size: int) -> Path:
    """A zip container whose one member is ``size`` zero bytes, compressed about 1000:1."""
    chunk = b"\0" * (1024 * 1024)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open(member, "w") as handle:
            remaining = size
            while remaining > 0:
                handle.write(chunk[: min(remaining, len(chunk))])
                remaining -= len(chunk)
    return path
