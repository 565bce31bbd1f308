"""The memory actions' contract (DESIGN §10): each action, through every door that offers
it — the chat's tool (the turn's executor), MCP (the real SDK client against the running
site), REST (DRF), the pages (and the UI API of the chat page) — gives the same result,
the same refusal naming the field, and leaves the same rows."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

import httpx2
import pytest
from django.contrib.messages import get_messages
from django.test import Client as PageClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from rest_framework.test import APIClient

from apps.accounts.models import MemoryMode, User
from apps.accounts.services import api_token_create
from apps.chat.llm import ToolCall
from apps.chat.models import Message
from apps.chat.pipeline.sources import SourceRegistry
from apps.chat.pipeline.tools.executor import TurnTools
from apps.chat.services import conversation_create
from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_complete, claim_create, claim_retract
from apps.contexts.services import context_add_claims, context_create
from apps.facts.models import ProjectFact
from apps.memory.actions import MEMORY_OFF
from apps.projects.services import project_ensure_personal
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(site_port: int) -> str:
    return f"http://127.0.0.1:{site_port}/mcp/"


@dataclass
class Outcome:
    """What a door answered: done, or refused with ``{field: words}`` (a page's flash
    names no field: ``{"": words}``)."""

    text: str
    refused: dict[str, str] = field(default_factory=dict)
    data: Any = None

    @property
    def done(self) -> bool:
        return not self.refused


def _sentence(text: str) -> dict[str, str]:
    name, _, words = text.partition(": ")
    return {name: words}


def _first(words: Any) -> str:
    """The first message of a DRF field error (a list field's is keyed by item)."""
    while not isinstance(words, str):
        words = next(iter(words.values())) if isinstance(words, dict) else words[0]
    return words


class Doors:
    def __init__(self, user: User, site: str) -> None:
        self.user, self.site = user, site
        _, self.key = api_token_create(user=user, name="contract")
        self.rest_client = APIClient()
        self.rest_client.force_authenticate(user)
        self.page_client = PageClient()
        self.page_client.force_login(user)
        conversation = conversation_create(user=user)
        self.message = Message.objects.create(
            conversation=conversation, role="user", content="?", order=1
        )

    def chat(self, tool: str, arguments: dict[str, Any]) -> Outcome:
        tools = TurnTools(user=self.user, message=self.message, registry=SourceRegistry())
        result = tools.run(ToolCall(id="toolu_1", name=tool, input=arguments))
        return Outcome(result.content, _sentence(result.content) if result.is_error else {})

    def mcp(self, tool: str, arguments: dict[str, Any]) -> Outcome:
        async def run() -> Any:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.key}"}, timeout=60)
            async with Client(streamable_http_client(self.site, http_client=http)) as client:
                return await client.call_tool(tool, arguments)

        result = asyncio.run(run())
        text = "\n".join(block.text for block in result.content if hasattr(block, "text"))
        return Outcome(text, _sentence(text) if result.is_error else {})

    def _json(self, response: Any) -> Outcome:
        body = response.json() if response.content else None
        if response.status_code >= 400:
            return Outcome(str(body), {name: _first(words) for name, words in body.items()})
        return Outcome(str(body), data=body)

    def rest(self, method: str, url: str, data: dict[str, Any] | None = None) -> Outcome:
        return self._json(getattr(self.rest_client, method)(url, data or {}, format="json"))

    def ui(self, url: str, data: dict[str, Any]) -> Outcome:
        response = self.page_client.post(url, data, content_type="application/json")
        return self._json(response)

    def page(self, url: str, data: dict[str, Any]) -> Outcome:
        response = self.page_client.post(url, data)
        if response.status_code == 400:
            errors = response.context["form"].errors
            return Outcome(str(errors), {name: errors[name][0] for name in errors})
        assert response.status_code == 302, response.status_code
        said = list(get_messages(response.wsgi_request))
        text = " ".join(str(m) for m in said)
        failed = [m for m in said if m.level_tag == "error"]
        return Outcome(text, {"": str(failed[0])} if failed else {})


@pytest.fixture
def user() -> User:
    return UserFactory(email="contract@example.com", memory_mode=MemoryMode.AUTO)


@pytest.fixture
def doors(user: User, site: str) -> Doors:
    return Doors(user, site)


def rows(user: User) -> list[tuple[str, str]]:
    return [(c.statement, c.status) for c in Claim.objects.filter(user=user).order_by("created_at")]


def numbers(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"#(\d+)", text)}


# ---- remember -----------------------------------------------------------------------


def remember(doors: Doors, door: str, statement: str) -> Outcome:
    if door == "chat":
        return doors.chat("memory_add", {"statement": statement})
    return doors.mcp("add_claim", {"statement": statement})


@pytest.mark.parametrize("door", ["chat", "mcp"])
@pytest.mark.parametrize(
    ("mode", "kept"),
    [(MemoryMode.AUTO, "active"), (MemoryMode.SUGGEST, "pending"), (MemoryMode.OFF, None)],
)
def test_remember_follows_the_memory_mode(
    doors: Doors, user: User, door: str, mode: str, kept: str | None
) -> None:
    User.objects.filter(pk=user.pk).update(memory_mode=mode)
    doors.user.refresh_from_db()

    outcome = remember(doors, door, "I prefer morning workouts")

    if kept is None:
        assert outcome.refused == {"memory_mode": MEMORY_OFF}
        assert rows(user) == []
    else:
        assert outcome.done, outcome.text
        waits = "Saved (waits for the user's review in Cairn): #"
        assert outcome.text.startswith(waits) == (kept == "pending"), outcome.text
        assert rows(user) == [("I prefer morning workouts", kept)]


@pytest.mark.parametrize("door", ["chat", "mcp"])
def test_remember_refuses_an_empty_statement(doors: Doors, user: User, door: str) -> None:
    outcome = remember(doors, door, "")

    assert outcome.refused == {"statement": "String should have at least 1 character."}
    assert rows(user) == []


# ---- edit ---------------------------------------------------------------------------


def edit(doors: Doors, door: str, claim: Claim, statement: str) -> Outcome:
    if door == "chat":
        arguments = {"claim_number": claim.number, "action": "edit", "statement": statement}
        return doors.chat("memory_update", arguments)
    if door == "mcp":
        return doors.mcp("update_claim", {"number": claim.number, "statement": statement})
    if door == "rest":
        return doors.rest(
            "post", f"/api/v1/claims/{claim.number}/supersede/", {"statement": statement}
        )
    form = {
        "statement": statement,
        "claim_types": claim.claim_types,
        "contexts": [str(pk) for pk in claim.contexts.values_list("pk", flat=True)],  # as shown
        "save": "new_version",
    }
    return doors.page(f"/knowledge/claims/{claim.pk}/edit/", form)


EDIT_DOORS = ["chat", "mcp", "rest", "page"]


@pytest.mark.parametrize("door", EDIT_DOORS)
def test_edit_makes_a_new_version_and_keeps_the_old_as_history(
    doors: Doors, user: User, door: str
) -> None:
    old = claim_create(user=user, statement="The Marigold is blue")
    boats = context_create(user=user, name="Boats")
    context_add_claims(context=boats, claims=[old])

    outcome = edit(doors, door, old, "The Marigold is red")

    assert outcome.done, outcome.text
    assert rows(user) == [("The Marigold is blue", "superseded"), ("The Marigold is red", "active")]
    new = Claim.objects.get(user=user, status=ClaimStatus.ACTIVE)
    assert new.supersedes_id == old.pk
    assert list(new.contexts.all()) == [boats]  # its place in its contexts, at every door


@pytest.mark.parametrize("door", EDIT_DOORS)
def test_edit_refuses_an_empty_statement(doors: Doors, user: User, door: str) -> None:
    old = claim_create(user=user, statement="The Marigold is blue")

    outcome = edit(doors, door, old, "")

    assert set(outcome.refused) == {"statement"}, outcome.text
    assert rows(user) == [("The Marigold is blue", "active")]


# ---- complete, restore, retract -----------------------------------------------------


def complete(doors: Doors, door: str, claim: Claim) -> Outcome:
    if door == "chat":
        return doors.chat("memory_update", {"claim_number": claim.number, "action": "complete"})
    if door == "mcp":
        return doors.mcp("complete_claim", {"number": claim.number})
    if door == "rest":
        return doors.rest("post", f"/api/v1/claims/{claim.number}/done/")
    return doors.page(f"/knowledge/lists/{claim.pk}/", {"action": "done"})


def restore(doors: Doors, door: str, claim: Claim) -> Outcome:
    if door == "chat":
        return doors.chat("memory_update", {"claim_number": claim.number, "action": "restore"})
    if door == "mcp":
        return doors.mcp("restore_claim", {"number": claim.number})
    if door == "rest":
        return doors.rest("post", f"/api/v1/claims/{claim.number}/restore/")
    return doors.page(f"/knowledge/claims/{claim.pk}/restore/", {})


def retract(doors: Doors, door: str, claim: Claim) -> Outcome:
    if door == "chat":
        return doors.chat("memory_update", {"claim_number": claim.number, "action": "retract"})
    if door == "mcp":
        return doors.mcp("retract_claim", {"number": claim.number})
    if door == "rest":
        return doors.rest("post", f"/api/v1/claims/{claim.number}/retract/")
    return doors.page(f"/knowledge/claims/{claim.pk}/retract/", {})


ALL_DOORS = ["chat", "mcp", "rest", "page"]


def refusal_words(outcome: Outcome) -> str:
    """The words of a refusal, whichever door: a page's flash names no field."""
    assert len(outcome.refused) == 1, outcome.text
    ((name, words),) = outcome.refused.items()
    assert name in ("status", ""), outcome.refused
    return words


@pytest.mark.parametrize("door", ALL_DOORS)
def test_complete_marks_done_and_refuses_twice(doors: Doors, user: User, door: str) -> None:
    goal = claim_create(user=user, statement="Run a marathon", claim_types=["goal"])

    first = complete(doors, door, goal)
    again = complete(doors, door, goal)

    assert first.done, first.text
    assert rows(user) == [("Run a marathon", "done")]
    assert refusal_words(again) == f"#{goal.number} is already done."


@pytest.mark.parametrize("door", ALL_DOORS)
def test_restore_brings_back_and_refuses_what_is_current(
    doors: Doors, user: User, door: str
) -> None:
    wrong = claim_create(user=user, statement="I live in Graz")
    claim_retract(claim=wrong)
    milk = claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])
    claim_complete(claim=milk, action="tick_off")
    current = claim_create(user=user, statement="I like tea")

    restored = restore(doors, door, wrong)
    back = restore(doors, door, milk)
    refused = restore(doors, door, current)

    assert restored.done, restored.text
    assert back.done, back.text
    assert rows(user) == [
        ("I live in Graz", "active"),
        ("Oat milk", "active"),
        ("I like tea", "active"),
    ]
    assert refusal_words(refused) == f"#{current.number} is active, not done (nor retracted)."


@pytest.mark.parametrize("door", ALL_DOORS)
def test_retract_takes_a_claim_out_of_the_answers(doors: Doors, user: User, door: str) -> None:
    wrong = claim_create(user=user, statement="I live in Graz", pinned=True)

    outcome = retract(doors, door, wrong)

    assert outcome.done, outcome.text
    wrong.refresh_from_db()
    assert (wrong.status, wrong.pinned) == (ClaimStatus.RETRACTED, False)


# ---- pin ----------------------------------------------------------------------------


def pin(doors: Doors, door: str, claim: Claim, pinned: bool) -> Outcome:
    if door == "rest":
        return doors.rest("post", f"/api/v1/claims/{claim.number}/{'pin' if pinned else 'unpin'}/")
    if door == "ui":
        return doors.ui(f"/api/ui/claims/{claim.pk}/pin", {"pinned": pinned})
    return doors.page(f"/knowledge/claims/{claim.pk}/pin/", {"pinned": "on"} if pinned else {})


@pytest.mark.parametrize("door", ["rest", "ui", "page"])
def test_pin_and_unpin(doors: Doors, user: User, door: str) -> None:
    tea = claim_create(user=user, statement="I like tea")

    pinned = pin(doors, door, tea, True)
    tea.refresh_from_db()
    was = tea.pinned
    unpinned = pin(doors, door, tea, False)
    tea.refresh_from_db()

    assert pinned.done, pinned.text
    assert unpinned.done, unpinned.text
    assert (was, tea.pinned) == (True, False)


# ---- list ---------------------------------------------------------------------------


def listed(doors: Doors, door: str, claim_type: str, status: str) -> Outcome:
    if door == "chat":
        return doors.chat("memory_list", {"type": claim_type, "status": status})
    if door == "mcp":
        return doors.mcp("list_claims", {"claim_type": claim_type, "status": status})
    outcome = doors.rest("get", f"/api/v1/claims/?claim_type={claim_type}&status={status}")
    if outcome.done:
        outcome.text = " ".join(f"#{item['number']}" for item in outcome.data["results"])
    return outcome


# What each door calls the claim type it lists.
TYPE_FIELD = {"chat": "type", "mcp": "claim_type", "rest": "claim_type"}


@pytest.mark.parametrize("door", ["chat", "mcp", "rest"])
def test_list_gives_the_same_claims_and_refuses_an_unknown_type(
    doors: Doors, user: User, door: str
) -> None:
    claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])
    eggs = claim_create(user=user, statement="Eggs", claim_types=["shopping_item"])
    claim_complete(claim=eggs, action="tick_off")
    claim_create(user=user, statement="Eggs are in the fridge")

    done = listed(doors, door, "shopping_item", "done")
    unknown = listed(doors, door, "gossip", "done")

    assert numbers(done.text) == {eggs.number}, done.text
    assert set(unknown.refused) == {TYPE_FIELD[door]}, unknown.text


# ---- search and read ----------------------------------------------------------------


def search(doors: Doors, door: str, query: str) -> Outcome:
    if door == "chat":
        return doors.chat("memory_search", {"query": query})
    return doors.mcp("search_memory", {"query": query})


@pytest.mark.parametrize("door", ["chat", "mcp"])
def test_search_finds_what_is_relevant_and_only_that(doors: Doors, user: User, door: str) -> None:
    workouts = claim_create(user=user, statement="I prefer morning workouts, before 7am")
    claim_create(user=user, statement="My cat is called Miso")

    found = search(doors, door, "morning workouts")
    nothing = search(doors, door, "zeppelin harmonica quartz")
    empty = search(doors, door, "  ")

    assert workouts.number in numbers(found.text), found.text
    assert "Miso" not in found.text  # under the cite threshold at every door
    assert nothing.text == "Nothing in memory matches."
    assert set(empty.refused) == {"query"}


@pytest.mark.parametrize("door", ["chat", "mcp"])
def test_read_refuses_a_document_that_is_not_the_users(doors: Doors, door: str) -> None:
    missing = "00000000-0000-4000-8000-000000000000"

    outcome = (doors.chat if door == "chat" else doors.mcp)(
        "read_document", {"document_id": missing}
    )

    assert outcome.refused == {"document_id": f"There is no document {missing}."}


# ---- facts --------------------------------------------------------------------------


def fact_set(doors: Doors, door: str, key: str, value: str) -> Outcome:
    if door == "mcp":
        return doors.mcp("set_fact", {"key": key, "value": value})
    project = project_ensure_personal(user=doors.user)
    return doors.rest("post", f"/api/v1/projects/{project.pk}/facts/", {"key": key, "value": value})


def facts_get(doors: Doors, door: str) -> str:
    if door == "mcp":
        return doors.mcp("get_facts", {}).text
    project = project_ensure_personal(user=doors.user)
    found = doors.rest("get", f"/api/v1/projects/{project.pk}/facts/").data["results"]
    return "\n".join(f"{fact['key']} = {fact['value']}" for fact in found)


@pytest.mark.parametrize("door", ["mcp", "rest"])
def test_a_fact_set_twice_keeps_its_history(doors: Doors, user: User, door: str) -> None:
    first = fact_set(doors, door, "user.tea", "green")
    second = fact_set(doors, door, "user.tea", "black")
    empty = fact_set(doors, door, "", "black")

    assert first.done, first.text
    assert second.done, second.text
    assert set(empty.refused) == {"key"}, empty.text
    stored = ProjectFact.objects.filter(project__owner=user).order_by("effective_at", "pk")
    # The same rows, each saying which door it came through ("added over MCP (token)").
    origin = {"mcp": "mcp", "rest": "api"}[door]
    assert [(f.value_text, f.is_current, f.origin) for f in stored] == [
        ("green", False, origin),
        ("black", True, origin),
    ]
    assert facts_get(doors, door) == "user.tea = black"


# ---- the JSON APIs' one error shape -------------------------------------------------


def test_an_unknown_query_parameter_is_refused_by_name(doors: Doors, user: User) -> None:
    claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])

    outcome = doors.rest("get", "/api/v1/claims/?search=oat")
    # Every list pages through one paginator, which refuses what its view does not read
    tags = doors.rest("get", "/api/v1/tags/?name=oat&limit=5")
    conversations = doors.rest("get", "/api/v1/conversations/?archived=all&q=oat&limit=5")

    assert set(outcome.refused) == {"search"}
    assert "q" in outcome.refused["search"]
    assert set(tags.refused) == {"name"}
    assert conversations.done, conversations.text


def test_both_json_apis_answer_a_bad_value_with_400_naming_the_field(doors: Doors) -> None:
    rest = doors.rest_client.post("/api/v1/claims/", {"statement": ""}, format="json")
    ui = doors.page_client.post(
        "/api/ui/conversations", {"title": "x" * 201}, content_type="application/json"
    )

    assert (rest.status_code, list(rest.json())) == (400, ["statement"])
    assert (ui.status_code, list(ui.json())) == (400, ["title"])
    assert all(isinstance(words, list) for words in (*rest.json().values(), *ui.json().values()))
