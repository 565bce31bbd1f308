"""One chat turn as every door runs it (the websocket, REST): prepare, stream, finish,
and the events the page sees along the way (the protocol is written down in the README).

It sits above the pipeline's steps and the events (issue 27): the steps speak the
provider's types, and this module turns what they did into what the page is told."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from apps.chat.events import (
    Ack,
    AnswerSaved,
    AnswerUnsaved,
    Clarify,
    Delta,
    Done,
    Emit,
    ErrorCode,
    MemoryUsed,
    Reviewed,
    SourceListed,
    Sources,
    ToolAnswered,
    ToolCalled,
    TurnError,
    message_html,
)
from apps.chat.llm import LLMProvider, TextDelta, ToolCall, ToolResult
from apps.chat.models import Conversation, Message
from apps.chat.pipeline.finish import finish_turn, save_answer, unsaved_text
from apps.chat.pipeline.prepare import prepare_turn
from apps.chat.pipeline.saving import (
    AnswerNotSaved,
    FailedAfterSave,
    NotSaved,
    PendingAnswer,
    save_with_retries,
)
from apps.chat.pipeline.stream import STOPPED_BY_USER, Relay, distill, stream_answer
from apps.chat.pipeline.threads import in_worker_thread
from apps.chat.pipeline.tools.executor import TurnTools
from apps.chat.pipeline.types import PreparedTurn, TurnRejected, TurnRequest
from apps.chat.services import TurnOutcome, message_append, turn_rate_limit_take

if TYPE_CHECKING:
    from apps.accounts.models import User

logger = logging.getLogger(__name__)


def _ack(prepared: PreparedTurn) -> Ack:
    return Ack(
        message_id=prepared.user_message.id,
        order=prepared.user_message.order,
        references=tuple(prepared.resolutions),
        facts=prepared.fact_counts,
        index_status=prepared.index_status,
        notices=tuple(prepared.notices),
    )


async def _done(answer: Message) -> Done:
    return Done(message=answer, html=await in_worker_thread(message_html)(answer))


def _clarifying_answer(prepared: PreparedTurn) -> Message:
    topics = list(prepared.fact_counts.ambiguous_topics)
    question = (
        f"Which list do you mean — {', '.join(topics[:-1])} or {topics[-1]}? "
        "I have not saved it yet; pick one and I will."
    )
    with transaction.atomic():
        return message_append(
            conversation=prepared.conversation,
            role=Message.Role.ASSISTANT,
            content=question,
            fact_counts=prepared.fact_counts.as_dict(),
            index_status=prepared.index_status,
            model_name="cairn",
            outcome=TurnOutcome(clarify_topics=tuple(topics)),
        )


def _relay_to(emit: Emit) -> Relay:
    """What the model streams, as the page's events: text, and each tool call and result
    (a result cut to what the page shows)."""

    async def relay(event: TextDelta | ToolCall | ToolResult) -> None:
        if isinstance(event, TextDelta):
            await emit(Delta(text=event.text))
        elif isinstance(event, ToolCall):
            await emit(ToolCalled(id=event.id, name=event.name, input=event.input))
        else:
            await emit(
                ToolAnswered(
                    id=event.tool_call_id, content=event.content[:2000], is_error=event.is_error
                )
            )

    return relay


def _what_is_saved(answer: Message) -> str:
    """Said only once it is true: the question was committed before the model was asked,
    and `answer` is the row `finish_turn` saved."""
    if answer.status == Message.Status.PARTIAL:
        return "Your message and the answer so far are saved."
    return "Your message is saved."


async def run_turn(
    *,
    user: User,
    conversation: Conversation,
    request: TurnRequest,
    emit: Emit,
    provider: LLMProvider,
) -> Message | None:
    # Every door starts its turns here, so the limit is counted once for all of them.
    exhausted = await in_worker_thread(turn_rate_limit_take)(user_id=user.pk)
    if exhausted is not None:
        await emit(
            TurnError(
                code=ErrorCode.RATE_LIMITED,
                message=exhausted.message,
                retry_after=exhausted.retry_after,
            )
        )
        return None
    try:
        prepared = await in_worker_thread(prepare_turn)(
            user=user, conversation=conversation, request=request
        )
    except TurnRejected as rejection:
        await emit(TurnError(code=rejection.code, message=str(rejection)))
        return None
    except NotSaved as failure:
        await emit(
            TurnError(code=ErrorCode.NOT_SAVED, message=f"Your message was not saved: {failure}.")
        )
        return None
    except FailedAfterSave as failure:
        logger.exception("preparing the answer failed after the message was saved")
        await emit(
            TurnError(
                code=ErrorCode.INTERNAL,
                message=f"Your message was saved, but no answer could be prepared: {failure}. "
                "Try again.",
            )
        )
        return None
    # Only now: the message is committed (prepare_turn raised otherwise).
    await emit(_ack(prepared))

    if prepared.fact_counts.ambiguous_topics:
        answer = await in_worker_thread(_clarifying_answer)(prepared)
        await emit(
            Clarify(
                message_id=prepared.user_message.id,
                candidates=tuple(prepared.fact_counts.ambiguous_topics),
                question=answer.content,
            )
        )
        await emit(await _done(answer))
        return answer

    await emit(
        MemoryUsed(items=tuple(prepared.memory), facts_retrieved=prepared.fact_counts.retrieved)
    )
    await emit(
        Sources(
            items=tuple(
                SourceListed(number=i.number, kind=i.kind, title=i.title, url=i.url)
                for i in prepared.registry.items()
            )
        )
    )
    if settings.CAIRN_DISTILL_MEMORY:
        await distill(prepared, provider)
    tools = TurnTools(user=user, message=prepared.user_message, registry=prepared.registry)
    outcome = await stream_answer(
        prepared, provider=provider, relay=_relay_to(emit), tool_executor=tools.executor()
    )
    try:
        answer = await finish_turn(prepared, outcome, provider)
    except AnswerNotSaved as unsaved:
        await emit(
            AnswerUnsaved(
                pending=unsaved.pending, content=unsaved_text(unsaved.pending), reason=str(unsaved)
            )
        )
        return None
    if outcome.error == STOPPED_BY_USER:
        await emit(TurnError(code=ErrorCode.CANCELLED, message=outcome.error, message_id=answer.id))
    elif outcome.error:
        message = f"{outcome.error} {_what_is_saved(answer)}"
        await emit(TurnError(code=ErrorCode.PROVIDER, message=message, message_id=answer.id))
    if answer.review_findings or answer.review_corrected:
        await emit(Reviewed(message=answer))
    await emit(await _done(answer))
    return answer


async def answer_save_again(*, pending: PendingAnswer, emit: Emit) -> Message | None:
    """A ``save_answer`` frame: one more try at saving an answer kept as unsaved; the
    answer is never generated again."""
    try:
        answer = await save_with_retries(save_answer, pending, delays=())
    except AnswerNotSaved as unsaved:
        await emit(
            AnswerUnsaved(pending=pending, content=unsaved_text(pending), reason=str(unsaved))
        )
        return None
    await emit(
        AnswerSaved(
            pending_id=pending.id, message=answer, html=await in_worker_thread(message_html)(answer)
        )
    )
    return answer
