"""Fact extraction and topic resolution: pure Python, no database, no Django.

``extract_facts`` reads one user message and returns the facts to store
(``ExtractionResult``); ``resolve_topic`` decides which ranked list a message means;
``select_relevant_facts`` decides which stored facts a question needs. Key names are
documented in ``keys.py``; the persistence layer (``apps.facts.services``) writes them.
"""

from .keys import fact_topic, parse_ranked_key, ranked_key
from .pipeline import MAX_EXTRACT_CHARS, extract_facts, message_rank_spans
from .relevance import RelevanceResult, select_relevant_facts
from .topics import normalize_topic, resolve_topic
from .types import (
    ExtractedFact,
    ExtractionResult,
    FactKind,
    RankedCandidate,
    Span,
    TopicResolution,
    ValueType,
)

__all__ = [
    "MAX_EXTRACT_CHARS",
    "ExtractedFact",
    "ExtractionResult",
    "FactKind",
    "RankedCandidate",
    "RelevanceResult",
    "Span",
    "TopicResolution",
    "ValueType",
    "extract_facts",
    "fact_topic",
    "message_rank_spans",
    "normalize_topic",
    "parse_ranked_key",
    "ranked_key",
    "resolve_topic",
    "select_relevant_facts",
]
