"""Typed lists in the prompt (issue 17): when a question is about the user's goals, tasks
or shopping list, the whole list goes into the prompt as its own section, instead of the
few items a similarity search happens to find.

The detector is deliberately a plain word match: deterministic, testable, and cheap on
every turn; the model can always ask for any list with the `memory_list` tool.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django.urls import reverse

from apps.chat.pipeline.prompt import ListLine, ListSection
from apps.chat.pipeline.sources import SourceRegistry
from apps.claims.selectors import claims_on_list

if TYPE_CHECKING:
    from apps.accounts.models import User

LIST_SECTION_LIMIT = 50
_ASKS_ABOUT = {
    "goal": re.compile(r"\b(?:goals?|aims?|ambitions?|resolutions?)\b", re.IGNORECASE),
    "task": re.compile(r"\b(?:tasks?|to-?dos?|to do)\b", re.IGNORECASE),
    "shopping_item": re.compile(
        r"\b(?:shopping|groceries|grocery|buy list|need to buy)\b", re.IGNORECASE
    ),
}


def lists_asked_about(question: str) -> list[str]:
    """The list types ("goal", "task", "shopping_item") a question is about, in that order."""
    return [claim_type for claim_type, words in _ASKS_ABOUT.items() if words.search(question)]


def list_sections(*, user: User, question: str, registry: SourceRegistry) -> list[ListSection]:
    """The open items of each list the question is about, each registered as a source."""
    sections = []
    for claim_type in lists_asked_about(question):
        claims = claims_on_list(user=user, claim_type=claim_type)[:LIST_SECTION_LIMIT]
        lines = [
            ListLine(
                number=claim.number,
                statement=claim.statement,
                source_number=registry.register(
                    "claim",
                    claim.id,
                    claim.statement,
                    claim.statement,
                    url=reverse("knowledge:claim", args=[claim.id]),
                ),
            )
            for claim in claims
        ]
        sections.append(ListSection(claim_type=claim_type, lines=lines))
    return sections
