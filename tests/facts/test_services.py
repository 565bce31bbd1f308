"""Writing facts: stored / updated / unchanged with history, retraction, races, and
``facts_persist`` reading a user message into the project's facts."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from apps.accounts.models import User
from apps.chat.message_source import message_to_read
from apps.facts.extraction import MAX_EXTRACT_CHARS
from apps.facts.models import FactOrigin, ProjectFact
from apps.facts.services import (
    MAX_QUERY_CHARS,
    fact_retract,
    fact_store,
    facts_persist,
    facts_relevant,
    key_topic,
)
from apps.projects.models import Project
from tests.factories import ProjectFactory
from tests.facts.conftest import Say

pytestmark = pytest.mark.django_db


def current(project: Project) -> dict[str, str]:
    rows = ProjectFact.objects.filter(project=project, is_current=True)
    return {row.fact_key: row.value_text for row in rows}


# fact_store -------------------------------------------------------------------------------


def test_a_new_key_is_stored(project: Project) -> None:
    result = fact_store(project=project, key="user.favorites.crypto.1", value="BTC")

    assert result.outcome == "stored"
    fact = result.fact
    assert (fact.fact_key, fact.value_text, fact.value_type) == (
        "user.favorites.crypto.1",
        "BTC",
        "string",
    )
    assert fact.is_current
    assert fact.supersedes is None
    assert (fact.topic, fact.rank, fact.origin) == ("crypto", 1, FactOrigin.MANUAL)


def test_a_different_value_is_an_update_that_keeps_the_old_row(project: Project) -> None:
    first = fact_store(project=project, key="user.favorites.crypto.1", value="BTC").fact

    result = fact_store(project=project, key="user.favorites.crypto.1", value="ETH")

    assert result.outcome == "updated"
    assert result.fact.supersedes_id == first.pk
    first.refresh_from_db()
    assert not first.is_current
    assert first.retracted_at is None
    assert first.status == "superseded"
    assert current(project) == {"user.favorites.crypto.1": "ETH"}
    assert ProjectFact.objects.filter(project=project).count() == 2


@pytest.mark.parametrize(
    ("value_type", "first", "again"),
    [
        ("string", "BTC", "  BTC \n"),
        ("number", "1.50", "1.5"),
        ("number", "1e3", 1000),
        ("bool", "yes", True),
        ("date", "2025-03-03", "2025-03-03"),
        ("json", '{"b": 1, "a": [1, 2]}', {"a": [1, 2], "b": 1}),
    ],
)
def test_the_same_normalised_value_is_unchanged(
    project: Project, value_type: str, first: object, again: object
) -> None:
    stored = fact_store(project=project, key="k.v", value=first, value_type=value_type).fact

    result = fact_store(project=project, key="k.v", value=again, value_type=value_type)

    assert result.outcome == "unchanged"
    assert result.fact.pk == stored.pk
    assert ProjectFact.objects.filter(project=project).count() == 1


def test_case_and_type_changes_are_updates(project: Project) -> None:
    fact_store(project=project, key="user.favorites.crypto.1", value="btc")
    assert fact_store(project=project, key="user.favorites.crypto.1", value="BTC").outcome == (
        "updated"
    )
    fact_store(project=project, key="count", value="5")
    assert fact_store(project=project, key="count", value="5", value_type="number").outcome == (
        "updated"
    )


@pytest.mark.parametrize(
    ("value_type", "value", "stored"),
    [
        ("number", " 007 ", "7"),
        ("number", "-0.0", "0"),
        ("number", "1_000", "1000"),
        ("bool", "OFF", "false"),
        ("date", "2025-03-03", "2025-03-03"),
        ("json", "[1, 2, 3]", "[1,2,3]"),
        ("json", '{"ü": "日本"}', '{"ü":"日本"}'),
        ("string", "e\u0301t\u00e9", "\u00e9t\u00e9"),  # NFC
    ],
)
def test_values_are_normalised(project: Project, value_type: str, value: str, stored: str) -> None:
    fact = fact_store(project=project, key="k", value=value, value_type=value_type).fact
    assert fact.value_text == stored


@pytest.mark.parametrize(
    ("key", "value", "value_type", "field"),
    [
        ("", "x", "string", "key"),
        ("   ", "x", "string", "key"),
        ("has space", "x", "string", "key"),
        (".leading", "x", "string", "key"),
        ("a..b", "x", "string", "key"),
        ("k" * 501, "x", "string", "key"),
        ("user.favorites.crypto.999999999999", "x", "string", "key"),
        ("k", "", "string", "value"),
        ("k", "   ", "string", "value"),
        ("k", "x", "colour", "value_type"),
        ("k", "twelve", "number", "value"),
        ("k", "NaN", "number", "value"),
        ("k", "1e999", "number", "value"),
        ("k", "maybe", "bool", "value"),
        ("k", "03/03/2025", "date", "value"),
        ("k", "2025-02-30", "date", "value"),
        ("k", "{not json", "json", "value"),
        ("k", "NaN", "json", "value"),
        ("k", "x" * 10_001, "string", "value"),
    ],
)
def test_bad_input_is_refused_with_the_field_named(
    project: Project, key: str, value: str, value_type: str, field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        fact_store(project=project, key=key, value=value, value_type=value_type)

    assert field in caught.value.message_dict
    assert not ProjectFact.objects.filter(project=project).exists()


def test_keys_and_their_topics() -> None:
    assert key_topic("user.favorites.ice_cream_flavor.2") == ("ice_cream_flavor", 2)
    assert key_topic("user.email.work") == ("profile", None)
    assert key_topic("user.name") == ("profile", None)
    assert key_topic("user.dates.birthday") == ("dates", None)
    assert key_topic("quantities.budget") == ("quantities", None)
    assert key_topic("mentioned.url.https://a.io/x.y") == ("mentioned", None)
    assert key_topic("project.deadline") == ("project", None)


def test_projects_do_not_share_keys(project: Project, other_user: User) -> None:
    theirs = ProjectFactory(owner=other_user)
    fact_store(project=theirs, key="user.email", value="bob@example.com")

    assert fact_store(project=project, key="user.email", value="a@b.io").outcome == "stored"


def test_the_database_allows_one_current_row_per_key(project: Project) -> None:
    fact_store(project=project, key="user.email", value="a@b.io")

    with pytest.raises(IntegrityError), transaction.atomic():
        ProjectFact.objects.create(
            project=project, fact_key="user.email", value_text="c@d.io", origin="manual"
        )


# fact_retract -----------------------------------------------------------------------------


def test_retracting_keeps_the_row_and_its_value(project: Project) -> None:
    fact = fact_store(project=project, key="user.email", value="a@b.io").fact

    retracted = fact_retract(project=project, key="user.email")

    assert retracted is not None
    assert retracted.pk == fact.pk
    fact.refresh_from_db()
    assert not fact.is_current
    assert fact.retracted_at is not None
    assert fact.value_text == "a@b.io"
    assert fact.status == "retracted"
    assert current(project) == {}


def test_retracting_a_key_without_a_current_value_does_nothing(project: Project) -> None:
    assert fact_retract(project=project, key="user.email") is None
    fact_store(project=project, key="user.email", value="a@b.io")
    fact_retract(project=project, key="user.email")
    assert fact_retract(project=project, key="user.email") is None


def test_storing_after_a_retraction_continues_the_same_history(project: Project) -> None:
    first = fact_store(project=project, key="user.email", value="a@b.io").fact
    fact_retract(project=project, key="user.email")

    again = fact_store(project=project, key="user.email", value="a@b.io")

    assert again.outcome == "stored"
    assert again.fact.supersedes_id == first.pk
    assert current(project) == {"user.email": "a@b.io"}


def test_deleting_a_project_deletes_its_whole_history(project: Project) -> None:
    for value in ("BTC", "ETH", "XMR"):
        fact_store(project=project, key="user.favorites.crypto.1", value=value)
    fact_retract(project=project, key="user.favorites.crypto.1")

    project.delete()

    assert not ProjectFact.objects.exists()


# Races ------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_concurrent_writes_of_one_key_leave_one_linear_history(user: User) -> None:
    project = ProjectFactory(owner=user)
    values = [f"V{i}" for i in range(8)]
    start = threading.Barrier(len(values))
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def write(value: str) -> None:
        try:
            start.wait()
            outcomes.append(fact_store(project=project, key="k", value=value).outcome)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(v,)) for v in values]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert sorted(outcomes) == ["stored"] + ["updated"] * 7
    rows = list(ProjectFact.objects.filter(project=project))
    assert len(rows) == 8
    assert sum(row.is_current for row in rows) == 1
    # One chain: exactly one first row, and every other row supersedes a distinct row.
    assert sum(row.supersedes_id is None for row in rows) == 1
    assert len({row.supersedes_id for row in rows if row.supersedes_id}) == 7


# facts_persist ----------------------------------------------------------------------------


def test_a_user_message_stores_its_facts_linked_to_it(project: Project, say: Say) -> None:
    message = say("My favorite cryptos are BTC, ETH and XMR. My email is jane@example.com.")

    result = facts_persist(project=project, message=message_to_read(message))

    assert (result.stored, result.updated, result.unchanged) == (4, 0, 0)
    assert result.keys == (
        "user.favorites.crypto.1",
        "user.favorites.crypto.2",
        "user.favorites.crypto.3",
        "user.email",
    )
    rows = ProjectFact.objects.filter(project=project)
    assert {row.source_message_id for row in rows} == {message.pk}
    assert {row.origin for row in rows} == {FactOrigin.EXTRACTED}
    email = rows.get(fact_key="user.email")
    assert message.content[email.span_start : email.span_end] == "My email is jane@example.com"
    assert email.kind == "email"


def test_a_later_message_updates_and_restating_is_unchanged(project: Project, say: Say) -> None:
    facts_persist(
        project=project, message=message_to_read(say("My favorite cryptos are BTC, ETH and XMR."))
    )

    result = facts_persist(
        project=project, message=message_to_read(say("my #2 crypto is SOL and my #1 crypto is BTC"))
    )

    assert (result.stored, result.updated, result.unchanged) == (0, 1, 1)
    assert result.keys == ("user.favorites.crypto.2",)
    assert current(project)["user.favorites.crypto.2"] == "SOL"


def test_persisting_the_same_message_twice_changes_nothing(project: Project, say: Say) -> None:
    message = say("My favorite cryptos are BTC and ETH.")
    facts_persist(project=project, message=message_to_read(message))

    again = facts_persist(project=project, message=message_to_read(message))

    assert (again.stored, again.updated, again.unchanged, again.keys) == (0, 0, 2, ())
    assert ProjectFact.objects.filter(project=project).count() == 2


def test_assistant_messages_are_never_read(project: Project, say: Say) -> None:
    message = say("Your #1 crypto is BTC, and my email is bot@example.com.", role="assistant")

    with pytest.raises(ValueError, match="user messages"):
        facts_persist(project=project, message=message_to_read(message))
    assert not ProjectFact.objects.exists()


def test_a_message_of_another_project_is_refused(user: User, say: Say) -> None:
    elsewhere = ProjectFactory(owner=user, name="Elsewhere")

    with pytest.raises(ValueError, match="another project"):
        facts_persist(project=elsewhere, message=message_to_read(say("my email is a@b.io")))


def test_an_ambiguous_list_stores_nothing_and_names_the_candidates(
    project: Project, say: Say, user: User
) -> None:
    fact_store(project=project, key="user.favorites.crypto.1", value="BTC")
    fact_store(project=project, key="user.favorites.color.1", value="blue")
    message = say("my #2 is SOL, and my email is a@b.io")

    result = facts_persist(project=project, message=message_to_read(message))

    assert result.ambiguous_topics == ("color", "crypto")
    assert (result.stored, result.updated, result.keys) == (0, 0, ())
    assert result.rank_spans == ((3, 5),)
    assert set(current(project)) == {"user.favorites.crypto.1", "user.favorites.color.1"}

    answered = facts_persist(
        project=project, message=message_to_read(message), explicit_topic="crypto"
    )

    assert answered.keys == ("user.favorites.crypto.2", "user.email")


def test_the_conversation_s_last_list_resolves_an_implicit_topic(
    project: Project, say: Say
) -> None:
    fact_store(project=project, key="user.favorites.color.1", value="blue")
    facts_persist(project=project, message=message_to_read(say("My favorite crypto is BTC")))

    result = facts_persist(project=project, message=message_to_read(say("my #2 is ETH")))

    assert result.keys == ("user.favorites.crypto.2",)


def test_relative_dates_resolve_against_the_message_time(project: Project, say: Say) -> None:
    message = say("My exam is tomorrow.", at=datetime(2025, 6, 11, 10, 0, tzinfo=UTC))

    facts_persist(project=project, message=message_to_read(message))

    assert current(project) == {"user.dates.exam": "2025-06-12"}
    fact = ProjectFact.objects.get(project=project)
    assert fact.effective_at == message.created_at


def test_a_given_recent_topic_wins_over_the_conversation_s(project: Project, say: Say) -> None:
    fact_store(project=project, key="user.favorites.color.1", value="blue")
    facts_persist(project=project, message=message_to_read(say("My favorite crypto is BTC")))

    result = facts_persist(
        project=project, message=message_to_read(say("my #2 is red")), recent_topic="color"
    )

    assert result.keys == ("user.favorites.color.2",)


def test_chit_chat_stores_nothing_and_costs_no_query(
    project: Project, say: Say, django_assert_num_queries: Any
) -> None:
    message = say("thanks, that was helpful!")

    with django_assert_num_queries(0):
        result = facts_persist(project=project, message=message_to_read(message))

    assert (result.stored, result.updated, result.keys, result.ambiguous_topics) == (0, 0, (), ())


# Bad input --------------------------------------------------------------------------------


def test_a_100_kb_message_is_read_up_to_the_documented_limit(project: Project, say: Say) -> None:
    text = "My favorite crypto is XMR. " + "lorem ipsum dolor sit amet " * 4_000
    text += "my email is late@example.com"
    assert len(text) > 100_000 > MAX_EXTRACT_CHARS

    result = facts_persist(project=project, message=message_to_read(say(text)))

    assert result.truncated
    assert current(project) == {"user.favorites.crypto.1": "XMR"}


@pytest.mark.parametrize(
    "text",
    [
        "مرحبا! my #1 crypto is BTC 🚀",
        "my email is ありがとう@example.jp 🙏🏽",
        "שלום, I live in תל אביב",
        "👨‍👩‍👧‍👦" * 500,
        "\u202emy #1 crypto is ETH\u202c",
        "\x00 my #1 crypto is \x00 BTC",
        "my name is Zoë Ångström and my #1 colour is 青",
    ],
)
def test_unicode_emoji_and_rtl_never_crash(project: Project, say: Say, text: str) -> None:
    result = facts_persist(project=project, message=message_to_read(say(text.replace("\x00", ""))))

    assert result.stored == len(current(project))


# facts_relevant (Facts-R; seeds/001 §5.1.5 complained it over-counted) ---------------------


@pytest.fixture
def stocked(project: Project) -> Project:
    """A project holding a crypto list, a color list, an e-mail, a birthday and mentions."""
    for rank, value in enumerate(["BTC", "ETH", "XMR", "SOL", "ADA"], 1):
        fact_store(project=project, key=f"user.favorites.crypto.{rank}", value=value)
    for rank, value in enumerate(["blue", "green"], 1):
        fact_store(project=project, key=f"user.favorites.color.{rank}", value=value)
    fact_store(project=project, key="user.email", value="jane@example.com")
    fact_store(project=project, key="user.dates.birthday", value="1990-03-03", value_type="date")
    fact_store(project=project, key="mentioned.org.siemens", value="Siemens")
    return project


def relevant_keys(project: Project, query: str, **kwargs: object) -> tuple[list[str], int]:
    result = facts_relevant(project=project, query=query, **kwargs)  # type: ignore[arg-type]
    return [fact.fact_key for fact in result.facts], result.topic_count


def test_a_question_about_a_list_retrieves_the_whole_list_as_one_topic(stocked: Project) -> None:
    keys, count = relevant_keys(stocked, "What's my #1 favorite crypto?")

    assert keys == [f"user.favorites.crypto.{rank}" for rank in range(1, 6)]
    assert count == 1


@pytest.mark.parametrize(
    "query",
    [
        "What are my favorite things?",  # "favorite" alone names no list
        "what do you know?",  # stop words only
        "",
        "   ",
        "Tell me a joke about the weather in Lisbon",
        "#1 #2 #3 top 3 number one",  # rank phrases only
    ],
)
def test_questions_that_name_no_stored_topic_retrieve_nothing(stocked: Project, query: str) -> None:
    assert relevant_keys(stocked, query) == ([], 0)


def test_each_named_topic_counts_once(stocked: Project) -> None:
    keys, count = relevant_keys(stocked, "what's my email, my favorite colors and my birthday?")

    assert set(keys) == {
        "user.email",
        "user.favorites.color.1",
        "user.favorites.color.2",
        "user.dates.birthday",
    }
    assert count == 3


def test_a_value_named_in_the_question_brings_its_list(stocked: Project) -> None:
    keys, count = relevant_keys(stocked, "where does XMR rank for me?")

    assert keys == [f"user.favorites.crypto.{rank}" for rank in range(1, 6)]
    assert count == 1


def test_facts_the_message_just_stored_are_not_retrieved(project: Project, say: Say) -> None:
    message = say("My favorite cryptos are BTC, ETH and XMR. My email is jane@example.com.")
    facts_persist(project=project, message=message_to_read(message))

    assert relevant_keys(project, message.content, exclude_message=message) == ([], 0)
    # Without the exclusion the same turn would "retrieve" its own two topics.
    assert relevant_keys(project, message.content)[1] == 2


def test_facts_earlier_messages_stored_are_still_retrieved(project: Project, say: Say) -> None:
    facts_persist(
        project=project, message=message_to_read(say("My favorite cryptos are BTC, ETH and XMR."))
    )
    message = say("my #1 crypto is SOL now")
    facts_persist(project=project, message=message_to_read(message))

    keys, count = relevant_keys(project, message.content, exclude_message=message)

    assert keys == ["user.favorites.crypto.2", "user.favorites.crypto.3"]
    assert count == 1


def test_superseded_and_retracted_values_are_never_retrieved(stocked: Project) -> None:
    fact_store(project=stocked, key="user.email", value="new@example.com")
    fact_retract(project=stocked, key="user.dates.birthday")

    result = facts_relevant(project=stocked, query="my email and my birthday?")

    assert [(f.fact_key, f.value_text) for f in result.facts] == [("user.email", "new@example.com")]
    assert result.topic_count == 1


def test_another_project_s_facts_are_never_retrieved(stocked: Project, user: User) -> None:
    other = ProjectFactory(owner=user, name="Work")
    fact_store(project=other, key="user.favorites.pie.1", value="pecan")

    assert relevant_keys(stocked, "my favorite pie?") == ([], 0)
    assert relevant_keys(other, "my favorite crypto?") == ([], 0)


def test_a_huge_question_is_read_up_to_the_limit(stocked: Project) -> None:
    query = "what is my favorite crypto? " + "lorem ipsum " * 10_000 + " and my email?"
    assert len(query) > MAX_QUERY_CHARS

    keys, count = relevant_keys(stocked, query)

    assert count == 1
    assert all(key.startswith("user.favorites.crypto.") for key in keys)


@pytest.mark.parametrize("query", ["💸 my crypto? 🚀", "ما هو crypto المفضل لدي؟", "\u202ecrypto"])
def test_unicode_questions_never_crash(stocked: Project, query: str) -> None:
    assert facts_relevant(project=stocked, query=query).topic_count <= 1
