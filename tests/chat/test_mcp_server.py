"""The MCP server at /mcp/, driven by the official SDK's client over real HTTP against the
app served by uvicorn as `make run` serves it (issue 16)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from django.db import connection
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from apps.accounts.models import ApiToken, MemoryMode, User
from apps.accounts.services import api_token_create, api_token_revoke
from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_create
from apps.contexts.services import context_add_claims, context_create
from apps.facts.models import ProjectFact
from tests.factories import UserFactory
from tests.processes import SHARED_SITE_APP_NAME

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {
    "search_memory",
    "list_claims",
    "add_claim",
    "update_claim",
    "complete_claim",
    "retract_claim",
    "restore_claim",
    "resolve_references",
    "read_document",
    "get_facts",
    "set_fact",
}


@pytest.fixture
def site(site_port: int) -> str:
    return f"http://127.0.0.1:{site_port}/mcp/"


def session(url: str, key: str, work: Any) -> Any:
    """Run ``work(client)`` in one MCP session authenticated with ``key``."""

    async def run() -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return await work(client)

    return asyncio.run(run())


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if hasattr(block, "text"))


@pytest.fixture
def alice() -> tuple[User, str]:
    user = UserFactory(email="alice@example.com", memory_mode=MemoryMode.AUTO)
    morning = claim_create(user=user, statement="I prefer morning workouts")
    claim_create(user=user, statement="Buy oat milk", claim_types=["shopping_item"])
    claim_create(user=user, statement="Run a marathon in 2027", claim_types=["goal"])
    health = context_create(user=user, name="Health", friendly_id="health_context")
    context_add_claims(context=health, claims=[morning])
    _, key = api_token_create(user=user, name="claude desktop")
    return user, key


def test_a_client_lists_the_tools_with_schemas_and_searches(
    site: str, alice: tuple[User, str]
) -> None:
    _, key = alice

    async def work(client: Client) -> tuple[Any, Any]:
        return await client.list_tools(), await client.call_tool(
            "search_memory", {"query": "when do I like to train?", "kinds": ["claim"]}
        )

    tools, found = session(site, key, work)

    by_name = {tool.name: tool for tool in tools.tools}
    assert set(by_name) == TOOLS
    assert by_name["search_memory"].input_schema["properties"]["query"]["type"] == "string"
    assert by_name["complete_claim"].input_schema["required"] == ["number"]
    assert all(len(tool.description or "") > 40 for tool in tools.tools)
    assert not found.is_error
    assert text_of(found).startswith("[1] claim #1 @")
    assert "I prefer morning workouts" in text_of(found)


def test_each_tool_does_its_work_for_this_user(site: str, alice: tuple[User, str]) -> None:
    user, key = alice

    async def work(client: Client) -> dict[str, str]:
        calls = {
            "listed": ("list_claims", {"claim_type": "shopping_item"}),
            "added": (
                "add_claim",
                {"statement": "My sister is called Ada", "claim_types": ["relationship"]},
            ),
            "updated": ("update_claim", {"number": 2, "statement": "Buy oat milk and eggs"}),
            "completed": ("complete_claim", {"number": 3, "note": "finished in 4h"}),
            "retracted": ("retract_claim", {"number": 1}),
            "done": ("list_claims", {"claim_type": "goal", "status": "done"}),
            "resolved": ("resolve_references", {"text": "what about @health_context and #4?"}),
            "set": ("set_fact", {"key": "user.favorites.crypto.1", "value": "BTC"}),
            "facts": ("get_facts", {}),
        }
        results = {}
        for name, (tool, arguments) in calls.items():
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, (tool, text_of(result))
            results[name] = text_of(result)
        return results

    results = session(site, key, work)

    assert results["listed"].startswith("#2 @"), results
    assert "[shopping_item, active] Buy oat milk" in results["listed"]
    assert results["added"].startswith("Saved: #4 @")
    assert "Buy oat milk and eggs" in results["updated"]
    assert "[goal, done] Run a marathon in 2027" in results["completed"]
    assert "retracted" in results["retracted"]
    assert "Run a marathon in 2027" in results["done"]
    assert "#4 @" in results["resolved"]
    # update_claim edits as every door does: a new version, the old text kept as history
    assert Claim.objects.get(user=user, statement="Buy oat milk").status == "superseded"
    assert Claim.objects.get(user=user, statement="Buy oat milk and eggs").status == "active"
    assert results["set"] == "stored: user.favorites.crypto.1 = BTC"
    assert "user.favorites.crypto.1 = BTC" in results["facts"]
    assert Claim.objects.get(user=user, number=4).status == ClaimStatus.ACTIVE


def test_under_suggest_a_new_claim_waits_for_review(site: str, alice: tuple[User, str]) -> None:
    user, key = alice
    User.objects.filter(pk=user.pk).update(memory_mode=MemoryMode.SUGGEST)

    result = session(site, key, lambda c: c.call_tool("add_claim", {"statement": "I like tea"}))

    assert "waits for the user's review" in text_of(result)
    assert Claim.objects.get(user=user, statement="I like tea").status == ClaimStatus.PENDING


def test_another_users_numbers_and_documents_are_not_found(
    site: str, alice: tuple[User, str]
) -> None:
    _, key = alice
    bob = UserFactory(email="bob@example.com")
    claim_create(user=bob, statement="Bob's secret plan")  # Bob's #1 … #1 is Alice's too
    claim_create(user=bob, statement="Bob's second")
    claim_create(user=bob, statement="Bob's third")
    claim_create(user=bob, statement="Bob's fourth is only his")

    async def work(client: Client) -> list[Any]:
        return [
            await client.call_tool("retract_claim", {"number": 4}),
            await client.call_tool(
                "read_document", {"document_id": "00000000-0000-4000-8000-000000000000"}
            ),
            await client.call_tool("search_memory", {"query": "secret plan"}),
        ]

    retract, read, search = session(site, key, work)

    assert retract.is_error
    assert text_of(retract).endswith("There is no claim #4.")
    assert read.is_error
    assert "There is no document" in text_of(read)
    assert "Bob" not in text_of(search)


def test_malformed_arguments_are_tool_errors_not_server_errors(
    site: str, alice: tuple[User, str]
) -> None:
    _, key = alice

    async def work(client: Client) -> list[Any]:
        return [
            await client.call_tool("complete_claim", {"number": "seven"}),
            await client.call_tool("complete_claim", {"number": 2**40}),
            await client.call_tool("search_memory", {"query": ""}),
            await client.call_tool("add_claim", {"statement": "tea\x00time"}),
            await client.call_tool("list_claims", {"status": "everything"}),
            await client.call_tool("get_facts", {"project": "not-a-project"}),
        ]

    results = session(site, key, work)

    assert [result.is_error for result in results] == [True] * len(results)


def test_a_missing_or_revoked_token_is_refused(site: str, alice: tuple[User, str]) -> None:
    user, key = alice
    api_token_revoke(user=user, token_id=str(ApiToken.objects.get(user=user).pk))

    for headers in ({}, {"Authorization": f"Bearer {key}"}, {"Authorization": "Token nope"}):
        response = httpx2.post(
            site,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={**headers, "Accept": "application/json, text/event-stream"},
        )
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")


def test_a_claim_and_a_context_are_resources(site: str, alice: tuple[User, str]) -> None:
    _, key = alice

    async def work(client: Client) -> tuple[Any, Any, Any]:
        return (
            await client.list_resource_templates(),
            await client.read_resource("cairn://claims/1"),
            await client.read_resource("cairn://contexts/health_context"),
        )

    templates, claim, context = session(site, key, work)

    uris = {template.uri_template for template in templates.resource_templates}
    assert uris == {"cairn://claims/{number}", "cairn://contexts/{friendly_id}"}
    assert "I prefer morning workouts" in claim.contents[0].text
    assert "I prefer morning workouts" in context.contents[0].text


# Issue 29: MCP skipped the input guard. Each argument that cannot be stored is refused
# by name, the sentence alone (not the SDK's "Error executing tool X" of a crash), and
# nothing is written.
UNSTORABLE = [
    ("add_claim", {"statement": "tea\x00time"}, "statement"),
    ("add_claim", {"statement": "Tea", "possible_questions": ["why\x00"]}, "possible_questions[0]"),
    ("add_claim", {"statement": "Tea", "claim_types": '["fact\\u0000"]'}, "claim_types[0]"),
    ("update_claim", {"number": 2, "statement": "oat\x00milk"}, "statement"),
    ("complete_claim", {"number": 3, "note": "in 4h\x00"}, "note"),
    ("set_fact", {"key": "user.favorites.tea.1", "value": "Sencha\x00"}, "value"),
    ("set_fact", {"key": "user.\x00", "value": "Sencha"}, "key"),
    ("search_memory", {"query": "tea\x00"}, "query"),
    ("resolve_references", {"text": "@health\x00"}, "text"),
]


@pytest.mark.parametrize(("tool", "arguments", "field"), UNSTORABLE)
def test_arguments_that_cannot_be_stored_are_refused_by_name(
    site: str, alice: tuple[User, str], tool: str, arguments: dict[str, Any], field: str
) -> None:
    user, key = alice
    before = list(Claim.objects.filter(user=user).values_list("statement", "status"))

    result = session(site, key, lambda client: client.call_tool(tool, arguments))

    assert result.is_error
    assert text_of(result).startswith(f"{field}: Remove the NUL character"), text_of(result)
    assert "Error executing tool" not in text_of(result)
    assert list(Claim.objects.filter(user=user).values_list("statement", "status")) == before
    assert not ProjectFact.objects.exists()


def test_unpaired_surrogates_are_refused(site: str, alice: tuple[User, str]) -> None:
    """The SDK's JSON parser refuses a lone surrogate escape outright (a JSON-RPC parse
    error); one in JSON written inside a string, which the SDK decodes with Python's
    json, is refused by the argument's type, in the guard's words."""
    user, key = alice
    raw = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": '
        '"add_claim", "arguments": {"statement": "tea \\ud800"}}}'
    )

    response = httpx2.post(
        site,
        content=raw.encode(),
        headers={
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    inside = session(
        site,
        key,
        lambda client: client.call_tool(
            "add_claim", {"statement": "Tea", "possible_questions": '["why \\ud800?"]'}
        ),
    )

    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("Parse error")
    assert inside.is_error
    assert text_of(inside).startswith("possible_questions[0]: Remove the unpaired surrogate")
    assert Claim.objects.filter(user=user).count() == 3


WRONG_TYPES = [
    ("retract_claim", {"number": True}, "number: Must be a number, not true or false."),
    ("complete_claim", {"number": True}, "number: Must be a number, not true or false."),
    ("update_claim", {"number": False, "statement": "x"}, "number: Must be a number, not"),
    ("list_claims", {"limit": True}, "limit: Must be a number, not true or false."),
    ("read_document", {"document_id": "x", "offset": True}, "offset: Must be a number, not"),
    ("add_claim", {"statement": 5}, "statement: Input should be a valid string."),
    ("set_fact", {"key": "user.tea", "value": 42}, "value: Input should be a valid string."),
    ("search_memory", {"query": ["tea"]}, "query: Input should be a valid string."),
    ("complete_claim", {}, "number: Field required."),
]


@pytest.mark.parametrize(("tool", "arguments", "says"), WRONG_TYPES)
def test_arguments_are_typed_and_a_boolean_is_no_number(
    site: str, alice: tuple[User, str], tool: str, arguments: dict[str, Any], says: str
) -> None:
    """Issue 29: {"number": true} was claim #1, and retract_claim retracted it."""
    user, key = alice

    result = session(site, key, lambda client: client.call_tool(tool, arguments))

    assert result.is_error
    assert text_of(result).startswith(says), text_of(result)
    assert Claim.objects.get(user=user, number=1).status == ClaimStatus.ACTIVE
    assert not ProjectFact.objects.exists()


def test_a_tool_s_own_refusal_is_its_sentence(site: str, alice: tuple[User, str]) -> None:
    _, key = alice

    result = session(site, key, lambda c: c.call_tool("retract_claim", {"number": 99}))

    assert result.is_error
    assert text_of(result) == "number: There is no claim #99."


def _drop_the_sites_connections() -> int:
    """What a database restart does to the site: its connections are ended (only its
    own: the test process's threads keep theirs, which no request cycle would renew)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = %s",
            [SHARED_SITE_APP_NAME],
        )
        return int(cursor.fetchone()[0])


def test_the_tools_work_again_after_the_database_dropped_every_connection(
    site: str, alice: tuple[User, str]
) -> None:
    _, key = alice

    async def calls(client: Client) -> list[Any]:
        return [
            await client.call_tool("search_memory", {"query": "morning workouts"}),
            await client.call_tool("add_claim", {"statement": "I cycle to work"}),
        ]

    # Enough calls before the drop that the site's threads hold connections, if they keep
    # them; several after it, so that each thread that might have kept one is used.
    before = [result for _ in range(4) for result in session(site, key, calls)]
    assert _drop_the_sites_connections() > 0
    after = [result for _ in range(4) for result in session(site, key, calls)]

    for result in before + after:
        assert not result.is_error, text_of(result)
    assert "I prefer morning workouts" in text_of(after[-2])
