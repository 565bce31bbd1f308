"""Background work of the chat: memory extraction after each exchange (DESIGN §7 step 12)."""

from __future__ import annotations

import asyncio
import logging
import uuid

from django.db import transaction

from apps.chat.models import Message
from apps.claims.models import ClaimOrigin
from apps.core.work import durable
from apps.memory.actions import status_kept
from apps.memory.dedupe import claim_add_or_reinforce

from .claim_extraction import EXTRACT_SYSTEM, Candidate, parse_llm_candidates, rule_based_candidates

logger = logging.getLogger(__name__)


def _candidates(user_message: Message, assistant_message: Message) -> list[Candidate]:
    from apps.chat.connections.selectors import conversation_answerer

    # Claude's cheap model when Claude answers the conversation (from the environment or
    # the connections page); otherwise the rules, as before local servers came: their
    # models are not asked for extraction JSON, and the offline provider has no model.
    answerer = conversation_answerer(conversation=user_message.conversation)
    if answerer.cheap.kind != "anthropic":
        return rule_based_candidates(user_message.content)
    from apps.chat.llm.factory import build_provider

    async def ask() -> str:
        provider = build_provider(answerer)
        try:
            return await provider.complete(
                system=EXTRACT_SYSTEM,
                task="extract",
                max_tokens=800,
                prompt=f"<user>\n{user_message.content}\n</user>\n<assistant>\n"
                f"{assistant_message.content[:4000]}\n</assistant>",
            )
        finally:
            await provider.aclose()

    try:
        return parse_llm_candidates(asyncio.run(ask()))
    except Exception:  # the model failing is no reason to skip what rules can find
        logger.exception("LLM extraction failed; falling back to rules")
        return rule_based_candidates(user_message.content)


@durable(max_attempts=3)
def extract_memories(user_message_id: str, assistant_message_id: str) -> int:
    """Returns the number of claims created; reinforcements of known ones are not counted."""
    user_message = (
        Message.objects.select_related("conversation__user")
        .filter(id=uuid.UUID(user_message_id), role=Message.Role.USER)
        .first()
    )
    assistant = Message.objects.filter(id=uuid.UUID(assistant_message_id)).first()
    if user_message is None or assistant is None:
        return 0
    user = user_message.conversation.user
    status = status_kept(user=user)  # the memory mode, as every door applies it
    if status is None:
        return 0
    created = 0
    for candidate in _candidates(user_message, assistant):
        with transaction.atomic():
            _, is_new = claim_add_or_reinforce(
                user=user,
                statement=candidate.statement,
                claim_types=list(candidate.claim_types),
                domains=list(candidate.domains),
                possible_questions=list(candidate.possible_questions),
                status=status,
                origin=ClaimOrigin.EXTRACTED,
                source_message=user_message,
            )
        created += int(is_new)
    return created
