"""Answers as safe HTML: markdown rendered on the server, then sanitised (nh3), with each
valid `[N]` turned into a link to its source."""

from __future__ import annotations

import re
from collections.abc import Mapping

import nh3
from django.utils.html import escape
from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_CITE = re.compile(r"\[(\d{1,4})\](?![(:])")
_ALLOWED_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "del",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "li",
    "ol",
    "p",
    "pre",
    "strong",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
    "span",
}
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "class"},
    "span": {"class"},
    "code": {"class"},
    "sup": {"class"},
}


def render_markdown(
    text: str,
    *,
    sources: Mapping[int, str] | None = None,
    unsupported: Mapping[int, str] | None = None,
) -> str:
    """``unsupported`` maps a source number to why the review doubted the sentences
    citing it: that `[N]` is marked, with the reason on hover and for screen readers."""
    html = _markdown.render(text or "")
    if sources:
        doubted = unsupported or {}

        def link(match: re.Match[str]) -> str:
            number = int(match.group(1))
            if number not in sources:
                return match.group(0)
            if number in doubted:
                reason = escape(f"Not supported by source {number} — {doubted[number]}")
                return (
                    f'<sup class="cite unsupported"><a href="{sources[number]}" '
                    f'title="{reason}">[{number}]<span class="visually-hidden"> ({reason})'
                    "</span></a></sup>"
                )
            return (
                f'<sup class="cite"><a href="{sources[number]}" title="Source {number}">'
                f"[{number}]</a></sup>"
            )

        html = _CITE.sub(link, html)
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )
