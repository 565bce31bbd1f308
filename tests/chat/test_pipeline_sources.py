"""Step 6, the turn's sources: what a retrieved passage of a file gives the model and the
footer (issue 8: an answer about an uploaded file cites the passage that holds it)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from apps.chat.pipeline.prepare import register_sources
from apps.chat.pipeline.prompt import build_system_prompt
from apps.indexing.search import EXCERPT_CHARS, SearchHit

# A file's passage (up to 2,048 characters) whose answer comes long after its excerpt.
PASSAGE = (
    "The tower was built in 1871 from granite carried across the sound on barges. " * 6
    + "The lighthouse keeper's boat is called Marigold."
)
DOCUMENT_ID = uuid.UUID("5c4f3a52-8a49-4d38-9b7e-2a7f2f3f6a01")


def passage_hit() -> SearchHit:
    return SearchHit(
        kind="document",
        score=0.03,
        vector_similarity=0.56,
        text_rank=0.1,
        chunk_id=41,
        document_id=DOCUMENT_ID,
        document_path="skerry-point.txt",
        title="skerry-point.txt",
        excerpt=PASSAGE[:EXCERPT_CHARS],
        text=PASSAGE,
    )


def test_a_file_passage_reaches_the_model_whole_not_cut_to_its_excerpt() -> None:
    assert "Marigold" not in passage_hit().excerpt  # what the model used to be shown

    registry, _, chunk_lines = register_sources(memory=[], facts=[], chunks=[passage_hit()])
    prompt = build_system_prompt(
        memory_lines=[], chunks=chunk_lines, registry=registry, now=datetime.now(UTC)
    )

    documents = prompt.split("<documents>")[1].split("</documents>")[0]
    assert "[1] skerry-point.txt:" in documents
    assert "boat is called Marigold." in documents
    # The registry's copy is what the alignment review checks a `[1]` against.
    item = registry.get(1)
    assert item is not None
    assert item.excerpt == PASSAGE


def test_a_cited_file_passage_links_to_that_passage_on_its_documents_page() -> None:
    registry, _, _ = register_sources(memory=[], facts=[], chunks=[passage_hit()])

    url = f"/files/documents/{DOCUMENT_ID}/?chunk=41#chunk-41"
    item = registry.get(1)
    assert item is not None
    assert item.url == url
    assert registry.footer("Marigold [1]") == (
        f"\n\n---\n**Sources:**\n[1] [skerry-point.txt]({url}) · document"
    )
