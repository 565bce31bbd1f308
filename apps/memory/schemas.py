"""One input schema per memory action (pydantic), shared by the in-chat tools, MCP and
REST: the bounds, the claim types and the words of a refusal are written here once.

Each door maps its own argument names onto these (the chat's ``claim_number`` and MCP's
``number`` are both ``number``) and calls ``parse``; a bad value becomes a
``MemoryRefusal`` naming the field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal, TypeAlias, TypeVar

from pydantic import BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass

from apps.claims.models import STATEMENT_MAX_LENGTH, ClaimStatus, ClaimType
from apps.core.validation import INT_MAX, SURROGATE_MESSAGE, not_a_boolean

from .errors import MemoryRefusal

# The claim types, from the model's choices: every door lists these and no others.
CLAIM_TYPES: tuple[str, ...] = tuple(ClaimType.values)
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
# "current" is what a list shows (active or contested); "any" is every status.
LIST_STATUSES: tuple[str, ...] = ("current", *ClaimStatus.values, "any")
ListStatus: TypeAlias = Literal[
    "current", "active", "contested", "pending", "retracted", "superseded", "done", "any"
]
SearchKind: TypeAlias = Literal["claim", "document", "message"]
SEARCH_KINDS: tuple[SearchKind, ...] = ("claim", "document", "message")

MAX_STATEMENT_CHARS = STATEMENT_MAX_LENGTH  # the claim's own bound, at every door
MAX_QUESTIONS = 20
MAX_QUESTION_CHARS = 500
MAX_TYPES = 10
MAX_NOTE_CHARS = 500
MAX_QUERY_CHARS = 2000
MAX_SEARCH_RESULTS = 50
MAX_LIST_ITEMS = 500
MAX_FACT_KEY_CHARS = 200
MAX_FACT_VALUE_CHARS = 2000


def claim_type_named(value: object) -> object:
    """A claim type from what a model or person calls it: "goals", "shopping list"."""
    if not isinstance(value, str):
        return value
    key = "_".join(value.lower().replace("-", " ").split())
    key = TYPE_ALIASES.get(key, key)
    if key not in CLAIM_TYPES and key.endswith("s") and key[:-1] in CLAIM_TYPES:
        key = key[:-1]
    if key not in CLAIM_TYPES:
        raise ValueError(f"Unknown claim type '{value}'; choose from {', '.join(CLAIM_TYPES)}.")
    return key


def claim_number_read(value: object) -> object:
    """A claim's number as people write it: 42, "42", "#42"; never true or false."""
    not_a_boolean(value)
    if isinstance(value, str) and value.strip().lstrip("#").isdecimal():
        return int(value.strip().lstrip("#"))
    return value


def one_or_many(value: object) -> object:
    """A lone string where a list is expected is a list of one (a sloppy model's call)."""
    return [value] if isinstance(value, str) else value


ClaimTypeName = Annotated[str, BeforeValidator(claim_type_named)]
ClaimNumber = Annotated[
    int, BeforeValidator(claim_number_read), Field(ge=1, le=INT_MAX, description="As in #12.")
]
Statement = Annotated[str, Field(min_length=1, max_length=MAX_STATEMENT_CHARS)]
Question = Annotated[str, Field(min_length=1, max_length=MAX_QUESTION_CHARS)]
Whole = BeforeValidator(not_a_boolean)
STRICT = ConfigDict(str_strip_whitespace=True, extra="forbid")


@dataclass(frozen=True, config=STRICT)
class RememberInput:
    statement: Statement
    claim_types: Annotated[
        tuple[ClaimTypeName, ...], BeforeValidator(one_or_many), Field(max_length=MAX_TYPES)
    ] = (ClaimType.FACT.value,)
    possible_questions: Annotated[
        tuple[Question, ...], BeforeValidator(one_or_many), Field(max_length=MAX_QUESTIONS)
    ] = ()
    # The user asked for it ("remember that …", "add eggs to my list"): their own act, so
    # the memory mode, which governs what Cairn keeps of its own accord, does not hold it.
    asked_by_user: bool = False


@dataclass(frozen=True, config=STRICT)
class ClaimRef:
    number: ClaimNumber


@dataclass(frozen=True, config=STRICT)
class EditInput:
    number: ClaimNumber
    statement: Statement


@dataclass(frozen=True, config=STRICT)
class CompleteInput:
    number: ClaimNumber
    action: Literal["complete", "tick_off"] = "complete"
    note: Annotated[str, Field(max_length=MAX_NOTE_CHARS)] = ""


@dataclass(frozen=True, config=STRICT)
class PinInput:
    number: ClaimNumber
    pinned: bool = True


@dataclass(frozen=True, config=STRICT)
class ListInput:
    claim_type: ClaimTypeName | None = None
    status: ListStatus = "current"
    limit: Annotated[int, Whole, Field(ge=1, le=MAX_LIST_ITEMS)] = 100


@dataclass(frozen=True, config=STRICT)
class SearchInput:
    query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
    kinds: Annotated[tuple[Literal["claim", "document", "message"], ...], Field(max_length=10)] = (
        SEARCH_KINDS
    )
    project: Annotated[str | None, Field(max_length=100)] = None
    limit: Annotated[int, Whole, Field(ge=1, le=MAX_SEARCH_RESULTS)] = 8
    # Also Cairn's own answers and bare questions, which are not evidence (issue 28).
    everything: bool = False


@dataclass(frozen=True, config=STRICT)
class ReadInput:
    document_id: Annotated[str, Field(min_length=1, max_length=200)]
    offset: Annotated[int, Whole, Field(ge=0, le=INT_MAX)] = 0


@dataclass(frozen=True, config=STRICT)
class FactsInput:
    project: Annotated[str | None, Field(max_length=100)] = None


@dataclass(frozen=True, config=STRICT)
class FactSetInput:
    key: Annotated[str, Field(min_length=1, max_length=MAX_FACT_KEY_CHARS)]
    value: Annotated[str, Field(min_length=1, max_length=MAX_FACT_VALUE_CHARS)]
    project: Annotated[str | None, Field(max_length=100)] = None


Input = TypeVar("Input")


def parse(schema: type[Input], data: Mapping[str, object]) -> Input:
    """``data`` validated into ``schema``, or the first problem as a ``MemoryRefusal``."""
    try:
        return TypeAdapter(schema).validate_python(dict(data))
    except ValidationError as error:
        raise refusal_of(error) from None


def refusal_of(error: ValidationError) -> MemoryRefusal:
    """Pydantic's first error as a refusal: the field as the input guard names it
    (``claim_types[0]``) and a sentence."""
    item = error.errors(include_url=False)[0]
    where = ""
    for part in item["loc"]:
        where = f"{where}[{part}]" if isinstance(part, int) else f"{where}.{part}".lstrip(".")
    cause = (item.get("ctx") or {}).get("error")
    if item["type"] == "string_unicode":
        text = SURROGATE_MESSAGE
    elif item["type"] == "value_error" and cause:
        text = str(cause)
    elif item["type"] == "missing":
        text = "This field is required."
    elif item["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
        text = "Unknown field."
    else:
        text = item["msg"]
    return MemoryRefusal(where or "arguments", f"{text.rstrip('.')}.")
