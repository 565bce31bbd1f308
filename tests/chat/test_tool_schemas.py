"""The memory tools' schemas and the typed inputs the executor works with."""

from __future__ import annotations

import pytest

from apps.chat.llm import ToolCall
from apps.chat.pipeline.tools.schemas import (
    MEMORY_TOOLS,
    MemoryAddInput,
    MemoryListInput,
    MemorySearchInput,
    MemoryUpdateInput,
    ReadDocumentInput,
    ToolInputError,
    parse_tool_input,
)
from apps.claims.models import ClaimType


def call(name: str, **data: object) -> ToolCall:
    return ToolCall(id="toolu_1", name=name, input=dict(data))


def test_every_tool_has_an_object_schema_with_its_required_fields_declared() -> None:
    assert [tool.name for tool in MEMORY_TOOLS] == [
        "memory_add",
        "memory_update",
        "memory_search",
        "memory_list",
        "read_document",
    ]
    for tool in MEMORY_TOOLS:
        schema = tool.input_schema
        assert schema["type"] == "object"
        properties = schema["properties"]
        assert isinstance(properties, dict)
        required = schema.get("required", [])
        assert isinstance(required, list)
        assert set(required) <= set(properties)


def test_inputs_are_parsed_into_typed_values() -> None:
    assert parse_tool_input(call("memory_add", statement=" I like tea ")) == MemoryAddInput(
        statement="I like tea"
    )
    assert parse_tool_input(
        call("memory_update", claim_number="#42", action="tick_off")
    ) == MemoryUpdateInput(claim_number=42, action="tick_off")
    # The bounds are the memory layer's, the same as MCP's search_memory
    assert parse_tool_input(call("memory_search", query="tea", limit=50)) == MemorySearchInput(
        query="tea", limit=50
    )
    assert parse_tool_input(call("memory_search", query="tea")) == MemorySearchInput(
        query="tea", limit=5
    )
    assert parse_tool_input(call("read_document", source_number=3)) == ReadDocumentInput(
        source_number=3
    )
    # memory_list takes a type as people say it: "shopping list", "Goals", "to-do"
    for said, meant in [("shopping list", "shopping_item"), ("Goals", "goal"), ("to-do", "task")]:
        assert parse_tool_input(call("memory_list", type=said)) == MemoryListInput(meant)
    assert parse_tool_input(call("memory_list", type="goal", status="done")) == MemoryListInput(
        "goal", "done"
    )
    # Claim types are the claims model's choices, listed once (apps/memory/schemas.py)
    assert MEMORY_TOOLS[0].input_schema["properties"]["claim_types"]["items"]["enum"] == list(
        ClaimType.values
    )


@pytest.mark.parametrize(
    ("name", "data", "problem"),
    [
        ("memory_add", {}, "statement: This field is required."),
        ("memory_add", {"statement": "x", "claim_types": ["gossip"]}, "claim_types[0]: Unknown"),
        ("memory_update", {"claim_number": 0, "action": "retract"}, "claim_number: "),
        ("memory_update", {"claim_number": 4, "action": "delete"}, "action: "),
        ("memory_update", {"claim_number": 4, "action": "edit"}, "statement: "),
        ("memory_search", {"query": "  "}, "query: "),
        ("memory_search", {"query": "tea", "limit": 51}, "limit: "),
        ("memory_list", {"type": "gossip"}, "type: Unknown claim type 'gossip'"),
        ("memory_list", {"type": "goal", "status": "forgotten"}, "status: "),
        ("read_document", {}, "exactly one"),
        ("read_document", {"source_number": 1, "document_id": "d"}, "exactly one"),
        ("web_search", {"q": "x"}, "Unknown tool"),
    ],
)
def test_bad_input_raises_an_error_meant_for_the_model(
    name: str, data: dict[str, object], problem: str
) -> None:
    with pytest.raises(ToolInputError) as refused:
        parse_tool_input(call(name, **data))
    assert problem in refused.value.sentence()
