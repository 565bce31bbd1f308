"""How the chat reads the references in a user's words: the reference parser, told which
``#N`` are ranks by the facts extractor (DESIGN §5). The reply pipeline, the transcript,
the composer's chips and the REST resolver all read a message through here, so "my #1
crypto is BTC" never shows a chip for claim #1 that the answer did not use (issue 18).
Contexts cannot import facts (the layers in pyproject.toml), so the two meet here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.contexts.reference_parser import ParsedMessage, parse_references
from apps.contexts.references import ReferenceResolution, resolve_message
from apps.facts.extraction import message_rank_spans

if TYPE_CHECKING:
    from apps.accounts.models import User


def read_references(text: str) -> ParsedMessage:
    return parse_references(text, ranks=message_rank_spans(text))


def resolve_message_references(user: User, text: str) -> tuple[str, list[ReferenceResolution]]:
    return resolve_message(user, text, ranks=message_rank_spans(text))
