"""Running one tool call for a provider's tool-use loop."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Collection

from apps.chat.llm.types import ToolCall, ToolExecutor, ToolResult

logger = logging.getLogger(__name__)


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
