"""Text extraction from every supported kind, and the failures a folder of real files has."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from apps.indexing.extract import (
    BinaryContent,
    CorruptFile,
    DecompressionBomb,
    ExtractionError,
    FileKind,
    FileTooLarge,
    NoTextLayer,
    UnsupportedFileType,
    detect_kind,
    extract_text,
    zipguard,
)
from tests.indexing import samples


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("notes.txt", FileKind.TEXT),
        ("README.md", FileKind.MARKDOWN),
        ("data.JSON", FileKind.JSON),
        ("table.csv", FileKind.CSV),
        ("main.py", FileKind.CODE),
        ("component.tsx", FileKind.CODE),
        ("Dockerfile", FileKind.CODE),
        ("page.html", FileKind.HTML),
        ("paper.pdf", FileKind.PDF),
        ("letter.docx", FileKind.DOCX),
        ("budget.xlsx", FileKind.XLSX),
        ("deck.pptx", FileKind.PPTX),
        ("mail.eml", FileKind.EML),
        ("book.epub", FileKind.EPUB),
    ],
)
def test_kind_is_detected_from_the_extension(tmp_path: Path, name: str, kind: FileKind) -> None:
    assert detect_kind(tmp_path / name) is kind


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("song.mp3", "audio files are not indexed (.mp3)"),
        ("clip.MOV", "video files are not indexed (.mov)"),
        ("photos.zip", "archive files are not indexed (.zip)"),
        ("setup.exe", "executable or binary files are not indexed (.exe)"),
        ("scan.png", "image files are not indexed (.png)"),
        ("old.doc", "legacy or unsupported document files are not indexed (.doc)"),
        ("thing.xyz", "unknown file type (.xyz)"),
    ],
)
def test_unsupported_kinds_are_skipped_with_the_reason(
    tmp_path: Path, name: str, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(b"\x00\x01 not really media")

    with pytest.raises(UnsupportedFileType) as caught:
        extract_text(path)

    assert caught.value.reason == reason
    assert caught.value.skipped


def test_plain_text_kinds_keep_the_text_as_written(tmp_path: Path) -> None:
    cases = {
        "notes.txt": "Plain notes\r\nwith Windows line ends.\n",
        "README.md": "# Title\n\nSome *markdown* here.\n",
        "data.json": json.dumps({"favourite": "blue", "count": 3}),
        "table.csv": "name,colour\nAlice,blue\n",
        "main.py": "def greet(name: str) -> str:\n    return f'hi {name}'\n",
    }
    for name, content in cases.items():
        (tmp_path / name).write_text(content, encoding="utf-8", newline="")

    texts = {name: extract_text(tmp_path / name).text for name in cases}

    assert texts["notes.txt"] == "Plain notes\nwith Windows line ends.\n"
    assert texts["README.md"] == cases["README.md"]
    assert json.loads(texts["data.json"]) == {"favourite": "blue", "count": 3}
    assert "Alice,blue" in texts["table.csv"]
    assert "return f'hi {name}'" in texts["main.py"]
    assert extract_text(tmp_path / "main.py").kind is FileKind.CODE


def test_legacy_encodings_and_byte_order_marks_are_decoded(tmp_path: Path) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Café crème, façade, naïve — 5 €".encode("cp1252"))
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes("Grüße aus Köln".encode("utf-16"))

    assert extract_text(latin).text == "Café crème, façade, naïve — 5 €"
    assert extract_text(utf16).text == "Grüße aus Köln"


def test_binary_content_with_a_text_extension_is_reported(tmp_path: Path) -> None:
    with_nul_bytes = tmp_path / "dump.txt"
    with_nul_bytes.write_bytes(os.urandom(4096) + b"\x00")
    control_noise = tmp_path / "noise.md"
    control_noise.write_bytes(bytes(range(1, 32)) * 200)

    with pytest.raises(BinaryContent, match="NUL bytes") as caught:
        extract_text(with_nul_bytes)
    with pytest.raises(BinaryContent, match="control bytes"):
        extract_text(control_noise)
    assert caught.value.skipped
    assert caught.value.code == "binary_content"


def test_files_without_extension_are_sniffed(tmp_path: Path) -> None:
    readme = tmp_path / "README"
    readme.write_text("Just text, no extension.\n")
    blob = tmp_path / "blob"
    blob.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(100))
    pdf = samples.write_pdf(tmp_path / "paper", [["Sniffed PDF"]])

    assert extract_text(readme).text == "Just text, no extension.\n"
    assert extract_text(pdf).text == "Sniffed PDF"
    with pytest.raises(UnsupportedFileType, match="executable or binary"):
        extract_text(blob)


def test_empty_files_give_empty_text(tmp_path: Path) -> None:
    for name in ("empty.txt", "empty.pdf", "empty.docx"):
        (tmp_path / name).touch()

        assert extract_text(tmp_path / name).text == ""


def test_files_over_the_size_limit_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("x" * 2048)

    with pytest.raises(FileTooLarge, match=r"over the 1\.0 KB limit") as caught:
        extract_text(path, max_bytes=1024)
    assert caught.value.skipped
    assert extract_text(path, max_bytes=4096).text == "x" * 2048


def test_html_keeps_visible_text_only(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Trip  notes</title><style>body{color:red}</style>"
        "<script>var secret = 'do not index';</script></head><body>"
        "<h1>Lisbon</h1><p>We went in <b>May</b> &amp; loved it.</p>"
        "<ul><li>Tram 28</li><li>Pastéis</li></ul><noscript>enable js</noscript>"
        "<table><tr><td>day</td><td>cost</td></tr></table></body></html>"
    )

    extracted = extract_text(path)

    assert extracted.title == "Trip notes"
    assert "Lisbon\n" in extracted.text
    assert "We went in May & loved it." in extracted.text
    assert "Tram 28\nPastéis" in extracted.text
    assert "day\tcost" in extracted.text
    for hidden in ("secret", "color:red", "enable js", "<"):
        assert hidden not in extracted.text


def test_pdf_text_layer_is_extracted_page_by_page(tmp_path: Path) -> None:
    path = samples.write_pdf(
        tmp_path / "report.pdf",
        [["Quarterly report", "Revenue grew (a lot)."], ["Second page: outlook"]],
    )

    extracted = extract_text(path)

    assert extracted.kind is FileKind.PDF
    assert extracted.page_count == 2
    assert "Quarterly report" in extracted.text
    assert "Revenue grew (a lot)." in extracted.text
    assert extracted.text.index("Revenue") < extracted.text.index("Second page: outlook")


def test_scanned_pdf_without_text_layer_is_reported_as_such(tmp_path: Path) -> None:
    path = samples.write_scanned_pdf(tmp_path / "scan.pdf", page_count=3)

    with pytest.raises(NoTextLayer, match="3 page\\(s\\) carry no text layer") as caught:
        extract_text(path)
    assert caught.value.code == "no_text_layer"


def test_corrupt_pdf_is_a_readable_failure(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage without xref")

    with pytest.raises(CorruptFile, match="not a readable PDF") as caught:
        extract_text(path)
    assert not caught.value.skipped


def test_docx_paragraphs_and_tables_in_order(tmp_path: Path) -> None:
    path = samples.write_docx(
        tmp_path / "letter.docx",
        ["Dear Bob,", "The budget review is on Friday."],
        table=[["item", "cost"], ["venue", "300"]],
    )

    extracted = extract_text(path)

    assert extracted.title == "Sample document"
    assert extracted.text.startswith("Dear Bob,\n\nThe budget review is on Friday.")
    assert "item\tcost\nvenue\t300" in extracted.text


def test_xlsx_sheets_and_rows(tmp_path: Path) -> None:
    path = samples.write_xlsx(
        tmp_path / "budget.xlsx",
        {"Costs": [["item", "amount"], ["venue", 300], ["food", 120.5]], "Notes": [["ok"]]},
    )

    text = extract_text(path).text

    assert "## Costs\nitem\tamount\nvenue\t300\nfood\t120.5" in text
    assert "## Notes\nok" in text


def test_pptx_slides_tables_and_notes(tmp_path: Path) -> None:
    path = samples.write_pptx(
        tmp_path / "deck.pptx",
        [("Kickoff", "Goals for Q3", "Mention the hiring plan"), ("Timeline", "Ship in May", "")],
    )

    extracted = extract_text(path)

    assert extracted.page_count == 2
    assert "Slide 1\nKickoff\nGoals for Q3" in extracted.text
    assert "Kickoff cell A\tKickoff cell B" in extracted.text
    assert "Notes: Mention the hiring plan" in extracted.text
    assert extracted.text.index("Kickoff") < extracted.text.index("Slide 2\nTimeline")


def test_eml_headers_and_plain_body_without_attachments(tmp_path: Path) -> None:
    path = samples.write_eml(
        tmp_path / "mail.eml",
        subject="Dinner on Friday?",
        plain="Shall we meet at Rosa's at 8?\n",
        html="<p>Shall we meet at <b>Rosa's</b> at 8?</p>",
    )

    extracted = extract_text(path)

    assert extracted.title == "Dinner on Friday?"
    assert "From: Alice Example <alice@example.com>" in extracted.text
    assert "Subject: Dinner on Friday?" in extracted.text
    assert extracted.text.count("Shall we meet at Rosa's at 8?") == 1
    assert "secret attachment" not in extracted.text


def test_epub_chapters_follow_the_spine(tmp_path: Path) -> None:
    path = samples.write_epub(
        tmp_path / "book.epub",
        [("one.xhtml", "It was a bright cold day."), ("two.xhtml", "The clocks struck thirteen.")],
        title="Sample Book",
    )

    extracted = extract_text(path)

    assert extracted.title == "Sample Book"
    assert extracted.text == "It was a bright cold day.\n\nThe clocks struck thirteen."


def test_zip_bomb_docx_is_refused_before_opening(tmp_path: Path) -> None:
    path = samples.write_zip_bomb(tmp_path / "bomb.docx", size=20 * 1024 * 1024)

    with pytest.raises(DecompressionBomb, match="decompression bomb") as caught:
        extract_text(path)
    assert isinstance(caught.value, CorruptFile)


@pytest.mark.parametrize("name", ["huge.xlsx", "huge.epub", "huge.pptx"])
def test_zip_containers_over_the_unpacked_limit_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(zipguard, "MAX_UNCOMPRESSED_BYTES", 1024 * 1024)
    path = samples.write_zip_bomb(tmp_path / name, member="xl/sheet1.xml", size=2 * 1024 * 1024)

    with pytest.raises(DecompressionBomb, match=r"would unpack to 2\.0 MB, over the 1\.0 MB limit"):
        extract_text(path)


@pytest.mark.parametrize("name", ["fake.docx", "fake.xlsx", "fake.pptx", "fake.epub"])
def test_zip_documents_that_are_not_zips_are_corrupt(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("this is not a zip container")

    with pytest.raises(CorruptFile, match="zip container is unreadable"):
        extract_text(path)


def test_zip_with_the_wrong_insides_is_corrupt(tmp_path: Path) -> None:
    path = samples.write_zip_bomb(tmp_path / "odd.docx", member="hello.txt", size=10)

    with pytest.raises(CorruptFile, match="not a readable docx file"):
        extract_text(path)


def test_every_error_has_a_code_and_a_readable_reason(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"nonsense")

    with pytest.raises(ExtractionError) as caught:
        extract_text(path)

    assert caught.value.code == "corrupt"
    assert str(caught.value) == caught.value.reason
    assert "Traceback" not in caught.value.reason


def test_zip_with_bogus_offsets_is_corrupt_not_an_os_error(tmp_path: Path) -> None:
    # Moving the central directory's recorded offset makes zipfile seek to a negative
    # position, which surfaces as OSError(EINVAL) deep inside python-pptx.
    path = samples.write_pptx(tmp_path / "deck.pptx", [("Title", "Body", "")])
    data = bytearray(path.read_bytes())
    end_record = data.rindex(b"PK\x05\x06")
    offset = int.from_bytes(data[end_record + 16 : end_record + 20], "little")
    data[end_record + 16 : end_record + 20] = (offset + 100_000).to_bytes(4, "little")
    path.write_bytes(bytes(data))

    with pytest.raises(CorruptFile, match="not a readable pptx file"):
        extract_text(path)


def test_a_file_that_vanished_is_not_an_extraction_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        extract_text(tmp_path / "gone.txt")
