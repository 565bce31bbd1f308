"""Cairn's search engine (DESIGN §6): hybrid search over a user's claims, files and chats,
and the rule of what counts as evidence.

This module is the whole of its public surface; the underscore modules beside it are its
internals, and the import contract (``pyproject.toml``, ``search-internals``) keeps every
other module of ``apps`` and ``config`` from reaching into them. Tests and benchmarks may
(they measure the parts).

- ``evidence_search``: what every door into an answer searches (the chat turn, the
  ``memory_search`` tool, REST and MCP): only evidence, optionally only what is relevant
  enough to cite. ``hybrid_search``, ``vector_search`` and ``text_search``: the fused
  ranking and each ranking alone, every hit a ``SearchHit`` with its provenance.
- The evidence rule's parts a door shows or reuses: who said a turn and when (``said_by``,
  ``said_on``), the turns a retracted claim hides (``hidden_message_ids``), a clear word
  match (``relevant``, ``content_words``, ``covers``), and text as it may be quoted
  (``quotable``, ``without_footer``).
- The bounds a door checks its input against: ``KINDS``, ``MAX_K``, ``QUERY_MAX_CHARS``.
- ``period_named``: the stretch of time words name ("in May 2024"), which also dates a
  file by the date at its head (``extract.dates``).
"""

from ._bm25 import QUERY_MAX_CHARS
from ._engine import KINDS, MAX_K, evidence_search, hybrid_search
from ._entities import NameFree, QuestionVectors, embed_question
from ._evidence import (
    WORD_COVER_SHARE,
    content_words,
    covers,
    hidden_message_ids,
    relevant,
    said_by,
    said_on,
)
from ._hits import EXCERPT_CHARS, SearchHit
from ._periods import Period, period_named
from ._quoting import FOOTER_MARK, quotable, without_footer
from ._single import text_search, vector_search

__all__ = [
    "EXCERPT_CHARS",
    "FOOTER_MARK",
    "KINDS",
    "MAX_K",
    "QUERY_MAX_CHARS",
    "WORD_COVER_SHARE",
    "NameFree",
    "Period",
    "QuestionVectors",
    "SearchHit",
    "content_words",
    "covers",
    "embed_question",
    "evidence_search",
    "hidden_message_ids",
    "hybrid_search",
    "period_named",
    "quotable",
    "relevant",
    "said_by",
    "said_on",
    "text_search",
    "vector_search",
    "without_footer",
]
