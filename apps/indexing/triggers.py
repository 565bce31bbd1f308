"""The trigger functions and triggers that keep search's statistics and postings current,
as the database holds them after the latest migration, written by today's builders
(``lexical_triggers``, ``posting_triggers``).

A migration carries the SQL it installs as literal text (issue 27): editing a builder
then changes nothing an existing migration does on a fresh database. To change a trigger,
edit its builder and add a migration whose ``RunSQL`` is the new output of
``installed_sql`` (the functions it changes and their triggers);
``tests/indexing/test_migration_sql.py`` fails until the database holds what this builds.
"""

from __future__ import annotations

from . import lexical_triggers, posting_triggers
from .lexical_triggers import ZERO_UUID

# What the statistics count of a row (``lexical_triggers``' sources): a chunk's text by
# its kind, and a chat turn's chunk a second time by its window.
CHUNK_SOURCES = [
    "r.project_id AS project_key, "
    "CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, "
    "r.search_vector AS vector",
    "r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector "
    "WHERE r.message_id IS NOT NULL",
]
CLAIM_SOURCES = [f"'{ZERO_UUID}'::uuid AS project_key, 'claim' AS kind, r.search_vector AS vector"]


def installed_sql() -> str:
    """Every function and trigger as the latest migration leaves them (idempotent:
    ``CREATE OR REPLACE`` and ``DROP … IF EXISTS``)."""
    return (
        lexical_triggers.TOKENS_FUNCTION
        + lexical_triggers.trigger_function_sql(
            "cairn_lexical_chunk", CHUNK_SOURCES, ["search_vector", "window_vector"]
        )
        + lexical_triggers.trigger_function_sql(
            "cairn_lexical_claim", CLAIM_SOURCES, ["search_vector"]
        )
        + posting_triggers.packed_chunk_function_sql("cairn_postings_chunk")
        + posting_triggers.trigger_function_sql("cairn_postings_claim", posting_triggers.CLAIM)
        + lexical_triggers.triggers_sql("indexing_chunk", "cairn_lexical_chunk")
        + lexical_triggers.triggers_sql("claims_claim", "cairn_lexical_claim")
        + lexical_triggers.triggers_sql("indexing_chunk", "cairn_postings_chunk", "postings")
        + lexical_triggers.triggers_sql("claims_claim", "cairn_postings_claim", "postings")
    )
