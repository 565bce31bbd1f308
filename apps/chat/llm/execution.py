"""The tool-use loop every remote provider runs, and running one tool call in it.

Claude and an OpenAI-compatible server differ in how a request is sent, streamed and
continued, not in the loop: stream a round, run the tools the model asked for, send their
results back, stop after `max_tool_rounds` with an answer or with a clear error. The
provider supplies the rounds (`ToolRounds`); the loop is written once, here (issue 27).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from apps.chat.llm.types import (
    StreamDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolExecutor,
    ToolResult,
    ToolSpec,
    Usage,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class RoundEnd:
    """How one request of the loop ended: the tools the model asks for (none: it has
    answered), or a pause the server wants continued (Claude's ``pause_turn``)."""

    stop_reason: str
    usage: Usage
    model: str
    calls: tuple[ToolCall, ...] = ()
    paused: bool = False


class ToolRounds(Protocol):
    """One provider's side of the loop, for one streamed reply."""

    @property
    def speaker(self) -> str:
        """Who answers, for the error when it never stops asking for tools ("Claude")."""
        ...

    def round(
        self, *, last_round: bool
    ) -> AsyncGenerator[TextDelta | StreamError | RoundEnd, None]:
        """Send the conversation so far (tools forbidden on the last round) and stream
        the reply's text, then end with one `RoundEnd` or one `StreamError`."""
        ...

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        """Append the last reply (with its tool calls) and the tools' results."""
        ...

    def add_continuation(self) -> None:
        """Append the last, paused reply, so that the next round goes on from it."""
        ...


async def tool_use_loop(
    rounds: ToolRounds,
    *,
    tools: Sequence[ToolSpec],
    executor: ToolExecutor | None,
    max_tool_rounds: int,
) -> AsyncIterator[StreamEvent]:
    """Yield the reply's text, each tool call and its result in order, then one
    `StreamDone` (usage summed over every round) or one `StreamError`.

    After `max_tool_rounds` rounds of tools the last request forbids them, so the turn
    ends in an answer; a model that asks for tools all the same gets an error, not a loop.
    """
    available = {spec.name for spec in tools}
    usage = Usage()
    last_text = ""
    for round_number in range(max_tool_rounds + 1):
        last_round = round_number == max_tool_rounds
        # One round's text must not run into the next's ("…I'll check.Found it").
        separate = bool(last_text) and not last_text.endswith("\n")
        end: RoundEnd | None = None
        async with contextlib.aclosing(rounds.round(last_round=last_round)) as events:
            async for event in events:
                if isinstance(event, StreamError):
                    yield event
                    return
                if isinstance(event, RoundEnd):
                    end = event
                    break
                if not event.text:
                    continue
                if separate:
                    separate = False
                    yield TextDelta("\n\n")
                last_text = event.text
                yield event
        if end is None:
            raise RuntimeError("a provider's round ended without saying how")
        usage += end.usage
        if end.calls and not last_round:
            results = []
            for call in end.calls:
                yield call
                result = await run_tool_call(call, available=available, executor=executor)
                yield result
                results.append(result)
            rounds.add_tool_results(results)
            continue
        if end.paused and not last_round:
            rounds.add_continuation()
            continue
        if end.calls:
            yield StreamError(
                message=f"{rounds.speaker} kept asking for tools and gave no answer.",
                retryable=False,
                error_type="tool_rounds_exceeded",
            )
            return
        yield StreamDone(stop_reason=end.stop_reason, usage=usage, model=end.model)
        return


async def run_tool_call(
    call: ToolCall, *, available: Collection[str], executor: ToolExecutor | None
) -> ToolResult:
    """Await the executor for `call`; a failure becomes an error result for the model.

    The model can recover from a failed tool (answer without it, or try other input),
    whereas an exception here would lose the whole reply; so a crash is logged with its
    traceback and reported to the model rather than raised.
    """
    if executor is None or call.name not in available:
        return ToolResult(call.id, f"The tool {call.name!r} is not available.", is_error=True)
    try:
        result = await executor(call)
    except Exception:
        logger.exception("Tool %s failed (call %s)", call.name, call.id)
        return ToolResult(call.id, f"The tool {call.name} failed unexpectedly.", is_error=True)
    if result.tool_call_id != call.id:
        result = dataclasses.replace(result, tool_call_id=call.id)
    return result
