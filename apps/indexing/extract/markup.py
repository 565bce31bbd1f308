"""Readable text from HTML (web pages, e-mail bodies, EPUB chapters), by the stdlib parser."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from .text import normalise_whitespace

_SKIPPED = frozenset(
    {"script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas"}
)
# Blocks that stand apart as paragraphs, and those that only start a new line.
_PARAGRAPHS = frozenset(
    {"address", "article", "aside", "blockquote", "details", "dl", "fieldset", "figure",
     "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "nav",
     "ol", "p", "pre", "section", "table", "ul"}
)  # fmt: skip
_LINES = frozenset({"br", "caption", "dd", "div", "dt", "figcaption", "li", "summary", "tr"})
_CELLS = frozenset({"td", "th"})
_SPACES = re.compile(r"[ \t\r\n\f\v]+")


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self._skipping = 0
        self._in_title = False
        self._in_pre = 0
        self._pending_newlines = 0
        self._cell_started = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skipping += 1
        elif tag == "title":
            self._in_title = True
        elif tag == "pre":
            self._in_pre += 1
        elif tag == "tr":
            self._cell_started = False
        elif tag in _CELLS:
            if self._cell_started:
                self.parts.append("\t")
            self._cell_started = True
        self._block_boundary(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._block_boundary(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skipping = max(0, self._skipping - 1)
        elif tag == "title":
            self._in_title = False
        elif tag == "pre":
            self._in_pre = max(0, self._in_pre - 1)
        self._block_boundary(tag)

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if self._in_title:
            self.title_parts.append(data)
            return
        if not self._in_pre:
            data = _SPACES.sub(" ", data)
            if self._pending_newlines or not self.parts:
                data = data.lstrip()  # indentation, meaningless outside <pre>
            if not data:
                return
        if self._pending_newlines and self.parts:
            self.parts.append("\n" * self._pending_newlines)
        self._pending_newlines = 0
        self.parts.append(data)

    def _block_boundary(self, tag: str) -> None:
        if tag == "br":
            self._pending_newlines = min(self._pending_newlines + 1, 2)
        elif tag in _PARAGRAPHS:
            self._pending_newlines = 2
        elif tag in _LINES:
            self._pending_newlines = max(self._pending_newlines, 1)


def html_to_text(html: str) -> tuple[str, str | None]:
    """The visible text of ``html`` with block structure as line breaks, and its title."""
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    text = "".join(collector.parts)
    title = _SPACES.sub(" ", "".join(collector.title_parts)).strip() or None
    return normalise_whitespace(text), title
