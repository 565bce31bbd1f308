"""Evidence is what someone said or wrote (issue 28, failures 1, 2 and 9): the user's
statements and imported turns are sources, Cairn's own answers, the user's bare questions,
failed answers and the turns already in the conversation's history never are; chat sources
say who said what, and when (with the year when it is not this one), and are quoted
without another answer's [N] markers or footer — by every door."""

from __future__ import annotations

from typing import Any

import pytest

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.chat.pipeline.prepare import relevant_chunks
from apps.indexing.models import Chunk
from apps.indexing.search._evidence import is_bare_question
from apps.indexing.services import message_index
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import (  # noqa: F401 - fixtures
    conversation_with,
    real_provider,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider")]


@pytest.fixture
def home(user: User) -> Project:
    return project_ensure_personal(user=user)


QUESTION = "When is my dentist appointment?"


def _indexed(user: User, home: Project, turns: list[tuple[str, str]], **kw: Any) -> list[Message]:
    _, messages = conversation_with(user, home, turns, **kw)
    for message in messages:
        message_index(message_id=message.pk)
    return messages


def _imported(user: User, home: Project, turns: list[tuple[str, str]], when: str) -> list[Message]:
    """A ChatGPT conversation as an import stores it, said at ``when`` (ISO)."""
    conversation = Conversation.objects.create(
        user=user, project=home, title="Baking gear", external_source="chatgpt", external_id="c1"
    )
    messages = [
        Message.objects.create(conversation=conversation, role=role, content=content, order=n)
        for n, (role, content) in enumerate(turns, start=1)
    ]
    Message.objects.filter(conversation=conversation).update(created_at=when)
    for message in messages:
        message_index(message_id=message.pk)
    return messages


def test_evidence_is_what_someone_said_never_cairns_answer_or_a_bare_question(
    user: User, home: Project
) -> None:
    """Issue 28, failure 1: Cairn cited its own earlier reply and the user's question."""
    asked, answered, failed = _indexed(
        user,
        home,
        [
            ("user", QUESTION),
            ("assistant", "Your dentist appointment is on 3 May at 10:00 with Dr Ivić."),
            ("assistant", "Your dentist appointment is on 9 May, I think."),
        ],
        title="Appointments",
    )
    Message.objects.filter(pk=failed.pk).update(status=Message.Status.FAILED)
    (said,) = _indexed(user, home, [("user", "My dentist appointment is on 3 May with Dr Ivić.")])
    current_conversation, (recent, current) = conversation_with(
        user, home, [("user", "Dentist appointment: bring the X-rays."), ("user", QUESTION)]
    )
    message_index(message_id=recent.pk)

    hits = relevant_chunks(
        user=user, conversation=current_conversation, query=QUESTION, message=current
    )

    found = {hit.message_id for hit in hits}
    assert said.pk in found  # what the user said
    assert answered.pk not in found  # Cairn's own answer is no evidence
    assert asked.pk not in found  # nor a bare question
    assert failed.pk not in found  # nor an answer that failed
    assert recent.pk not in found  # already in the model's history
    (statement,) = [hit for hit in hits if hit.message_id == said.pk]
    assert statement.title.startswith("You, ")
    assert ": My dentist appointment is on 3 May" in statement.title


def test_every_door_applies_the_one_rule(user: User, home: Project, token_client: Any) -> None:
    """The memory_search tool, REST search and MCP search_memory find evidence only; REST
    and MCP find everything when asked to."""
    from apps.chat.mcp.memory import UserMemory
    from apps.chat.pipeline.sources import SourceRegistry
    from apps.chat.pipeline.tools.executor import TurnTools
    from apps.chat.pipeline.tools.schemas import MemorySearchInput

    asked, answered = _indexed(
        user,
        home,
        [
            ("user", "What is my monthly rent?"),
            ("assistant", "Your monthly rent is EUR 1,450 [1]."),
        ],
    )
    (said,) = _indexed(user, home, [("user", "Our monthly rent went up to EUR 1,450 in May.")])
    _, (question,) = conversation_with(user, home, [("user", "rent?")])
    tools = TurnTools(user=user, message=question, registry=SourceRegistry())

    tool_result = tools.memory_search(MemorySearchInput(query="monthly rent", limit=10))
    rest = token_client.get("/api/v1/search", {"q": "monthly rent"}).json()["results"]
    everything = token_client.get(
        "/api/v1/search", {"q": "monthly rent", "everything": "true"}
    ).json()["results"]
    mcp = UserMemory(user).search(query="monthly rent", kinds=[], project=None, limit=10)
    mcp_all = UserMemory(user).search(
        query="monthly rent", kinds=[], project=None, limit=10, everything=True
    )

    assert "went up to EUR 1,450" in tool_result
    assert "Your monthly rent is" not in tool_result
    assert "What is my" not in tool_result
    assert {hit["message_id"] for hit in rest} == {str(said.pk)}
    assert {str(asked.pk), str(answered.pk), str(said.pk)} <= {
        hit["message_id"] for hit in everything
    }
    assert str(said.pk) in mcp
    assert str(answered.pk) not in mcp
    assert str(asked.pk) not in mcp
    assert str(answered.pk) in mcp_all


def test_imported_turns_are_titled_by_who_wrote_them_with_the_year_and_quoted_without_markers(
    user: User, home: Project
) -> None:
    """Failures 2 and 9: ChatGPT's answer showed as "Cairn, 6 May" (no year), and quoted
    text kept the [N] markers of the answer it came from."""
    asked, answered = _imported(
        user,
        home,
        [
            ("user", "I bought a cast-iron bread pan today."),
            ("assistant", "A cast-iron bread pan holds heat well [2]; preheat it."),
        ],
        when="2024-05-06T09:00:00+00:00",
    )
    conversation, (current,) = conversation_with(user, home, [("user", "bread pan?")])

    hits = relevant_chunks(
        user=user, conversation=conversation, query="cast-iron bread pan", message=current
    )

    titles = {hit.message_id: hit.title for hit in hits}
    assert titles[asked.pk].startswith("You, 6 May 2024: I bought")
    assert titles[answered.pk].startswith("ChatGPT, 6 May 2024: A cast-iron")
    (answer,) = [hit for hit in hits if hit.message_id == answered.pk]
    assert "[2]" not in answer.text
    assert "[2]" not in answer.excerpt
    assert answer.text == "A cast-iron bread pan holds heat well; preheat it."


def test_earlier_answers_enter_the_prompt_without_their_markers_or_footer(
    user: User, home: Project
) -> None:
    from apps.chat.pipeline.prepare import history_turns
    from apps.chat.pipeline.sources import FOOTER_MARK

    _, (*_, current) = conversation_with(
        user,
        home,
        [
            ("user", "What is my rent?"),
            ("assistant", "Your rent is EUR 1,450 [2]." + FOOTER_MARK + "[2] lease.pdf"),
            ("user", "And the deposit?"),
        ],
    )

    turns = history_turns(conversation=current.conversation, message=current)

    assert [turn.content for turn in turns] == [
        "What is my rent?",
        "Your rent is EUR 1,450.",
        "And the deposit?",
    ]


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("When is my dentist appointment?", True),
        ("Where? And when?", True),
        ("I moved to Split. When is the ferry?", False),
        ("My #1 crypto is BTC.", False),
    ],
)
def test_a_bare_question_is_only_questions(text: str, bare: bool) -> None:
    assert is_bare_question(text) is bare


def test_a_saved_answer_is_indexed_without_its_sources_footer(user: User, home: Project) -> None:
    from apps.chat.pipeline.sources import FOOTER_MARK

    (answer,) = _indexed(
        user, home, [("assistant", "Mornings suit you [1]." + FOOTER_MARK + "[1] a claim")]
    )

    (chunk,) = Chunk.objects.filter(message=answer)
    assert chunk.text == "Mornings suit you [1]."


def test_a_clear_word_match_counts_whatever_its_cosine(
    user: User, home: Project, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Failure 8: a file that matched the question's words (BM25 6.6) was thrown away for
    its cosine (0.19). Here no cosine can pass (threshold 0.99): the clear word matches are
    still sources — by the turn, its claims and the memory_search tool — and a hit that
    shares only a common word with the question is not."""
    from apps.chat.pipeline.memory import auto_claims
    from apps.chat.pipeline.sources import SourceRegistry
    from apps.chat.pipeline.tools.executor import TurnTools
    from apps.chat.pipeline.tools.schemas import MemorySearchInput
    from apps.claims.services import claim_create
    from apps.indexing.search import hybrid_search

    with django_capture_on_commit_callbacks(execute=True):  # embedded, as by the worker
        claim_create(user=user, statement="Zebrafish Xyloquartz sits in the garage")
        claim_create(user=user, statement="The garage door is painted green")
    conversation, (question,) = conversation_with(user, home, [("user", "Xyloquartz?")])
    (said,) = _indexed(user, home, [("user", "The Xyloquartz was delivered on Monday.")])
    _indexed(user, home, [("user", "The garden shed is where the bikes are.")])
    query = "where is the Xyloquartz"

    hits = hybrid_search(user=user, query=query)
    assert all(hit.vector_similarity is not None for hit in hits)  # word-only ones too

    settings.CAIRN_CITE_THRESHOLD = 0.99
    tools = TurnTools(user=user, message=question, registry=SourceRegistry())
    assert [claim.statement for claim, _ in auto_claims(user, query, None)] == [
        "Zebrafish Xyloquartz sits in the garage"
    ]
    chunks = relevant_chunks(user=user, conversation=conversation, query=query, message=question)
    assert [hit.message_id for hit in chunks] == [said.pk]
    found = tools.memory_search(MemorySearchInput(query=query, limit=5))
    assert "Zebrafish Xyloquartz" in found
    assert "delivered on Monday" in found
    assert "garage door" not in found
    assert "garden shed" not in found

    settings.CAIRN_CITE_THRESHOLD = -1.0  # every meaning is close enough
    statements = [claim.statement for claim, _ in auto_claims(user, query, None)]
    assert "The garage door is painted green" in statements


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("media_root")
def test_a_file_found_by_its_words_answers_the_question(
    user: User, home: Project, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The issue's router.html, end to end through the REST turn with the offline provider."""
    from rest_framework.test import APIClient

    from apps.chat.services import conversation_create
    from apps.indexing.services import documents_upload
    from tests.indexing.conftest import upload

    settings.CAIRN_CITE_THRESHOLD = 0.99  # the cosine alone can never pass
    with django_capture_on_commit_callbacks(execute=True):
        documents_upload(
            project=home,
            files=[
                upload(
                    "router.html",
                    "<html><body><p>The router forwards DNS to the Pi-hole at 192.168.8.53; "
                    "the guest network is isolated.</p></body></html>",
                ),
                upload("bakery.md", "The address of the bakery is Ilica 5."),
            ],
        )
    client = APIClient()
    client.force_authenticate(user)
    conversation = conversation_create(user=user)

    answer = client.post(
        f"/api/v1/conversations/{conversation.pk}/messages/",
        {"text": "What is the IP address of the Pi-hole?"},
        format="json",
    ).json()["answer"]

    assert "192.168.8.53" in answer["content"]
    assert "bakery" not in answer["content"]


def test_an_imported_conversation_shows_who_wrote_each_turn_with_the_year(
    user: User, home: Project
) -> None:
    """Failure 9 on the page: ChatGPT's replies showed as "Cairn, 6 May"."""
    from django.test import Client
    from django.urls import reverse

    asked, answered = _imported(
        user,
        home,
        [("user", "I bought a bread pan."), ("assistant", "Preheat it well.")],
        when="2024-05-06T09:00:00+00:00",
    )
    client = Client()
    client.force_login(user)

    page = client.get(reverse("chat:conversation", args=[asked.conversation_id])).content.decode()

    assert f'id="who-{answered.pk}">ChatGPT</span>' in page
    assert f'id="who-{asked.pk}">You</span>' in page
    assert "6 May 2024, " in page


def test_an_evidence_search_reads_deeper_when_cairns_answers_crowd_the_first_reading(
    user: User, home: Project
) -> None:
    """A long chat about one thing: Cairn's answers match the question best and fill the
    first, deeper reading; the search reads deeper again rather than return fewer than
    ``k`` of the user's own statements while more are there."""
    from apps.indexing.search import evidence_search
    from apps.indexing.services import messages_index

    turns: list[tuple[str, str]] = []
    for n in range(40):
        turns.append(("assistant", f"Your cargo bike battery range is about {20 + n} km."))
    for n in range(12):
        turns.append(("user", f"Rode the cargo bike to the lake, stop {n}, battery fine."))
    _, messages = conversation_with(user, home, turns)
    messages_index(message_ids=[message.pk for message in messages])

    hits = evidence_search(user=user, query="cargo bike battery range", k=10)

    assert len(hits) == 10
    mine = {message.pk for message in messages if message.role == "user"}
    assert {hit.message_id for hit in hits} <= mine
