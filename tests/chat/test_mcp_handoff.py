"""What an MCP client sees of a tool before calling it, what a read-only token may do, and
how what a client saves says where it came from (issue 30). The official SDK's client over
real HTTP against the site served by uvicorn, as in test_mcp_server."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from django.test import Client as PageClient
from django.urls import reverse
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ToolAnnotations
from rest_framework.test import APIClient

from apps.accounts.models import MemoryMode, TokenAccess, User
from apps.accounts.services import READ_ONLY_REFUSAL, api_token_create
from apps.chat.mcp.guard import GuardedMCPServer
from apps.claims.models import Claim, ClaimOrigin
from apps.claims.services import claim_create
from apps.facts.models import FactOrigin, ProjectFact
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

READ_TOOLS = {"search_memory", "list_claims", "resolve_references", "read_document", "get_facts"}
WRITE_TOOLS = {
    "add_claim",
    "update_claim",
    "complete_claim",
    "retract_claim",
    "restore_claim",
    "set_fact",
}


@pytest.fixture
def site(site_port: int) -> str:
    return f"http://127.0.0.1:{site_port}/mcp/"


def session(url: str, key: str, work: Any) -> Any:
    async def run() -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return await work(client)

    return asyncio.run(run())


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if hasattr(block, "text"))


@pytest.fixture
def alice() -> User:
    user: User = UserFactory(email="alice@example.com", memory_mode=MemoryMode.AUTO)
    claim_create(user=user, statement="Buy oat milk", claim_types=["shopping_item"])
    return user


def test_every_tool_carries_a_title_and_says_whether_it_writes(site: str, alice: User) -> None:
    _, key = api_token_create(user=alice, name="inspector")

    async def work(client: Client) -> Any:
        return await client.list_tools()

    tools = {tool.name: tool for tool in session(site, key, work).tools}

    assert set(tools) == READ_TOOLS | WRITE_TOOLS
    for name, tool in tools.items():
        hints = tool.annotations
        assert tool.title, name
        assert hints is not None, name
        assert hints.open_world_hint is False, name
        assert hints.read_only_hint is (name in READ_TOOLS), name
    assert tools["search_memory"].title == "Search memory"
    assert tools["retract_claim"].annotations.destructive_hint is True
    assert tools["add_claim"].annotations.destructive_hint is False
    assert tools["add_claim"].annotations.idempotent_hint is False  # a repeat reinforces
    assert tools["set_fact"].annotations.idempotent_hint is True  # the same value: no change


def test_a_read_only_token_reads_and_is_refused_every_write_in_words(
    site: str, alice: User
) -> None:
    _, key = api_token_create(user=alice, name="reader", access=TokenAccess.READ)

    async def work(client: Client) -> dict[str, Any]:
        return {
            "listed": await client.call_tool("list_claims", {"claim_type": "shopping_item"}),
            "added": await client.call_tool("add_claim", {"statement": "I like green tea"}),
            "retracted": await client.call_tool("retract_claim", {"number": 1}),
            "set": await client.call_tool("set_fact", {"key": "user.tea", "value": "green"}),
        }

    results = session(site, key, work)

    assert not results["listed"].is_error
    assert "Buy oat milk" in text_of(results["listed"])
    for name in ("added", "retracted", "set"):
        assert results[name].is_error, name
        assert text_of(results[name]) == READ_ONLY_REFUSAL
    assert list(Claim.objects.filter(user=alice).values_list("statement", "status")) == [
        ("Buy oat milk", "active")
    ]
    assert not ProjectFact.objects.exists()


def test_a_tool_that_does_not_say_whether_it_writes_cannot_be_added() -> None:
    server = GuardedMCPServer(name="test")

    async def tool() -> str:
        return "done"

    with pytest.raises(TypeError, match="must say whether it only reads"):
        server.add_tool(tool)
    with pytest.raises(TypeError):
        server.add_tool(tool, annotations=ToolAnnotations(title="no read-only hint"))


def test_what_a_client_adds_says_it_came_over_mcp_with_the_tokens_name(
    site: str, alice: User
) -> None:
    User.objects.filter(pk=alice.pk).update(memory_mode=MemoryMode.SUGGEST)
    _, key = api_token_create(user=alice, name="Claude Desktop")

    async def work(client: Client) -> None:
        for tool, arguments in (
            ("add_claim", {"statement": "My sister is called Ada"}),
            ("set_fact", {"key": "user.favorites.crypto.1", "value": "BTC"}),
        ):
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, text_of(result)

    session(site, key, work)

    claim = Claim.objects.get(user=alice, statement="My sister is called Ada")
    fact = ProjectFact.objects.get(fact_key="user.favorites.crypto.1")
    assert (claim.origin, claim.origin_token_name) == (ClaimOrigin.MCP, "Claude Desktop")
    assert (fact.origin, fact.origin_token_name) == (FactOrigin.MCP, "Claude Desktop")

    pages = PageClient()
    pages.force_login(alice)
    claim_page = pages.get(reverse("knowledge:claim", args=[claim.pk])).content.decode()
    pending = pages.get(reverse("knowledge:pending")).content.decode()
    facts = pages.get(reverse("facts:home")).content.decode()
    from_mcp = pages.get(reverse("knowledge:home"), {"origin": "mcp"}).content.decode()

    assert "Added over MCP (Claude Desktop)" in claim_page
    assert "Added over MCP (Claude Desktop)" in pending
    assert "claims your integrations added over MCP" in pending
    assert "added over MCP (Claude Desktop)" in facts
    assert "set by hand" not in facts
    assert "My sister is called Ada" in from_mcp
    assert "Buy oat milk" not in from_mcp

    api = APIClient()
    api.force_login(alice)
    listed = api.get("/api/v1/claims/", {"status": "pending"}).json()["results"]
    assert [(row["origin"], row["origin_token_name"]) for row in listed] == [
        ("mcp", "Claude Desktop")
    ]
