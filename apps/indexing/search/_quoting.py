"""Text as it may be quoted into a prompt or a source excerpt (issue 28): without another
answer's ``[N]`` markers or its sources footer, which a later answer would read as its own
citations ("rent is EUR 1,450 [2]", where this answer's [2] is something else).

Pure Python: the chat's source registry imports it too.
"""

from __future__ import annotations

import re

FOOTER_MARK = "\n\n---\n**Sources:**\n"
# `[3]`, `[1, 2]`; not `arr[1]` (a word character before it), nor a Markdown link `[1](url)`.
CITATION_MARKER = re.compile(r"(?<![\w\\])\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\](?![(:])")
_GAP_BEFORE_PUNCTUATION = re.compile(r"[ \t]+(?=[.,;:!?)]|$)", re.MULTILINE)


def without_footer(content: str) -> str:
    """An answer as it was written, without the sources footer appended to it."""
    return content.split(FOOTER_MARK, 1)[0]


def quotable(text: str) -> str:
    """``text`` without a sources footer and without ``[N]`` citation markers."""
    body = without_footer(text)
    if "[" not in body:  # most passages: no marker to look for (a search quotes each hit)
        return body
    cleaned = CITATION_MARKER.sub("", body)
    if cleaned == body:
        return body
    return _GAP_BEFORE_PUNCTUATION.sub("", cleaned)
