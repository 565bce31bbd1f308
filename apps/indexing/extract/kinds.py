"""Which kind of file a path is (by its extension, or without one by its first bytes), and
what extracting its text yields."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from .errors import UnsupportedFileType
from .text import looks_like_text


class FileKind(StrEnum):
    TEXT = "txt"
    MARKDOWN = "md"
    JSON = "json"
    CSV = "csv"
    CODE = "code"
    HTML = "html"
    PDF = "pdf"
    DOCX = "docx"
    XLSX = "xlsx"
    PPTX = "pptx"
    EML = "eml"
    EPUB = "epub"


@dataclass(frozen=True)
class ExtractedText:
    """The text of one file. ``title`` is the document's own (HTML title, e-mail subject,
    document properties) where it has one; ``page_count`` counts PDF pages or slides;
    ``written_at`` is when the file says it was written (``dates``), if it says."""

    text: str
    kind: FileKind
    title: str | None = None
    page_count: int | None = None
    written_at: datetime | None = None


PLAIN_KINDS = frozenset(
    {FileKind.TEXT, FileKind.MARKDOWN, FileKind.JSON, FileKind.CSV, FileKind.CODE}
)


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_CODE_EXTENSIONS = _words(
    """
    .py .pyi .js .mjs .cjs .jsx .ts .tsx .vue .svelte .java .kt .kts .scala .groovy .gradle
    .c .h .cc .cpp .cxx .hpp .hh .cs .fs .go .rs .rb .php .swift .m .mm .dart .lua .pl .pm
    .r .jl .ex .exs .erl .hrl .hs .ml .mli .clj .cljs .elm .zig .nim .sh .bash .zsh .fish
    .ps1 .bat .cmd .sql .graphql .gql .proto .tf .hcl .css .scss .sass .less .xml .xsd .xsl
    .yaml .yml .toml .ini .cfg .conf .properties .mk .cmake .dockerfile .vim .el
    """
)

_BY_EXTENSION: dict[str, FileKind] = {
    **dict.fromkeys(_words(".txt .text .log .rst .tex .org .adoc"), FileKind.TEXT),
    **dict.fromkeys(_words(".md .markdown .mdx"), FileKind.MARKDOWN),
    **dict.fromkeys(_words(".json .jsonl .ndjson .geojson"), FileKind.JSON),
    **dict.fromkeys(_words(".csv .tsv"), FileKind.CSV),
    **dict.fromkeys(_words(".html .htm .xhtml"), FileKind.HTML),
    **dict.fromkeys(_CODE_EXTENSIONS, FileKind.CODE),
    ".pdf": FileKind.PDF,
    ".docx": FileKind.DOCX,
    ".xlsx": FileKind.XLSX,
    ".xlsm": FileKind.XLSX,
    ".pptx": FileKind.PPTX,
    ".eml": FileKind.EML,
    ".epub": FileKind.EPUB,
}

_CODE_FILE_NAMES = frozenset(
    _words(
        """makefile dockerfile containerfile jenkinsfile procfile gemfile rakefile vagrantfile
        cmakelists.txt .gitignore .dockerignore .editorconfig"""
    )
)

_UNSUPPORTED: dict[str, str] = {
    "audio": ".mp3 .wav .flac .ogg .oga .m4a .aac .wma .opus .aiff .aif .mid .midi .amr",
    "video": ".mp4 .m4v .mov .avi .mkv .webm .wmv .flv .mpeg .mpg .3gp .ogv",
    "image": """.png .jpg .jpeg .gif .bmp .tif .tiff .webp .heic .heif .svg .ico .psd .raw
        .cr2 .nef .avif""",
    "archive": """.zip .rar .7z .tar .gz .tgz .bz2 .xz .zst .lz .lzma .cab .iso .dmg .img
        .jar .war .apk .deb .rpm .whl""",
    "executable or binary": """.exe .dll .so .dylib .bin .o .a .obj .lib .class .pyc .pyo
        .msi .wasm .elf .sys .com""",
    "font": ".ttf .otf .woff .woff2 .eot",
    "database or data": """.sqlite .sqlite3 .db .mdb .accdb .parquet .feather .npy .npz .pkl
        .pickle .h5 .hdf5""",
    # Formats no small offline library reads well; their modern forms above are supported.
    "legacy or unsupported document": """.doc .xls .ppt .rtf .odt .ods .odp .pages .numbers
        .key .msg .mobi .azw .azw3 .djvu .xps""",
}
_UNSUPPORTED_BY_EXTENSION = {
    extension: category
    for category, extensions in _UNSUPPORTED.items()
    for extension in _words(extensions)
}

_SNIFF_BYTES = 8192
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "archive"),
    (b"\x1f\x8b", "archive"),
    (b"7z\xbc\xaf\x27\x1c", "archive"),
    (b"Rar!", "archive"),
    (b"\x7fELF", "executable or binary"),
    (b"MZ", "executable or binary"),
    (b"\x89PNG", "image"),
    (b"\xff\xd8\xff", "image"),
    (b"GIF8", "image"),
    (b"ID3", "audio"),
    (b"OggS", "audio"),
    (b"fLaC", "audio"),
)


def unreadable_kind(name: str) -> str | None:
    """The kind of file (``"executable or binary"``) when its extension alone says Cairn
    never reads it, so indexing it again cannot help; None when it is (or may be) read.
    A name without an extension is judged by its bytes, so it is never refused here."""
    path = Path(name)
    if path.name.lower() in _CODE_FILE_NAMES:
        return None
    suffix = path.suffix.lower()
    if not suffix or suffix in _BY_EXTENSION:
        return None
    return _UNSUPPORTED_BY_EXTENSION.get(suffix, "unknown")


def detect_kind(path: Path) -> FileKind:
    """The kind of ``path``; raises ``UnsupportedFileType`` (with the reason) otherwise.

    A file without an extension is judged by its first bytes: a PDF signature makes it a
    PDF, readable text is plain text, anything else is unsupported.
    """
    name = path.name.lower()
    if name in _CODE_FILE_NAMES:
        return FileKind.CODE
    suffix = path.suffix.lower()
    kind = _BY_EXTENSION.get(suffix)
    if kind is not None:
        return kind
    category = _UNSUPPORTED_BY_EXTENSION.get(suffix)
    if category is not None:
        raise UnsupportedFileType(f"{category} files are not indexed ({suffix})")
    if suffix:
        raise UnsupportedFileType(f"unknown file type ({suffix})")
    return _sniff(path)


def _sniff(path: Path) -> FileKind:
    with path.open("rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    if head.startswith(b"%PDF-"):
        return FileKind.PDF
    if looks_like_text(head):
        return FileKind.TEXT
    for magic, category in _MAGIC:
        if head.startswith(magic):
            raise UnsupportedFileType(f"{category} files are not indexed (no extension)")
    raise UnsupportedFileType("binary file without an extension")
