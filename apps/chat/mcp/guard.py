"""The MCP door's share of the site's input guard (apps/core/validation.py).

Every tool's arguments, as the SDK hands them to the tool (after its schema check and its
pre-parsing of JSON written inside a string), pass ``input_problem`` like a REST body or
a websocket frame: a NUL or an unpaired surrogate reached PostgreSQL from ``add_claim``,
``update_claim``, ``complete_claim``'s note, ``set_fact`` and ``search_memory`` and came
back as a crash, "Error executing tool X" (issue 29). A refusal names the argument.

The SDK prefixes every tool error with "Error executing tool <name>: " and reports a
schema mismatch as pydantic's multi-line report; the client's model reads the sentence
alone here, the argument first, like the REST API's field errors. A crash stays a crash:
its text never leaves the server.

Every tool says whether it only reads (its ``readOnlyHint``); one that writes is refused to
a read-only token (Settings → API tokens) before it runs, in the same words as the REST
API's 403. The annotation is the one list of which tools write: a tool without it cannot
be added.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import ValidationError

from apps.accounts.services import READ_ONLY_REFUSAL
from apps.core.validation import SURROGATE_MESSAGE, input_problem

from .auth import caller_of

Tool = Callable[..., Awaitable[Any]]


def _may_write(arguments: dict[str, Any]) -> bool:
    """Whether the request's token may write; no token seen (never so over HTTP, where
    the middleware refuses such requests) is no permission."""
    for value in arguments.values():
        if isinstance(value, Context):
            request = value.request_context.request
            caller = caller_of(request.scope) if request is not None else None
            return caller is not None and caller.may_write
    return False


def _arguments_guarded(tool: Tool, *, writes: bool) -> Tool:
    @functools.wraps(tool)  # the SDK reads the tool's signature through __wrapped__
    async def call(**arguments: Any) -> Any:
        if writes and not _may_write(arguments):
            raise ToolError(READ_ONLY_REFUSAL)
        for name, value in arguments.items():
            if isinstance(value, Context):
                continue
            problem = input_problem(value, name)
            if problem is not None:
                raise ToolError(f"{problem.field}: {problem.message}")
        return await tool(**arguments)

    return call


def _schema_errors_in_words(error: ValidationError) -> str:
    """``number: Must be a number, not true or false.``, one sentence per argument, each
    named as the input guard names it (``claim_types[0]``)."""
    sentences = []
    for item in error.errors(include_url=False):
        where = ""
        for part in item["loc"]:
            where = f"{where}[{part}]" if isinstance(part, int) else f"{where}.{part}".lstrip(".")
        cause = (item.get("ctx") or {}).get("error")
        if item["type"] == "string_unicode":  # pydantic's words for a lone surrogate
            text = SURROGATE_MESSAGE
        elif item["type"] == "value_error" and cause:
            text = str(cause)
        else:
            text = item["msg"]
        sentences.append(f"{where or 'arguments'}: {text.rstrip('.')}.")
    return " ".join(sentences)


def _in_words(error: ToolError) -> str:
    cause = error.__cause__
    if isinstance(cause, ValidationError):
        return _schema_errors_in_words(cause)
    if isinstance(cause, ToolError | ResourceError):
        return str(cause)  # the tool's own sentence, without the SDK's prefix
    return str(error)  # the SDK's own refusal ("Unknown tool: …")


class GuardedMCPServer(MCPServer[Any]):
    """An ``MCPServer`` whose every tool is behind the input guard and the token's access
    level (so no tool can be added without them) and whose refusals read as sentences."""

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        annotations = kwargs.get("annotations")
        if not isinstance(annotations, ToolAnnotations) or annotations.read_only_hint is None:
            raise TypeError(
                f"The MCP tool {fn.__name__} must say whether it only reads: "
                "annotations=ToolAnnotations(read_only_hint=…)."
            )
        writes = not annotations.read_only_hint
        super().add_tool(_arguments_guarded(fn, writes=writes), *args, **kwargs)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as error:
            # Raised from the same cause, so the SDK still logs only the argument names.
            raise ToolError(_in_words(error)) from error.__cause__
