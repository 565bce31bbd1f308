"""Text of an EPUB book: its XHTML documents in spine (reading) order.

The caller has already checked the zip container (``zipguard``). ElementTree does not
fetch external entities, and the bundled expat refuses entity-expansion attacks.
"""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

from .errors import CorruptFile
from .kinds import ExtractedText, FileKind
from .markup import html_to_text
from .text import normalise_whitespace

_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html"})


def extract_epub(path: Path) -> ExtractedText:
    with zipfile.ZipFile(path) as archive:
        container = _read_xml(archive, "META-INF/container.xml")
        rootfile = next(_elements(container, "rootfile"), None)
        package_path = rootfile.get("full-path") if rootfile is not None else None
        if not package_path:
            raise CorruptFile("EPUB has no package document (META-INF/container.xml)")
        package = _read_xml(archive, package_path)
        base = posixpath.dirname(package_path)

        manifest = {
            item.get("id"): (item.get("href") or "", item.get("media-type") or "")
            for item in _elements(package, "item")
        }
        chapters: list[str] = []
        for itemref in _elements(package, "itemref"):
            href, media_type = manifest.get(itemref.get("idref"), ("", ""))
            if not href or media_type not in _HTML_TYPES:
                continue
            name = posixpath.normpath(posixpath.join(base, unquote(href.split("#", 1)[0])))
            try:
                data = archive.read(name)
            except KeyError:  # a spine entry the book forgot to include; read the rest
                continue
            chapters.append(html_to_text(data.decode("utf-8", errors="replace"))[0])

    title_element = next(_elements(package, "title"), None)
    title = None
    if title_element is not None and title_element.text:
        title = title_element.text.strip() or None
    return ExtractedText(normalise_whitespace("\n\n".join(chapters)), FileKind.EPUB, title=title)


def _read_xml(archive: zipfile.ZipFile, name: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(archive.read(name))  # noqa: S314 (see module docstring)
    except KeyError as exc:
        raise CorruptFile(f"EPUB is missing {name}") from exc
    except ElementTree.ParseError as exc:
        raise CorruptFile(f"EPUB's {name} is not valid XML ({exc})") from exc


def _elements(root: ElementTree.Element, local_name: str) -> Iterator[ElementTree.Element]:
    # EPUB 2 and 3 files disagree on namespaces and prefixes; match on the local name.
    return (
        element
        for element in root.iter()
        if isinstance(element.tag, str) and element.tag.rsplit("}", 1)[-1] == local_name
    )
