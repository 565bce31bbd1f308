"""The memory tools Claude may call (DESIGN §7 step 9): schemas and typed inputs.

The inputs are the memory layer's (``apps.memory.schemas``), one per action and shared
with MCP and REST; this module names the tools, maps their arguments onto those inputs
and names a refusal's argument as the tool calls it. Only the contract lives here.

The executor that touches the database belongs to the reply pipeline: it receives a
`ToolCall`, turns `call.input` into one of the typed inputs below with `parse_tool_input`
(a `ToolInputError` becomes an `is_error` result the model can correct), does the work
for the requesting user, registers what it found in the turn's source registry and
answers with a `ToolResult` naming those sources by `[N]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Literal, TypeAlias

from apps.chat.llm import tool_names
from apps.chat.llm.types import ToolCall, ToolSpec
from apps.memory.errors import MemoryRefusal
from apps.memory.schemas import (
    CLAIM_TYPES,
    LIST_STATUSES,
    MAX_QUESTIONS,
    MAX_SEARCH_RESULTS,
    MAX_STATEMENT_CHARS,
    ClaimRef,
    CompleteInput,
    EditInput,
    ListInput,
    RememberInput,
    SearchInput,
    parse,
)

# The memory layer's inputs, under the names the tools have always used.
MemoryAddInput = RememberInput
MemorySearchInput = SearchInput
MemoryListInput = ListInput

UPDATE_ACTIONS = ("complete", "tick_off", "restore", "retract", "edit")
UpdateAction: TypeAlias = Literal["complete", "tick_off", "restore", "retract", "edit"]
MAX_LIST_ITEMS = 100
SEARCH_DEFAULT = 5
# The chat's names for the memory layer's fields, so a refusal names what the model wrote.
FIELD_NAMES = {"number": "claim_number", "claim_type": "type"}


class ToolInputError(MemoryRefusal):
    """The model's call does not fit the tool (no such tool, a source number this turn
    never gave); the message is meant for the model."""

    def __init__(self, message: str, field: str = "arguments") -> None:
        super().__init__(field, message)


MEMORY_ADD = ToolSpec(
    name=tool_names.MEMORY_ADD,
    description=(
        "Save one atomic memory about the user: something they asked you to remember or "
        "a durable fact, preference, decision, goal, task or shopping item they stated. "
        "One statement per call, written in the first person as the user would say it "
        '("I prefer morning workouts"). Do not save what is already in memory.'
    ),
    input_schema={
        "type": "object",
        "properties": {
            "statement": {"type": "string", "maxLength": MAX_STATEMENT_CHARS},
            "claim_types": {
                "type": "array",
                "items": {"type": "string", "enum": list(CLAIM_TYPES)},
                "description": "One or more types; the first is the primary one.",
            },
            "possible_questions": {
                "type": "array",
                "items": {"type": "string"},
                "maxItems": MAX_QUESTIONS,
                "description": "Self-contained questions this memory answers.",
            },
            "asked_by_user": {
                "type": "boolean",
                "description": "true when the user asked you to remember it or to add it to "
                "a list; then it is saved as asked. Otherwise it follows the user's memory "
                "setting (it may wait for their review, or not be saved).",
            },
        },
        "required": ["statement"],
    },
)

MEMORY_UPDATE = ToolSpec(
    name=tool_names.MEMORY_UPDATE,
    description=(
        "Change an existing memory by its claim number (the #N on its memory line or in "
        "memory_list): 'complete' a goal or task, 'tick_off' a shopping item that was "
        "bought (both mark it done, kept as history), 'restore' a done item to its list "
        "or a retracted memory to the answers, "
        "'retract' a memory that is no longer true, or 'edit' it with a corrected "
        "statement (a new memory replaces it; the old version is kept as history)."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "claim_number": {"type": "integer", "minimum": 1},
            "action": {"type": "string", "enum": list(UPDATE_ACTIONS)},
            "statement": {
                "type": "string",
                "maxLength": MAX_STATEMENT_CHARS,
                "description": "The corrected statement; required for 'edit'.",
            },
            "note": {"type": "string", "description": "Why, in a few words (optional)."},
        },
        "required": ["claim_number", "action"],
    },
)

MEMORY_SEARCH = ToolSpec(
    name=tool_names.MEMORY_SEARCH,
    description=(
        "Search the user's saved memories (claims), indexed files and past chats, by meaning "
        "and by words, when what you were given does not answer the question. Project facts "
        "are not searched here: the relevant ones are already in your facts section. Only "
        "results close enough to the query come back, numbered [N] for citing."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in plain words."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_SEARCH_RESULTS,
                "default": SEARCH_DEFAULT,
            },
        },
        "required": ["query"],
    },
)

MEMORY_LIST = ToolSpec(
    name=tool_names.MEMORY_LIST,
    description=(
        "List every saved memory of one type, oldest first, each with its claim number #N "
        "(stable: use it with memory_update) and a source number [N] for citing: type "
        "'goal' for the user's goals, 'task' for their to-dos, 'shopping_item' for the "
        "shopping list, or any other memory type ('preference', 'fact' …). status "
        "'current' (the default) lists what is still open, 'done' what was completed or "
        "ticked off, 'pending' what waits for the user's review, 'retracted', 'superseded' "
        f"(older versions), 'any' every status. At most {MAX_LIST_ITEMS} items."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": list(CLAIM_TYPES)},
            "status": {"type": "string", "enum": list(LIST_STATUSES), "default": "current"},
        },
        "required": ["type"],
    },
)

READ_DOCUMENT = ToolSpec(
    name=tool_names.READ_DOCUMENT,
    description=(
        "Read more of a file or a past chat that a source points at: give the source number "
        "[N] of a file passage (the file is read from `offset`, 12,000 characters at a "
        "time) or of a past chat turn (that turn with the three turns before and after "
        "it), or a document id from a search result."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "source_number": {"type": "integer", "minimum": 1},
            "document_id": {"type": "string"},
            "offset": {"type": "integer", "minimum": 0, "default": 0},
        },
    },
)

MEMORY_TOOLS: tuple[ToolSpec, ...] = (
    MEMORY_ADD,
    MEMORY_UPDATE,
    MEMORY_SEARCH,
    MEMORY_LIST,
    READ_DOCUMENT,
)


@dataclass(frozen=True)
class MemoryUpdateInput:
    """One of ``memory_update``'s actions; each is checked by its own memory schema."""

    claim_number: int
    action: UpdateAction
    statement: str | None = None
    note: str = ""


@dataclass(frozen=True)
class ReadDocumentInput:
    source_number: int | None = None
    document_id: str | None = None
    offset: int = 0


ToolInput: TypeAlias = (
    MemoryAddInput | MemoryUpdateInput | MemorySearchInput | MemoryListInput | ReadDocumentInput
)


def parse_tool_input(call: ToolCall) -> ToolInput:
    """Validate a call's input into its typed form with the memory layer's schemas, or
    raise a ``MemoryRefusal`` naming the argument as the tool calls it."""
    try:
        return _parsed(call.name, call.input)
    except MemoryRefusal as refusal:
        raise as_tool_error(refusal) from None


def as_tool_error(refusal: MemoryRefusal) -> ToolInputError:
    """A refusal naming the argument as the tool calls it (``claim_number``, ``type``)."""
    if isinstance(refusal, ToolInputError):
        return refusal
    field = refusal.field
    for ours, theirs in FIELD_NAMES.items():
        if field == ours or field.startswith(f"{ours}["):
            field = theirs + field[len(ours) :]
    return ToolInputError(refusal.text, field)


def _parsed(name: str, data: Mapping[str, object]) -> ToolInput:
    if name == MEMORY_ADD.name:
        return parse(RememberInput, _given(data, RememberInput))
    if name == MEMORY_UPDATE.name:
        return _update(data)
    if name == MEMORY_SEARCH.name:
        return parse(SearchInput, {"limit": SEARCH_DEFAULT, **_given(data, SearchInput)})
    if name == MEMORY_LIST.name:
        given = {"claim_type": data.get("type"), "status": data.get("status")}
        return parse(ListInput, {"limit": MAX_LIST_ITEMS, **_present(given)})
    if name == READ_DOCUMENT.name:
        source = data.get("source_number")
        document_id = data.get("document_id") or None
        if (source is None) == (document_id is None):
            raise ToolInputError("Give exactly one of source_number or document_id.")
        if source is not None:
            source = parse(ClaimRef, {"number": source}).number
        offset = data.get("offset", 0)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ToolInputError("Must be a whole number ≥ 0.", "offset")
        return ReadDocumentInput(
            source_number=source,
            document_id=str(document_id) if document_id is not None else None,
            offset=offset,
        )
    raise ToolInputError(f"Unknown tool {name!r}.", "name")


def _update(data: Mapping[str, object]) -> MemoryUpdateInput:
    action = data.get("action")
    if action not in UPDATE_ACTIONS:
        raise ToolInputError(f"Must be one of {', '.join(UPDATE_ACTIONS)}.", "action")
    number = data.get("claim_number")
    if action == "edit":
        edit = parse(EditInput, {"number": number, "statement": data.get("statement")})
        return MemoryUpdateInput(edit.number, "edit", statement=edit.statement)
    if action in ("complete", "tick_off"):
        done = parse(
            CompleteInput, _present({"number": number, "action": action, "note": data.get("note")})
        )
        return MemoryUpdateInput(done.number, done.action, note=done.note)
    ref = parse(ClaimRef, {"number": number})
    return MemoryUpdateInput(ref.number, action)  # type: ignore[arg-type]  # checked above


def _given(data: Mapping[str, object], schema: type) -> dict[str, object]:
    """The call's arguments the schema knows (a model's stray extras are left out)."""
    known = {field.name for field in fields(schema)}
    return {key: value for key, value in data.items() if key in known and value is not None}


def _present(data: Mapping[str, object]) -> dict[str, object]:
    return {key: value for key, value in data.items() if value is not None}
