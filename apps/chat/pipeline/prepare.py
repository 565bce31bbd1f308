"""Steps 1–8 of a turn, synchronous and database-bound; the consumer runs them in a thread.

Each step is a function of its inputs so it can be tested alone; `prepare_turn` only
calls them in order. Nothing after step 1 may lose the user's message: the message is
committed first, and later steps that fail degrade the turn (a notice, zero counts)
instead of failing it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from apps.chat.error_codes import ErrorCode
from apps.chat.llm import ChatTurn
from apps.chat.message_source import message_to_read
from apps.chat.models import Conversation, Message
from apps.chat.pipeline.prompt import ChunkLine, FactLine, MemoryLine, build_system_prompt
from apps.chat.pipeline.sources import SourceRegistry
from apps.chat.reading import read_references
from apps.chat.selectors import conversation_recent_messages
from apps.chat.services import message_append
from apps.contexts.reference_parser import ParsedReference
from apps.contexts.references import ReferenceResolution, resolve_parsed
from apps.core.concurrency import run_beside, settle
from apps.facts import services as facts_services
from apps.facts.models import ProjectFact
from apps.facts.wording import display_value, fact_change_text, key_short_label
from apps.indexing import search as index_search
from apps.indexing import services as indexing_services
from apps.indexing.embeddings import Vector
from apps.indexing.search import (
    NameFree,
    QuestionVectors,
    SearchHit,
    hidden_message_ids,
    quotable,
)

from .lists import list_sections
from .memory import StandingMemory, auto_claims, memory_items, standing_memory
from .saving import FailedAfterSave, NotSaved, failure_in_words
from .types import (
    MAX_MESSAGE_CHARS,
    FactCounts,
    MemoryItem,
    PreparedTurn,
    TurnRejected,
    TurnRequest,
)

if TYPE_CHECKING:
    from apps.accounts.models import User

logger = logging.getLogger(__name__)

HISTORY_MESSAGES = 20
CHUNK_LIMIT = 6


def validate_request(request: TurnRequest) -> TurnRequest:
    text = request.text or ""
    if not text.strip():
        raise TurnRejected("Type a message first.", ErrorCode.EMPTY)
    if len(text.encode("utf-8")) > MAX_MESSAGE_CHARS:
        raise TurnRejected(
            f"That message is {len(text.encode()) // 1024} KB; the limit is "
            f"{MAX_MESSAGE_CHARS // 1024} KB. Upload long text as a file instead.",
            ErrorCode.TOO_LARGE,
        )
    if "\x00" in text:
        raise TurnRejected("The message contains a NUL character.", ErrorCode.INVALID)
    return request


def save_user_message(*, conversation: Conversation, request: TurnRequest) -> Message:
    """Step 1: the message is committed before anything else can fail."""
    with transaction.atomic():
        message = message_append(
            conversation=conversation, role=Message.Role.USER, content=request.text
        )
        if request.attached_claim_ids:
            message.attached_claims.set(
                conversation.user.claims.filter(id__in=request.attached_claim_ids)
            )
        # Step 4, owed in the same commit: a saved message is never left unindexed.
        indexing_services.message_index_enqueue(message_id=message.pk)
    return message


def record_references(*, message: Message, references: Sequence[ParsedReference]) -> None:
    message.references = [
        {"identifier": r.identifier, "kind": r.kind, "start": r.start, "end": r.end}
        for r in references
    ]
    message.save(update_fields=["references"])


def record_notices(*, message: Message, changes: Sequence[str], notices: Sequence[str]) -> None:
    """What the turn tells the user besides the answer, stored with their message so that a
    reload shows it as the stream did (issue 18): the facts it wrote, in words, and the
    notices (a reference that found nothing, a list it could not tell)."""
    message.notices = [{"kind": "fact", "text": text} for text in changes] + [
        {"kind": "notice", "text": text} for text in notices
    ]
    if message.notices:
        message.save(update_fields=["notices"])


def persist_facts(
    *, conversation: Conversation, message: Message, request: TurnRequest
) -> tuple[FactCounts, list[tuple[int, int]]]:
    """Step 3: facts from the user's message, stored synchronously."""
    try:
        # Through the module: a test (or a fault drill) may swap the function.
        result = facts_services.facts_persist(
            project=conversation.project,
            message=message_to_read(message),
            explicit_topic=request.fact_topic,
        )
    except Exception:  # a facts failure must not cost the user their answer
        logger.exception("facts_persist failed for message %s", message.id)
        return FactCounts(), []
    counts = FactCounts(
        stored=result.stored,
        updated=result.updated,
        ambiguous_topics=tuple(result.ambiguous_topics),
        unresolved=tuple(result.unresolved),
        # A thing merely mentioned ("mentioned.date…") is a link on the facts page, not a
        # fact the user would write down: it is kept, but not announced as saved (issue 28).
        changes=tuple(
            fact_change_text(fact)
            for fact in result.facts
            if not fact.fact_key.startswith("mentioned.")
        ),
    )
    return counts, [tuple(span) for span in result.rank_spans]  # type: ignore[misc]


def capped_resolutions(
    resolutions: Sequence[ReferenceResolution],
) -> tuple[list[ReferenceResolution], list[str]]:
    """A referenced context, entity, tag or domain brings at most
    ``CAIRN_REFERENCE_CLAIM_LIMIT`` claims, the newest (resolution lists them newest
    first), so one big tree cannot overflow the model's window; a notice says how many
    were left out (issue 17)."""
    limit = settings.CAIRN_REFERENCE_CLAIM_LIMIT
    kept, notices = [], []
    for resolution in resolutions:
        total = len(resolution.claims)
        if total > limit:
            resolution = replace(resolution, claims=resolution.claims[:limit])
            notices.append(
                f"@{resolution.identifier} holds {total} claims: the newest {limit} were used, "
                f"{total - limit} left out. Reference a smaller context, or the claims you need."
            )
        kept.append(resolution)
    return kept, notices


def unresolved_notice(item: str) -> str:
    """What the chat says of a ranked item no list could take ("#1 BTC")."""
    rank, _, value = item.partition(" ")
    return (
        f"Not saved: {item} — which list is it? Say, for example, "
        f"\u201cmy {rank} crypto is {value}\u201d or \u201cmy {rank} book is {value}\u201d."
    )


def embed_query(query: str) -> QuestionVectors | None:
    """The question's embeddings, once for every search of the turn: as asked and, when
    it may name someone, without the names, in one run of the model (None: searches
    embed it themselves, or run on words alone if the model is unavailable)."""
    try:
        return index_search.embed_question(query) if query.strip() else None
    except Exception:
        logger.exception("could not embed the question")
        return None


def relevant_facts(
    *, conversation: Conversation, query: str, message: Message
) -> tuple[list[ProjectFact], int]:
    try:
        result = facts_services.facts_relevant(
            project=conversation.project,
            query=query,
            exclude_message=message,
            hidden_message_ids=hidden_message_ids(user=conversation.user),
        )
    except Exception:
        logger.exception("facts_relevant failed")
        return [], 0
    return list(result.facts), result.topic_count


def relevant_chunks(
    *,
    user: User,
    conversation: Conversation,
    query: str,
    message: Message,
    query_vector: Vector | None = None,
    name_free: NameFree | None = None,
) -> list[SearchHit]:
    """Passages of files and past chats relevant enough to be cited, and only those that
    are evidence (``apps.indexing.search``, issue 28): never Cairn's own answers, a bare
    question of the user's or a forgotten turn, nor the turns the model already has as
    this conversation's history. Chat passages are titled by who said them and when."""
    recent = [
        m.pk
        for m in conversation_recent_messages(conversation=conversation, limit=HISTORY_MESSAGES)
    ]
    try:
        hits = index_search.evidence_search(
            user=user,
            query=query,
            project=conversation.project,
            kinds=("document", "message"),
            k=CHUNK_LIMIT * 3,
            exclude_message_ids=(message.id, *recent),
            vector=query_vector,
            relevant_only=True,
            name_free=name_free,
        )
    except Exception:
        logger.exception("chunk search failed")
        return []
    return hits[:CHUNK_LIMIT]


def register_sources(
    *, memory: Sequence[MemoryItem], facts: Sequence[ProjectFact], chunks: Sequence[SearchHit]
) -> tuple[SourceRegistry, list[FactLine], list[ChunkLine]]:
    """Step 6: every item of the turn gets its number `[N]`, in priority order."""
    registry = SourceRegistry()
    for item in memory:
        claim = item.claim
        if item.background:
            continue  # standing context, shown in the prompt without a number
        # A claim is titled by what it says: "#3 @carry_two_energy_7719" told a reader
        # nothing (issue 17).
        item.source_number = registry.register(
            "claim",
            claim.id,
            claim.statement,
            claim.statement,
            score=item.score,
            url=reverse("knowledge:claim", args=[claim.id]),
            waiting=item.waiting,
        )
    fact_lines = []
    for fact in facts:
        # Titled in words ("your #1 crypto"), never by its key (issue 28).
        number = registry.register(
            "fact",
            fact.fact_key,
            f"your {key_short_label(fact.fact_key)}",
            display_value(fact),
            url=reverse("facts:home"),
        )
        fact_lines.append(FactLine(key=fact.fact_key, value=fact.value_text, source_number=number))
    chunk_lines = []
    for hit in chunks:
        # The whole passage, not the search hit's short excerpt: the answer to the question
        # may be anywhere in a 2,048-character chunk, and the model (and the alignment
        # review, which reads the registry) can only use and check what it is shown.
        assert hit.chunk_id is not None  # documents' and messages' hits are passages
        number = registry.register(
            hit.kind,
            hit.chunk_id,
            hit.title,
            hit.text,
            score=hit.vector_similarity,
            url=passage_url(hit),
        )
        chunk_lines.append(ChunkLine(title=hit.title, text=hit.text, source_number=number))
    return registry, fact_lines, chunk_lines


def passage_url(hit: SearchHit) -> str | None:
    """Where a cited passage is shown: the message in its conversation, or the passage on
    its document's page (``files/document.html`` anchors each as ``chunk-<id>``)."""
    if hit.kind == "message" and hit.conversation_id:
        return reverse("chat:conversation", args=[hit.conversation_id]) + f"#m-{hit.message_id}"
    if hit.kind == "document" and hit.document_id:
        page = reverse("files:document", args=[hit.document_id])
        return f"{page}?chunk={hit.chunk_id}#chunk-{hit.chunk_id}"
    return None


def memory_lines(memory: Sequence[MemoryItem]) -> list[MemoryLine]:
    return [
        MemoryLine(
            label=item.label,
            claim_types=item.claim.claim_types,
            number=item.claim.number,
            statement=item.claim.statement,
            questions=item.claim.possible_questions,
            source_number=item.source_number,
        )
        for item in memory
    ]


def history_turns(*, conversation: Conversation, message: Message) -> list[ChatTurn]:
    earlier = conversation_recent_messages(
        conversation=conversation, limit=HISTORY_MESSAGES, before_order=message.order
    )
    # An earlier answer without its [N] markers and footer: they were that answer's
    # numbers, and the model would read them as this turn's (issue 28).
    turns = [
        ChatTurn(
            role="assistant" if m.role == Message.Role.ASSISTANT else "user",
            content=quotable(m.content) if m.role == Message.Role.ASSISTANT else m.content,
        )
        for m in earlier
        if m.content.strip()
    ]
    return [*turns, ChatTurn(role="user", content=message.content)]


def _standing_facts_history(
    *,
    user: User,
    conversation: Conversation,
    request: TurnRequest,
    message: Message,
    query: str,
    query_vector: Vector | None,
) -> tuple[StandingMemory, tuple[list[ProjectFact], int], list[ChatTurn]]:
    """The claims a turn brings in whatever the search finds, the facts, and the
    conversation's history for the model."""
    standing = standing_memory(
        user=user,
        conversation=conversation,
        attached_claim_ids=request.attached_claim_ids,
        query=query,
        query_vector=query_vector,
    )
    facts = relevant_facts(conversation=conversation, query=request.text, message=message)
    return standing, facts, history_turns(conversation=conversation, message=message)


def prepare_turn(
    *,
    user: User,
    conversation: Conversation,
    request: TurnRequest,
    now: datetime | None = None,
    distill: bool = False,
) -> PreparedTurn:
    """Steps 1–8 (distillation, step 7, is async and done by the caller when wanted).

    ``NotSaved`` when the user's message did not commit; ``FailedAfterSave`` when it did
    and a later step failed: the caller says which (issue 26)."""
    validate_request(request)
    # The question is embedded (CPU, no database) while the message and its facts are
    # saved; references, resolved below, rarely change the text searched with.
    early_vector = run_beside(embed_query, request.text)
    try:
        message = save_user_message(conversation=conversation, request=request)
    except Exception as error:
        raise NotSaved(failure_in_words(error)) from error
    try:
        return prepare_saved(
            user=user,
            conversation=conversation,
            request=request,
            message=message,
            early_vector=early_vector,
            now=now,
        )
    except Exception as error:
        raise FailedAfterSave(message, failure_in_words(error)) from error


def prepare_saved(
    *,
    user: User,
    conversation: Conversation,
    request: TurnRequest,
    message: Message,
    early_vector: Callable[[], QuestionVectors | None],
    now: datetime | None,
) -> PreparedTurn:
    """Steps 2–8, once the user's message is committed."""
    fact_counts, _ = persist_facts(conversation=conversation, message=message, request=request)
    # A rank wins over a claim number (DESIGN §5): "#1" in "my #1 crypto" is not claim 1.
    # The same reading as the transcript and the composer's chips (apps/chat/reading.py).
    parsed = read_references(request.text)
    resolutions, capped = capped_resolutions(
        [resolve_parsed(user, ref) for ref in parsed.references]
    )
    index_status = indexing_services.ACCEPTED
    query = parsed.clean_text or request.text
    question = early_vector()
    if query != request.text:
        question = embed_query(query)
    query_vector = question.vector if question is not None else None
    # Claims, facts and the history are gathered beside the search of files and past chats
    # (on other threads and connections, when no transaction is open): they share nothing
    # but the query. The search runs here, so that its own rankings run beside each other
    # too: a pool thread runs what it would put beside itself in turn (on bench_chat.py's
    # account the search took 34-58 ms on a pool thread, 18 here, on a loaded machine).
    auto_found = run_beside(auto_claims, user, query, query_vector)
    rest_found = run_beside(
        _standing_facts_history,
        user=user,
        conversation=conversation,
        request=request,
        message=message,
        query=query,
        query_vector=query_vector,
    )
    try:
        if parsed.references:  # saved with none: an update (and its commit) only for some
            record_references(message=message, references=parsed.references)
        chunks = relevant_chunks(
            user=user,
            conversation=conversation,
            query=query,
            message=message,
            query_vector=query_vector,
            name_free=question.name_free if question is not None else None,
        )
        standing, (facts, topic_count), history = rest_found()
        auto = auto_found()
    except BaseException:
        settle([auto_found, rest_found])  # a failed turn leaves none of its reads running
        raise
    memory = memory_items(resolutions, auto, standing)
    fact_counts = FactCounts(
        stored=fact_counts.stored,
        updated=fact_counts.updated,
        retrieved=topic_count,
        ambiguous_topics=fact_counts.ambiguous_topics,
        unresolved=fact_counts.unresolved,
        changes=fact_counts.changes,
    )
    registry, fact_lines, chunk_lines = register_sources(memory=memory, facts=facts, chunks=chunks)
    lists = list_sections(user=user, question=query, registry=registry)
    system_prompt = build_system_prompt(
        memory_lines=memory_lines(memory),
        facts=fact_lines,
        chunks=chunk_lines,
        lists=lists,
        registry=registry,
        user_name=user.name,
        now=now or timezone.now(),
    )
    notices = [r.message for r in resolutions if r.message]
    notices += capped
    notices += [unresolved_notice(item) for item in fact_counts.unresolved]
    record_notices(message=message, changes=fact_counts.changes, notices=notices)
    return PreparedTurn(
        conversation=conversation,
        user_message=message,
        clean_text=parsed.clean_text,
        resolutions=resolutions,
        memory=memory,
        registry=registry,
        system_prompt=system_prompt,
        history=history,
        fact_counts=fact_counts,
        index_status=index_status,
        notices=notices,
        fact_lines=fact_lines,
        chunk_lines=chunk_lines,
        list_sections=lists,
    )
