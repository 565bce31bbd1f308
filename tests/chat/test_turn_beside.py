"""A chat turn's independent parts run side by side (issue 31): the claims search and the
standing memory, facts and history on pool threads, the search of files and past chats on
the turn's own thread (so that its rankings run beside each other too). The turn prepared
so is the one prepared with every part in turn."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from apps.accounts.models import User
from apps.chat.pipeline import prepare
from apps.chat.pipeline.types import PreparedTurn, TurnRequest
from apps.chat.services import conversation_create, conversation_pin_claim
from apps.claims.services import claim_create
from apps.facts.models import ProjectFact
from apps.indexing import embeddings
from apps.indexing.services import message_index
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import (  # noqa: F401 - fixtures
    conversation_with,
    real_provider,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("real_provider")]

QUESTION = "How often should I water the basil on the balcony?"


def an_account(user: User) -> None:
    """Claims (one pinned), a fact and a past chat, all bearing on the question."""
    home = project_ensure_personal(user=user)
    claim_create(user=user, statement="The basil on the balcony needs water every morning")
    claim_create(user=user, statement="I keep my garden tools in the shed", pinned=True)
    claim_create(user=user, statement="Tomatoes grow best against the south wall")
    ProjectFact.objects.create(
        project=home, fact_key="user.garden.herb", value_text="basil", is_current=True
    )
    told(
        user,
        [
            ("user", "I moved the basil pots to the balcony last week"),
            ("assistant", "Balcony plants dry out faster in the wind."),
            ("user", "They wilt by the afternoon when it is sunny"),
        ],
    )


def told(user: User, turns: list[tuple[str, str]]) -> None:
    """A past chat of the user's personal project, indexed."""
    _, messages = conversation_with(user, project_ensure_personal(user=user), turns)
    for message in messages:
        message_index(message_id=message.pk)


def a_turn(user: User) -> tuple[PreparedTurn, dict[str, object]]:
    """The question asked in a conversation of its own, which is deleted afterwards (so the
    next turn searches the same account); what the page and the model would be given."""
    conversation = conversation_create(user=user)
    conversation_pin_claim(
        conversation=conversation, claim=user.claims.get(statement__startswith="Tomatoes")
    )
    prepared = prepare.prepare_turn(
        user=user, conversation=conversation, request=TurnRequest(text=QUESTION)
    )
    given = {
        "memory": [
            (item.claim.id, item.label, item.background, item.score) for item in prepared.memory
        ],
        "sources": list(prepared.registry.items()),
        "facts": prepared.fact_counts.retrieved,
        "history": [(turn.role, turn.content) for turn in prepared.history],
        "prompt": prepared.system_prompt,
    }
    conversation.delete()
    return prepared, given


def test_a_turn_prepared_side_by_side_is_the_turn_prepared_in_turn(
    user: User, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an account whose claims, facts and chats all bear on the question
    an_account(user)

    # When the turn is prepared with every part in turn, then side by side
    settings.CAIRN_BESIDE_THREADS = 0
    _, in_turn = a_turn(user)
    settings.CAIRN_BESIDE_THREADS = 4
    ran_on: dict[str, str] = {}
    for name in ("auto_claims", "_standing_facts_history", "relevant_chunks"):
        monkeypatch.setattr(prepare, name, recording(getattr(prepare, name), name, ran_on))
    _, side_by_side = a_turn(user)

    # Then the model and the page are given the same, and the parts ran where they should
    assert side_by_side == in_turn
    assert any(label == "AUTO" for _, label, _, _ in in_turn["memory"])  # type: ignore[attr-defined]
    assert any(source.kind == "message" for source in in_turn["sources"])  # type: ignore[attr-defined]
    assert ran_on["auto_claims"].startswith("cairn-beside")
    assert ran_on["_standing_facts_history"].startswith("cairn-beside")
    assert ran_on["relevant_chunks"] == threading.current_thread().name


def test_a_turn_that_fails_after_the_save_leaves_none_of_its_reads_running(
    user: User, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a claims search beside that is still under way when the search of files fails
    an_account(user)
    settings.CAIRN_BESIDE_THREADS = 4
    finished = threading.Event()
    search_claims = prepare.auto_claims

    def slow_claims(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)
        found = search_claims(*args, **kwargs)
        finished.set()
        return found

    def broken(**_: Any) -> Any:
        raise RuntimeError("the search broke")

    monkeypatch.setattr(prepare, "auto_claims", slow_claims)
    monkeypatch.setattr(prepare, "relevant_chunks", broken)
    conversation = conversation_create(user=user, title="Garden")

    # When the turn fails after the message was saved
    with pytest.raises(prepare.FailedAfterSave):
        prepare.prepare_turn(
            user=user, conversation=conversation, request=TurnRequest(text=QUESTION)
        )

    # Then the claims search beside had finished before the turn said so (the caller goes on
    # to write the failed answer: nothing of the turn still reads beside it)
    assert finished.is_set()


def recording(function: Any, name: str, ran_on: dict[str, str]) -> Any:
    def run(*args: Any, **kwargs: Any) -> Any:
        ran_on[name] = threading.current_thread().name
        return function(*args, **kwargs)

    return run


def test_a_turn_about_someone_runs_the_model_once(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question naming someone is embedded as asked and without the name in one run of
    the model, before the searches: the passages about her are compared with the second
    without the model running again, and are the ones a search embedding alone finds."""
    # Given an account that told of Ilse
    told(
        user,
        [
            ("user", "My old flatmate, Ilse, came round for tea."),
            ("user", "Ilse took the twins rock pooling on Saturday."),
            ("user", "The basil on the balcony wilts in the sun."),
        ],
    )
    question = "What does Ilse do with the twins?"
    provider = embeddings.get_embedding_provider()
    runs: list[object] = []
    for name in ("embed_query", "embed_queries"):
        original = getattr(provider, name)

        def counted(texts: Any, name: str = name, original: Any = original) -> Any:
            runs.append((name, texts))
            return original(texts)

        monkeypatch.setattr(provider, name, counted)

    # When a turn asks about her
    conversation = conversation_create(user=user)
    prepared = prepare.prepare_turn(
        user=user, conversation=conversation, request=TurnRequest(text=question)
    )

    # Then the model ran once, for both texts, and the turn cites what she did
    assert runs == [("embed_queries", [question, "What does do with the twins?"])]
    cited = [item.excerpt for item in prepared.registry.items()]
    assert "Ilse took the twins rock pooling on Saturday." in cited
