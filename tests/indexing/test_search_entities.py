"""A question about a person finds the turns about them (issue 31): the turns that name
them, the turns they said themselves in a transcript, and the turns that call them what
the user calls them once the user has said who is who — "what does Ilse do with her
kids" finds "my old flatmate took the twins rock pooling". Scoped to the user, gone with
the turn that said it, and forgotten with it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Message
from apps.indexing.models import Chunk, Mention
from apps.indexing.search import evidence_search, hybrid_search
from apps.indexing.search._engine import KINDS, hybrid_rankings
from apps.indexing.services import message_index, messages_index
from apps.indexing.services.reembed import embeddings_refresh
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import Committed, conversation_with

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider")]

WHO_IS_WHO = "My old flatmate, Ilse, came round for tea and stayed till midnight."
ROCK_POOLING = "My old flatmate took the twins rock pooling on Saturday."
LIFE = [
    WHO_IS_WHO,
    ROCK_POOLING,
    "Ilse started a new job at the council last week.",
    "Ilse's band has a gig above the pub on Friday.",
    "My flatmate took the dog to the vet this morning.",
    "Tomasz took his kids to the climbing wall and they loved it.",
    "The children next door spent all day on the trampoline.",
    "Can you suggest a fun day out with kids near the coast?",
]
QUESTION = "What does Ilse do with her kids?"


def told(user: User, project: Project, texts: list[str]) -> list[Message]:
    _, messages = conversation_with(user, project, [("user", text) for text in texts])
    messages_index(message_ids=[message.pk for message in messages])
    return messages


def about(user: User, query: str, **scope: object) -> list[str]:
    """The texts of the passages about whom ``query`` names, nearest first."""
    rankings = hybrid_rankings(
        user=user, query=query, kinds=KINDS, depth=30, **{"project": None, **scope}
    )  # type: ignore[arg-type]
    texts = dict(Chunk.objects.values_list("id", "text"))
    return [texts[candidate.id] for candidate in rankings.about]


def test_what_ilse_does_with_her_kids_is_what_my_old_flatmate_did(
    user: User, project: Project
) -> None:
    told(user, project, LIFE)

    hits = hybrid_search(user=user, query=QUESTION, kinds=["message"])

    assert hits[0].text == ROCK_POOLING
    found = about(user, QUESTION)
    assert found[0] == ROCK_POOLING  # nearest of the turns about Ilse
    assert set(found) == {WHO_IS_WHO, ROCK_POOLING, *LIFE[2:4]}  # not "my flatmate"


def test_a_transcript_turn_is_about_who_said_it(
    token_client: APIClient, committed: Committed
) -> None:
    """Two friends' chat imported as such sets are, each turn headed by its speaker: a
    question about Melanie in the third person finds what she said in the first."""
    turns = [
        ("user", "Melanie: I took the kids to a pottery class on Saturday, so much mess."),
        ("assistant", "Caroline: I took my kids to the climbing wall, they loved it."),
        ("user", "Melanie: Work has been relentless this week."),
        ("assistant", "Caroline: Tell me about it."),
        ("user", "Melanie: Thanks, Caroline!"),
        ("assistant", "Caroline: The kids are off school next week, send help."),
    ]
    with committed():
        response = token_client.post(
            "/api/v1/conversations/import/",
            {"title": "Melanie and Caroline", "messages": [
                {"role": role, "content": text} for role, text in turns
            ]},
            format="json",
        )  # fmt: skip
    assert response.status_code == 201, response.content
    pottery = response.json()["message_ids"][0]

    found = token_client.get(
        "/api/v1/search",
        {"q": "What activities does Melanie do with her kids?", "kinds": "message"},
    )

    assert found.status_code == 200
    assert found.json()["results"][0]["message_id"] == pottery


def test_who_is_who_is_the_users_own(user: User, other_user: User, project: Project) -> None:
    """Another user's "my old flatmate, Ilse" says nothing of this user's old flatmate,
    and their turns about an Ilse of their own are never among this user's."""
    told(user, project, LIFE[1:])  # never said who the old flatmate is
    told(other_user, project_ensure_personal(user=other_user), [WHO_IS_WHO, "Ilse is moving."])

    found = about(user, QUESTION)

    assert ROCK_POOLING not in found
    assert "Ilse is moving." not in found
    assert set(found) == set(LIFE[2:4])
    assert Mention.objects.filter(user_id=other_user.pk, key="ilse").exists()


def test_forgetting_the_turn_that_said_who_is_who_forgets_who_it_is(
    user: User, project: Project
) -> None:
    """A turn left out of search (a retracted claim's, or excluded by the caller) no
    longer tells who "my old flatmate" is; deleting it does the same for good."""
    introduction, rock_pooling, *_ = told(user, project, LIFE)

    assert ROCK_POOLING in about(user, QUESTION)
    assert ROCK_POOLING not in about(user, QUESTION, exclude_message_ids=[introduction.pk])
    hits = evidence_search(
        user=user, query=QUESTION, kinds=["message"], exclude_message_ids=[introduction.pk]
    )
    assert all(hit.message_id != introduction.pk for hit in hits)

    introduction.delete()

    assert not Mention.objects.filter(key="ilse", role="alias").exists()
    assert ROCK_POOLING not in about(user, QUESTION)
    assert Mention.objects.filter(chunk__message=rock_pooling, key="|old flatmate").exists()


def test_re_indexing_a_turn_keeps_one_set_of_its_names(user: User, project: Project) -> None:
    [introduction] = told(user, project, [WHO_IS_WHO])
    before = list(Mention.objects.filter(chunk__message=introduction).values("key", "role"))

    message_index(message_id=introduction.pk)
    message_index(message_id=introduction.pk)

    after = list(Mention.objects.filter(chunk__message=introduction).values("key", "role"))
    assert sorted(map(str, after)) == sorted(map(str, before))
    assert {"key": "ilse", "role": "alias"} in after


@pytest.mark.parametrize("exact_rows", [0, 12_000])
def test_the_passages_about_someone_are_the_same_by_the_index_or_one_by_one(
    user: User, project: Project, settings: Any, exact_rows: int
) -> None:
    """Past ``CAIRN_SEARCH_EXACT_ROWS_SMALL`` passages about a name, the HNSW index
    searches them; below, each is compared: the same passages either way."""
    told(user, project, LIFE)
    settings.CAIRN_SEARCH_EXACT_ROWS_SMALL = exact_rows

    found = about(user, QUESTION)

    assert found[0] == ROCK_POOLING
    assert set(found) == {WHO_IS_WHO, ROCK_POOLING, *LIFE[2:4]}


def test_a_capitalised_opening_word_is_not_taken_for_a_name(user: User, project: Project) -> None:
    """ "Tell" opens many a turn; no one is called Tell, so a question opening with it
    gathers nothing, and the search is as it would be without the mention index."""
    told(user, project, ["Tell the landlord about the leak.", "Spent the day painting.", *LIFE])

    assert about(user, "Tell me about the leak") == []
    # "Spent" opens a sentence here as in the user's turns: nothing says it is a name.
    assert about(user, "Spent money on what?") == []
    assert about(user, "what does ilse do with her kids") == []  # no capital, no name
    assert about(user, "What does Zebedee do with his kids?") == []  # no such person


def test_passages_indexed_before_mentions_get_them_from_reindex(
    user: User, project: Project
) -> None:
    told(user, project, LIFE)
    Mention.objects.all().delete()
    assert about(user, QUESTION) == []

    call_command("reindex", "--mentions", stdout=None)

    assert about(user, QUESTION)[0] == ROCK_POOLING


def test_the_model_reads_a_transcript_turn_without_its_speaker(
    user: User, project: Project, real_provider: object
) -> None:
    """Who speaks is the turn's speaker mention and stays in its words; the vector holds
    what was said, so that "Melanie: Thanks!" is not near every question about Melanie."""
    [turn] = told(user, project, ["Melanie: Thanks, Caroline!"])

    chunk = Chunk.objects.get(message=turn)

    assert chunk.text == "Melanie: Thanks, Caroline!"
    [expected] = real_provider.embed_documents(["Thanks, Caroline!"])  # type: ignore[attr-defined]
    assert float(expected @ chunk.embedding) > 0.999
    assert Mention.objects.filter(chunk=chunk, key="melanie", role="speaker").exists()
    # Embedded again after a model change, it is read the same way.
    Chunk.objects.filter(pk=chunk.pk).update(embedding_model="old-model")
    embeddings_refresh(provider=real_provider)  # type: ignore[arg-type]
    chunk.refresh_from_db()
    assert float(expected @ chunk.embedding) > 0.999


def test_a_speaker_called_will_is_found_by_name(user: User, project: Project) -> None:
    """A transcript's speaker whose name is an everyday word is a speaker like any other."""
    zoo = "Will: I took the kids to the zoo on Sunday."
    told(user, project, [zoo, "Ada: The kids are off school next week.", "I will call you."])

    assert about(user, "What does Will do with his kids?") == [zoo]
    assert about(user, "Will the kids enjoy the zoo?") == []


def _counting(monkeypatch: pytest.MonkeyPatch, provider: object) -> list[tuple[str, object]]:
    """Every run of ``provider``'s model for a query, from now on: (method, what it read)."""
    calls: list[tuple[str, object]] = []
    for name in ("embed_query", "embed_queries"):
        original = getattr(provider, name)

        def counted(texts: object, name: str = name, original: object = original) -> object:
            calls.append((name, texts))
            return original(texts)  # type: ignore[operator]

        monkeypatch.setattr(provider, name, counted)
    return calls


def test_a_question_naming_someone_runs_the_model_once(
    user: User, project: Project, real_provider: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question and the question without the names it asks about are embedded in one
    run of the model, and find what two runs found."""
    told(user, project, LIFE)
    asked = real_provider.embed_query(QUESTION)  # type: ignore[attr-defined]
    apart = hybrid_rankings(
        user=user, query=QUESTION, kinds=KINDS, depth=30, project=None, vector=asked
    )
    calls = _counting(monkeypatch, real_provider)

    together = hybrid_rankings(user=user, query=QUESTION, kinds=KINDS, depth=30, project=None)

    assert calls == [("embed_queries", [QUESTION, "What does do with her kids?"])]
    assert together.about
    assert [c.id for c in together.about] == [c.id for c in apart.about]
    assert [c.id for c in together.vector] == [c.id for c in apart.vector]


def test_a_name_the_user_never_wrote_is_kept_in_the_compared_question(
    user: User, project: Project, real_provider: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the names the user wrote of leave the question the passages about them are
    compared with; a guess that took out another is embedded again, without it."""
    told(user, project, LIFE)
    calls = _counting(monkeypatch, real_provider)

    found = about(user, "What does Ilse do with Zebedee?")

    assert found[0] in LIFE
    assert calls == [
        ("embed_queries", ["What does Ilse do with Zebedee?", "What does do with ?"]),
        ("embed_query", "What does do with Zebedee?"),
    ]
