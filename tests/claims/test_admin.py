"""The admin as each user's claim editor: scoped, written through the services, and
showing every refusal as a form error."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimStatus, Entity, Tag
from apps.contexts.models import Context
from tests.factories import UserFactory
from tests.knowledge_factories import ClaimFactory, ContextFactory, EntityFactory, TagFactory

CHANGELIST = reverse("admin:claims_claim_changelist")
ADD = reverse("admin:claims_claim_add")


def change_url(claim: Claim) -> str:
    return reverse("admin:claims_claim_change", args=[claim.pk])


def add_data(**overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "statement": "I prefer green tea in the morning",
        "claim_types": ["preference"],
        "domains": ["health"],
        "status": "active",
        "possible_questions": "What do I drink in the morning?\n\nWhich tea do I like?",
        "confidence": "1.0",
        "metadata": "{}",
        "friendly_id": "",
    }
    data.update(overrides)
    return data


def edit_data(claim: Claim, **overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "statement": claim.statement,
        "friendly_id": claim.friendly_id,
        "claim_types": claim.claim_types,
        "domains": claim.domains,
        "status": claim.status,
        "possible_questions": "\n".join(claim.possible_questions),
        "confidence": str(claim.confidence),
        "metadata": "{}",
    }
    if claim.pinned:
        data["pinned"] = "on"
    data.update(overrides)
    return data


@pytest.fixture
def editor(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


# Scoping ------------------------------------------------------------------------------------


def test_an_ordinary_user_opens_the_admin_and_sees_only_their_claims(
    editor: Client, user: User, other_user: User
) -> None:
    assert not user.is_staff
    ClaimFactory(user=user, statement="Alice likes hiking")
    ClaimFactory(user=other_user, statement="Bob likes sailing")

    index = editor.get(reverse("admin:index"))
    listing = editor.get(CHANGELIST)

    assert index.status_code == 200
    assert listing.status_code == 200
    assert "Alice likes hiking" in listing.text
    assert "Bob likes sailing" not in listing.text


def test_another_users_claim_cannot_be_seen_changed_or_deleted(
    editor: Client, other_user: User
) -> None:
    theirs = ClaimFactory(user=other_user, statement="Bob's secret")
    delete_url = reverse("admin:claims_claim_delete", args=[theirs.pk])

    assert editor.get(change_url(theirs)).status_code == 404
    assert editor.post(change_url(theirs), edit_data(theirs, statement="hacked")).status_code == 404
    assert editor.post(delete_url, {"post": "yes"}).status_code == 404
    history_url = reverse("admin:claims_claim_history", args=[theirs.pk])
    assert editor.get(history_url).status_code == 404
    theirs.refresh_from_db()
    assert theirs.statement == "Bob's secret"


def test_a_bulk_action_cannot_reach_another_users_claim(editor: Client, other_user: User) -> None:
    theirs = ClaimFactory(user=other_user)

    editor.post(CHANGELIST, {"action": "pin_claims", "_selected_action": [theirs.pk], "index": 0})

    theirs.refresh_from_db()
    assert theirs.pinned is False


def test_a_superuser_sees_every_users_claims(client: Client, user: User, other_user: User) -> None:
    ClaimFactory(user=user, statement="Alice likes hiking")
    ClaimFactory(user=other_user, statement="Bob likes sailing")
    client.force_login(UserFactory(is_superuser=True, is_staff=True))

    listing = client.get(CHANGELIST)

    assert "Alice likes hiking" in listing.text
    assert "Bob likes sailing" in listing.text


def test_autocomplete_answers_only_with_ones_own_rows(
    editor: Client, user: User, other_user: User
) -> None:
    mine = ClaimFactory(user=user, statement="Tea is my morning drink")
    ClaimFactory(user=other_user, statement="Tea is Bob's drink")
    own_context = ContextFactory(user=user, name="Tea corner")
    ContextFactory(user=other_user, name="Tea house")

    def ids(model_name: str, field_name: str, app_label: str = "claims") -> set[str]:
        response = editor.get(
            reverse("admin:autocomplete"),
            {
                "app_label": app_label,
                "model_name": model_name,
                "field_name": field_name,
                "term": "tea",
            },
        )
        assert response.status_code == 200
        return {row["id"] for row in response.json()["results"]}

    assert ids("claim", "supersedes") == {str(mine.pk)}
    assert ids("tag", "claims") == {str(mine.pk)}
    assert ids("context", "claims", app_label="contexts") == {str(mine.pk)}
    assert ids("context", "parent", app_label="contexts") == {str(own_context.pk)}


def test_context_and_tag_choices_on_the_claim_form_are_ones_own(
    editor: Client, user: User, other_user: User
) -> None:
    ContextFactory(user=user, name="My garden")
    ContextFactory(user=other_user, name="Bob's boat")
    TagFactory(user=user, name="mine-tag")
    TagFactory(user=other_user, name="bobs-tag")

    page = editor.get(ADD).text

    assert "My garden" in page
    assert "mine-tag" in page
    assert "Bob&#x27;s boat" not in page
    assert "Bob's boat" not in page
    assert "bobs-tag" not in page


def test_the_context_and_tag_filters_offer_only_ones_own(
    editor: Client, user: User, other_user: User
) -> None:
    ContextFactory(user=user, name="My garden")
    ContextFactory(user=other_user, name="Bob's boat")
    ClaimFactory(user=user)

    page = editor.get(CHANGELIST).text

    assert "My garden" in page
    assert "boat" not in page


# Search and filters ---------------------------------------------------------------------------


@pytest.mark.parametrize("term", ["42", "#42"])
def test_searching_a_number_finds_that_claim(editor: Client, user: User, term: str) -> None:
    for _ in range(42):
        ClaimFactory(user=user, statement="Filler claim")
    target = Claim.objects.get(user=user, number=42)
    Claim.objects.filter(pk=target.pk).update(statement="The answer to everything")

    listing = editor.get(CHANGELIST, {"q": term})

    assert list(listing.context["cl"].result_list) == [target]


def test_search_matches_statement_and_friendly_id(editor: Client, user: User) -> None:
    tea = ClaimFactory(user=user, statement="I drink green tea", friendly_id="hot_drink")
    ClaimFactory(user=user, statement="I cycle to work")

    by_words = editor.get(CHANGELIST, {"q": "green"}).context["cl"].result_list
    by_id = editor.get(CHANGELIST, {"q": "hot_drink"}).context["cl"].result_list

    assert list(by_words) == [tea]
    assert list(by_id) == [tea]


def test_filters_by_type_domain_status_pinned_context_and_tag(editor: Client, user: User) -> None:
    goal = ClaimFactory(
        user=user,
        statement="Run a marathon",
        claim_types=["goal", "task"],
        domains=["health"],
        pinned=True,
    )
    fact = ClaimFactory(
        user=user,
        statement="I live in Lyon",
        claim_types=["fact"],
        domains=["personal"],
        status=ClaimStatus.PENDING,
    )
    root = ContextFactory(user=user, name="Sport")
    ContextFactory(user=user, name="Running", parent=root, claims=[goal])
    parent_tag = TagFactory(user=user, name="fitness")
    TagFactory(user=user, name="endurance", parent=parent_tag, claims=[goal])

    def results(**params: str) -> list[Claim]:
        return list(editor.get(CHANGELIST, params).context["cl"].result_list)

    assert results(type="task") == [goal]
    assert results(domain="personal") == [fact]
    assert results(status="pending") == [fact]
    assert results(pinned__exact="1") == [goal]
    assert results(context=str(root.pk)) == [goal]  # through its child context
    assert results(tag=str(parent_tag.pk)) == [goal]  # through its child tag


def test_the_changelist_shows_the_columns(editor: Client, user: User) -> None:
    ClaimFactory(
        user=user,
        statement="Coffee after lunch",
        claim_types=["preference"],
        friendly_id="coffee_lunch",
    )

    page = editor.get(CHANGELIST).text

    for text in ("#1", "coffee_lunch", "Coffee after lunch", "Preference", "Active"):
        assert text in page


# Adding and editing -----------------------------------------------------------------------------


def test_adding_a_claim_goes_through_the_service(editor: Client, user: User) -> None:
    context = ContextFactory(user=user, name="Mornings")
    tag = TagFactory(user=user, name="drinks")

    response = editor.post(ADD, add_data(contexts=[context.pk], tags=[tag.pk]))

    assert response.status_code == 302
    claim = Claim.objects.get(user=user)
    assert claim.number == 1
    assert claim.friendly_id == "prefer_green_tea"
    assert claim.claim_types == ["preference"]
    assert claim.possible_questions == ["What do I drink in the morning?", "Which tea do I like?"]
    assert claim.origin == "manual"
    assert list(claim.contexts.all()) == [context]
    assert list(claim.tags.all()) == [tag]


def test_a_new_claim_can_replace_an_old_one(editor: Client, user: User) -> None:
    old = ClaimFactory(user=user, statement="I live in Paris")
    context = ContextFactory(user=user, claims=[old])

    response = editor.post(ADD, add_data(statement="I live in Lyon", supersedes=old.pk))

    assert response.status_code == 302
    new = Claim.objects.get(user=user, statement="I live in Lyon")
    old.refresh_from_db()
    assert old.status == ClaimStatus.SUPERSEDED
    assert new.supersedes == old
    assert list(new.contexts.all()) == [context]


def test_editing_keeps_the_primary_type_and_changes_links(editor: Client, user: User) -> None:
    claim = ClaimFactory(user=user, claim_types=["preference", "fact"])
    leaving = ContextFactory(user=user, claims=[claim])
    joining = ContextFactory(user=user)
    old_tag = TagFactory(user=user, claims=[claim])

    response = editor.post(
        change_url(claim),
        edit_data(claim, statement="Edited statement", contexts=[joining.pk], tags=[]),
    )

    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.statement == "Edited statement"
    assert claim.claim_types == ["preference", "fact"]
    assert list(claim.contexts.all()) == [joining]
    assert leaving.claims.count() == 0
    assert old_tag.claims.count() == 0


def test_the_claim_page_shows_its_links_chain_and_source(editor: Client, user: User) -> None:
    from apps.chat.models import Conversation, Message
    from apps.projects.models import Project

    project = Project.objects.create(owner=user, name="P", slug="p")
    conversation = Conversation.objects.create(user=user, project=project, title="Chat")
    message = Message.objects.create(
        conversation=conversation, role="user", order=1, content="By the way, I moved to Lyon"
    )
    first = ClaimFactory(user=user, statement="I live in Paris")
    from apps.claims.services import claim_supersede

    middle = claim_supersede(claim=first, statement="I live in Lyon")
    Claim.objects.filter(pk=middle.pk).update(source_message=message)
    last = claim_supersede(claim=middle, statement="I live in Nice")
    ContextFactory(user=user, name="Home life", claims=[middle])
    TagFactory(user=user, name="whereabouts", claims=[middle])
    EntityFactory(user=user, name="Lyon", claims=[middle])

    page = editor.get(change_url(middle)).text

    assert "Home life" in page
    assert "whereabouts" in page
    assert "Lyon (person)" in page
    assert change_url(first) in page
    assert change_url(last) in page
    assert "(this claim)" in page
    assert "By the way, I moved to Lyon" in page


# Bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("statement", "", "This field is required"),
        ("statement", "   ", "This field is required"),
        ("statement", "x" * 10_001, "at most 10,000 characters"),
        ("friendly_id", "Bad ID!", "lower-case letters"),
        ("friendly_id", "work_context", "cannot end in"),
    ],
)
def test_bad_input_is_a_form_error_and_writes_nothing(
    editor: Client, user: User, field: str, value: str, message: str
) -> None:
    response = editor.post(ADD, add_data(**{field: value}))

    assert response.status_code == 200
    assert message in response.text
    assert response.context["adminform"].form.errors
    assert not Claim.objects.filter(user=user).exists()


def test_a_taken_friendly_id_is_a_form_error_and_changes_nothing(
    editor: Client, user: User
) -> None:
    ClaimFactory(user=user, friendly_id="taken_id")
    claim = ClaimFactory(user=user, friendly_id="mine_id", statement="Original")

    response = editor.post(
        change_url(claim), edit_data(claim, friendly_id="taken_id", statement="Changed")
    )

    assert response.status_code == 200
    assert "already taken" in response.text
    assert "friendly_id" in response.context["adminform"].form.errors
    claim.refresh_from_db()
    assert (claim.friendly_id, claim.statement) == ("mine_id", "Original")


def test_a_service_error_during_save_rolls_everything_back(editor: Client, user: User) -> None:
    """The statement passes the form but the chosen friendly ID collides only when the
    service checks it: the new claim, its number and its links all roll back."""
    ClaimFactory(user=user, friendly_id="taken_id")
    context = ContextFactory(user=user)

    response = editor.post(ADD, add_data(friendly_id="taken_id", contexts=[context.pk]))

    assert response.status_code == 200
    assert "already taken" in response.text
    assert Claim.objects.filter(user=user).count() == 1
    assert context.claims.count() == 0
    assert ClaimFactory(user=user).number == 2  # the failed attempt used no number


def test_deleting_a_claim_through_the_admin(editor: Client, user: User) -> None:
    claim = ClaimFactory(user=user)

    response = editor.post(reverse("admin:claims_claim_delete", args=[claim.pk]), {"post": "yes"})

    assert response.status_code == 302
    assert not Claim.objects.filter(pk=claim.pk).exists()


# Actions ------------------------------------------------------------------------------------


def run_action(client: Client, action: str, claims: list[Claim], **extra: object) -> object:
    return client.post(
        CHANGELIST,
        {"action": action, "index": 0, "_selected_action": [c.pk for c in claims], **extra},
        follow=True,
    )


def test_pin_unpin_and_retract_actions(editor: Client, user: User) -> None:
    first, second = ClaimFactory(user=user), ClaimFactory(user=user)

    run_action(editor, "pin_claims", [first, second])
    assert set(Claim.objects.filter(pinned=True)) == {first, second}

    run_action(editor, "unpin_claims", [first])
    assert set(Claim.objects.filter(pinned=True)) == {second}

    run_action(editor, "retract_claims", [second])
    second.refresh_from_db()
    assert (second.status, second.pinned) == (ClaimStatus.RETRACTED, False)


def test_approve_and_reject_pending_actions(editor: Client, user: User) -> None:
    waiting = ClaimFactory(user=user, status=ClaimStatus.PENDING)
    unwanted = ClaimFactory(user=user, status=ClaimStatus.PENDING)
    active = ClaimFactory(user=user)

    response = run_action(editor, "approve_pending", [waiting, active])
    run_action(editor, "reject_pending", [unwanted])

    waiting.refresh_from_db()
    assert waiting.status == ClaimStatus.ACTIVE
    assert not Claim.objects.filter(pk=unwanted.pk).exists()
    assert "1 claim not waiting for review left unchanged" in response.text  # type: ignore[attr-defined]


def test_add_to_context_asks_for_one_of_ones_own_contexts_then_adds(
    editor: Client, user: User, other_user: User
) -> None:
    claims = [ClaimFactory(user=user), ClaimFactory(user=user)]
    mine = ContextFactory(user=user, name="Reading list")
    ContextFactory(user=other_user, name="Bob's list")

    page = editor.post(
        CHANGELIST,
        {"action": "add_to_context", "index": 0, "_selected_action": [c.pk for c in claims]},
    )

    assert page.status_code == 200
    assert "Reading list" in page.text
    assert "Bob" not in page.text
    done = editor.post(
        CHANGELIST,
        {
            "action": "add_to_context",
            "apply": "1",
            "context": mine.pk,
            "select_across": "0",
            "_selected_action": [c.pk for c in claims],
        },
        follow=True,
    )
    assert set(mine.claims.all()) == set(claims)
    assert "Added 2 claims to “Reading list”" in done.text


def test_add_to_context_refuses_another_users_context(
    editor: Client, user: User, other_user: User
) -> None:
    claim = ClaimFactory(user=user)
    ContextFactory(user=user)
    theirs = ContextFactory(user=other_user)

    response = editor.post(
        CHANGELIST,
        {
            "action": "add_to_context",
            "apply": "1",
            "context": theirs.pk,
            "_selected_action": [claim.pk],
        },
    )

    assert response.status_code == 200  # the choice page again, with an error
    assert "Select a valid choice" in response.text
    assert theirs.claims.count() == 0


# Entities and tags ------------------------------------------------------------------------------


def test_tag_and_entity_editors_link_only_own_claims(
    editor: Client, user: User, other_user: User
) -> None:
    mine = ClaimFactory(user=user)
    theirs = ClaimFactory(user=other_user)
    add_tag = reverse("admin:claims_tag_add")

    refused = editor.post(
        add_tag, {"name": "Travel", "friendly_id": "", "claims": [mine.pk, theirs.pk]}
    )
    accepted = editor.post(add_tag, {"name": "Travel", "friendly_id": "", "claims": [mine.pk]})
    entity = editor.post(
        reverse("admin:claims_entity_add"),
        {
            "name": "Ada Lovelace",
            "entity_type": "person",
            "friendly_id": "",
            "description": "",
            "claims": [mine.pk],
        },
    )

    assert refused.status_code == 200
    assert "Select a valid choice" in refused.text
    assert accepted.status_code == 302
    assert entity.status_code == 302
    tag = Tag.objects.get(user=user)
    assert tag.friendly_id.endswith("_tag")
    assert list(tag.claims.all()) == [mine]
    assert Entity.objects.get(user=user).friendly_id.startswith("ada_lovelace_person")


def test_a_tag_cannot_be_put_under_its_own_child(editor: Client, user: User) -> None:
    parent = TagFactory(user=user, name="parent")
    child = TagFactory(user=user, name="child", parent=parent)

    response = editor.post(
        reverse("admin:claims_tag_change", args=[parent.pk]),
        {"name": "parent", "parent": child.pk, "friendly_id": parent.friendly_id},
    )

    assert response.status_code == 200
    assert "cannot be placed under itself" in response.text
    parent.refresh_from_db()
    assert parent.parent is None


def test_another_users_tag_and_entity_answer_404(editor: Client, other_user: User) -> None:
    tag = TagFactory(user=other_user)
    entity = EntityFactory(user=other_user)

    assert editor.get(reverse("admin:claims_tag_change", args=[tag.pk])).status_code == 404
    assert editor.get(reverse("admin:claims_entity_change", args=[entity.pk])).status_code == 404


def test_the_claim_page_has_no_context_of_another_user(
    editor: Client, user: User, other_user: User
) -> None:
    claim = ClaimFactory(user=user)
    ContextFactory(user=other_user, name="Elsewhere")

    page = editor.get(change_url(claim))

    assert page.status_code == 200
    choices = page.context["adminform"].form.fields["contexts"].queryset
    assert not choices.exclude(user=user).exists()
    assert Context.objects.filter(name="Elsewhere").exists()


def test_add_to_context_with_select_all_adds_every_matching_claim(
    editor: Client, user: User
) -> None:
    claims = [ClaimFactory(user=user, statement=f"Book {n} to read") for n in range(3)]
    ClaimFactory(user=user, statement="Not a book")
    shelf = ContextFactory(user=user, name="Shelf")

    page = editor.post(
        f"{CHANGELIST}?q=read",
        {
            "action": "add_to_context",
            "index": 0,
            "select_across": "1",
            "_selected_action": [claims[0].pk],
        },
    )
    assert "Add 3 claims" in page.text
    editor.post(
        f"{CHANGELIST}?q=read",
        {
            "action": "add_to_context",
            "apply": "1",
            "context": shelf.pk,
            "select_across": "1",
            "_selected_action": [claims[0].pk],
        },
    )

    assert set(shelf.claims.all()) == set(claims)


@pytest.mark.parametrize(
    "name",
    [
        "admin:claims_claim_changelist",
        "admin:claims_claim_add",
        "admin:claims_tag_changelist",
        "admin:claims_tag_add",
        "admin:claims_entity_changelist",
        "admin:claims_entity_add",
        "admin:contexts_context_changelist",
        "admin:contexts_context_add",
    ],
)
def test_every_knowledge_page_of_the_editor_opens(editor: Client, user: User, name: str) -> None:
    claim = ClaimFactory(user=user)
    TagFactory(user=user, claims=[claim])
    EntityFactory(user=user, claims=[claim])
    ContextFactory(user=user, claims=[claim])

    assert editor.get(reverse(name)).status_code == 200


def test_own_tag_and_entity_pages_show_their_claims(editor: Client, user: User) -> None:
    claim = ClaimFactory(user=user, statement="Ada wrote the first program")
    tag = TagFactory(user=user, claims=[claim])
    entity = EntityFactory(user=user, claims=[claim])

    for url in (
        reverse("admin:claims_tag_change", args=[tag.pk]),
        reverse("admin:claims_entity_change", args=[entity.pk]),
    ):
        page = editor.get(url)
        assert page.status_code == 200
        assert "Ada wrote the first program" in page.text


def test_the_claim_list_reads_as_words_for_an_ordinary_user(client: Client, user: User) -> None:
    """Issue 18: the statement has room and is not cut at 90 characters, the index's
    chunks are not listed, and the breadcrumb does not say "Contexts › Contexts"."""
    long = "I want to learn to sail a small dinghy on the lake near the house of my parents " * 2
    ClaimFactory(user=user, statement=long.strip())
    client.force_login(user)

    changelist = client.get(CHANGELIST).text
    index = client.get(reverse("admin:index")).text
    contexts = client.get(reverse("admin:contexts_context_changelist")).text

    assert long.strip()[:140] in changelist
    assert "css/admin-claims.css" in changelist
    assert reverse("admin:indexing_chunk_changelist") not in index
    assert client.get(reverse("admin:indexing_chunk_changelist")).status_code == 403
    assert "Contexts</a> › Contexts" not in contexts
    assert "Context tree" in contexts
