"""The memory tools Claude may call (DESIGN §7 step 9): schemas and typed inputs.

Only the contract lives here. The executor that touches the database belongs to the reply
pipeline: it receives a `ToolCall`, turns `call.input` into one of the typed inputs below
with `parse_tool_input` (a `ToolInputError` becomes an `is_error` result the model can
correct), does the work for the requesting user, registers what it found in the turn's
source registry and answers with a `ToolResult` naming those sources by `[N]`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from apps.chat.llm import tool_names
from apps.chat.llm.types import ToolCall, ToolSpec

CLAIM_TYPES = (
    "fact",
    "preference",
    "decision",
    "goal",
    "task",
    "shopping_item",
    "relationship",
    "belief",
    "observation",
    "other",
)
UPDATE_ACTIONS = ("complete", "tick_off", "restore", "retract", "edit")
UpdateAction: TypeAlias = Literal["complete", "tick_off", "restore", "retract", "edit"]
LIST_STATUSES = ("current", "done", "any")
ListStatus: TypeAlias = Literal["current", "done", "any"]
# What people (and models) call a type: "shopping list", "groceries", "goals", "to-do".
TYPE_ALIASES = {
    "shopping": "shopping_item",
    "shopping_list": "shopping_item",
    "grocery": "shopping_item",
    "groceries": "shopping_item",
    "grocery_list": "shopping_item",
    "todo": "task",
    "to_do": "task",
}
MAX_LIST_ITEMS = 100
MAX_STATEMENT_CHARS = 1000


class ToolInputError(ValueError):
    """The model's input does not fit the tool; the message is meant for the model."""


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
                "maxItems": 5,
                "description": "Self-contained questions this memory answers.",
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
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
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
        f"ticked off, 'any' both. At most {MAX_LIST_ITEMS} items."
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
class MemoryAddInput:
    statement: str
    claim_types: tuple[str, ...] = ("fact",)
    possible_questions: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemoryUpdateInput:
    claim_number: int
    action: UpdateAction
    statement: str | None = None
    note: str = ""


@dataclass(frozen=True)
class MemorySearchInput:
    query: str
    limit: int = 5


@dataclass(frozen=True)
class MemoryListInput:
    claim_type: str
    status: ListStatus = "current"


@dataclass(frozen=True)
class ReadDocumentInput:
    source_number: int | None = None
    document_id: str | None = None
    offset: int = 0


ToolInput: TypeAlias = (
    MemoryAddInput | MemoryUpdateInput | MemorySearchInput | MemoryListInput | ReadDocumentInput
)


def parse_tool_input(call: ToolCall) -> ToolInput:
    """Validate a call's input into its typed form, or raise `ToolInputError`."""
    data = call.input
    if call.name == MEMORY_ADD.name:
        types = _strings(data, "claim_types") or ("fact",)
        unknown = [t for t in types if t not in CLAIM_TYPES]
        if unknown:
            raise ToolInputError(f"Unknown claim type(s): {', '.join(unknown)}.")
        return MemoryAddInput(
            statement=_text(data, "statement", required=True, max_chars=MAX_STATEMENT_CHARS),
            claim_types=types,
            possible_questions=_strings(data, "possible_questions")[:5],
        )
    if call.name == MEMORY_UPDATE.name:
        action = _text(data, "action", required=True)
        if action not in UPDATE_ACTIONS:
            raise ToolInputError(f"action must be one of {', '.join(UPDATE_ACTIONS)}.")
        statement = _text(data, "statement", max_chars=MAX_STATEMENT_CHARS) or None
        if action == "edit" and statement is None:
            raise ToolInputError("'edit' needs the corrected statement.")
        return MemoryUpdateInput(
            claim_number=_integer(data, "claim_number", minimum=1),
            action=action,  # type: ignore[arg-type]  # checked against UPDATE_ACTIONS
            statement=statement,
            note=_text(data, "note"),
        )
    if call.name == MEMORY_SEARCH.name:
        limit = _integer(data, "limit", minimum=1) if "limit" in data else 5
        return MemorySearchInput(query=_text(data, "query", required=True), limit=min(limit, 20))
    if call.name == MEMORY_LIST.name:
        return MemoryListInput(
            claim_type=list_type(_text(data, "type", required=True)),
            status=_status(data),
        )
    if call.name == READ_DOCUMENT.name:
        source = _integer(data, "source_number", minimum=1) if "source_number" in data else None
        document_id = _text(data, "document_id") or None
        if (source is None) == (document_id is None):
            raise ToolInputError("Give exactly one of source_number or document_id.")
        offset = _integer(data, "offset", minimum=0) if "offset" in data else 0
        return ReadDocumentInput(source_number=source, document_id=document_id, offset=offset)
    raise ToolInputError(f"Unknown tool {call.name!r}.")


def list_type(value: str) -> str:
    """A claim type from what a model or person calls it: "goals", "shopping list"."""
    key = "_".join(value.lower().replace("-", " ").split())
    key = TYPE_ALIASES.get(key, key)
    if key not in CLAIM_TYPES and key.endswith("s") and key[:-1] in CLAIM_TYPES:
        key = key[:-1]
    if key not in CLAIM_TYPES:
        raise ToolInputError(f"type must be one of {', '.join(CLAIM_TYPES)}.")
    return key


def _status(data: Mapping[str, object]) -> ListStatus:
    status = _text(data, "status") or "current"
    if status not in LIST_STATUSES:
        raise ToolInputError(f"status must be one of {', '.join(LIST_STATUSES)}.")
    return status  # type: ignore[return-value]  # checked against LIST_STATUSES


def _text(
    data: Mapping[str, object], key: str, *, required: bool = False, max_chars: int = 0
) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ToolInputError(f"{key} must be a non-empty string.")
    value = value.strip()
    if max_chars and len(value) > max_chars:
        raise ToolInputError(f"{key} is longer than {max_chars} characters.")
    return value


def _integer(data: Mapping[str, object], key: str, *, minimum: int) -> int:
    value = data.get(key)
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        value = int(value.strip().lstrip("#"))  # "#42" or "42" from a sloppy call
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ToolInputError(f"{key} must be an integer ≥ {minimum}.")
    return value


def _strings(data: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise ToolInputError(f"{key} must be a list of strings.")
    return tuple(v.strip() for v in value if isinstance(v, str) and v.strip())
