"""The context tree in the admin: scoped choices, moves checked by context_move, and a
change page that shows where a context sits and what it resolves to."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.claims.models import ClaimStatus
from apps.contexts.models import Context
from tests.knowledge_factories import ClaimFactory, ContextFactory

ADD = reverse("admin:contexts_context_add")


def change_url(context: Context) -> str:
    return reverse("admin:contexts_context_change", args=[context.pk])


def form_data(context: Context, **overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "name": context.name,
        "friendly_id": context.friendly_id,
        "description": "",
        "parent": context.parent_id or "",
        "member_claims": [claim.pk for claim in context.claims.all()],
    }
    data.update(overrides)
    return data


@pytest.fixture
def editor(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def test_another_users_contexts_are_not_offered_as_parents(
    editor: Client, user: User, other_user: User
) -> None:
    ContextFactory(user=user, name="Work")
    ContextFactory(user=other_user, name="Bob's private stuff")

    page = editor.get(ADD)

    parents = page.context["adminform"].form.fields["parent"].queryset
    assert [c.name for c in parents] == ["Work"]
    assert "private stuff" not in page.text


def test_another_users_context_cannot_be_chosen_seen_or_deleted(
    editor: Client, user: User, other_user: User
) -> None:
    theirs = ContextFactory(user=other_user, name="Theirs")

    posted = editor.post(
        ADD, {"name": "Mine", "friendly_id": "", "description": "", "parent": theirs.pk}
    )

    assert posted.status_code == 200
    assert "Select a valid choice" in posted.text
    assert not Context.objects.filter(user=user).exists()
    assert editor.get(change_url(theirs)).status_code == 404
    delete = reverse("admin:contexts_context_delete", args=[theirs.pk])
    assert editor.post(delete, {"post": "yes"}).status_code == 404
    assert Context.objects.filter(pk=theirs.pk).exists()


def test_adding_a_context_with_claims(editor: Client, user: User) -> None:
    parent = ContextFactory(user=user, name="Health")
    claim = ClaimFactory(user=user)

    response = editor.post(
        ADD,
        {
            "name": "Sleep",
            "friendly_id": "",
            "description": "Nights",
            "parent": parent.pk,
            "member_claims": [claim.pk],
        },
    )

    assert response.status_code == 302
    sleep = Context.objects.get(user=user, name="Sleep")
    assert sleep.parent == parent
    assert sleep.friendly_id == "sleep"
    assert list(sleep.claims.all()) == [claim]


def test_a_chosen_short_friendly_id_is_kept(editor: Client, user: User) -> None:
    response = editor.post(ADD, {"name": "Side project", "friendly_id": "ssdva", "description": ""})

    assert response.status_code == 302
    assert Context.objects.get(user=user).friendly_id == "ssdva"


def test_another_users_claim_cannot_be_put_in_a_context(
    editor: Client, user: User, other_user: User
) -> None:
    theirs = ClaimFactory(user=other_user)

    response = editor.post(
        ADD, {"name": "Mine", "friendly_id": "", "description": "", "member_claims": [theirs.pk]}
    )

    assert response.status_code == 200
    assert not Context.objects.filter(user=user).exists()


def test_moving_under_a_descendant_is_a_form_error_and_changes_nothing(
    editor: Client, user: User
) -> None:
    root = ContextFactory(user=user, name="Root")
    child = ContextFactory(user=user, name="Child", parent=root)
    grandchild = ContextFactory(user=user, name="Grandchild", parent=child)

    response = editor.post(
        change_url(root), form_data(root, parent=grandchild.pk, name="Renamed root")
    )

    assert response.status_code == 200
    assert "cannot be moved under itself or one of its children" in response.text
    assert "parent" in response.context["adminform"].form.errors
    root.refresh_from_db()
    assert (root.parent, root.name) == (None, "Root")  # the rename rolled back too


def test_moving_under_itself_is_a_form_error(editor: Client, user: User) -> None:
    context = ContextFactory(user=user)

    response = editor.post(change_url(context), form_data(context, parent=context.pk))

    assert response.status_code == 200
    assert "parent" in response.context["adminform"].form.errors
    context.refresh_from_db()
    assert context.parent is None


def test_a_move_deeper_than_ten_levels_is_a_form_error(editor: Client, user: User) -> None:
    chain = [ContextFactory(user=user, name="Level 1")]
    for level in range(2, 11):
        chain.append(ContextFactory(user=user, name=f"Level {level}", parent=chain[-1]))
    loose = ContextFactory(user=user, name="Loose")

    response = editor.post(change_url(loose), form_data(loose, parent=chain[-1].pk))

    assert response.status_code == 200
    assert "at most 10 levels" in response.text
    loose.refresh_from_db()
    assert loose.parent is None


def test_a_valid_move_and_rename(editor: Client, user: User) -> None:
    old_parent = ContextFactory(user=user, name="Old")
    new_parent = ContextFactory(user=user, name="New")
    context = ContextFactory(user=user, name="Moving", parent=old_parent)

    response = editor.post(
        change_url(context),
        form_data(context, parent=new_parent.pk, name="Moved", friendly_id="moved_ctx"),
    )

    assert response.status_code == 302
    context.refresh_from_db()
    assert (context.parent, context.name, context.friendly_id) == (new_parent, "Moved", "moved_ctx")


@pytest.mark.parametrize(
    ("friendly_id", "message"),
    [
        ("Not Valid!", "lower-case letters"),
        ("x", "lower-case letters"),
    ],
)
def test_a_bad_friendly_id_is_a_form_error(
    editor: Client, user: User, friendly_id: str, message: str
) -> None:
    context = ContextFactory(user=user, friendly_id="good_one")

    response = editor.post(change_url(context), form_data(context, friendly_id=friendly_id))

    assert response.status_code == 200
    assert message in response.text
    context.refresh_from_db()
    assert context.friendly_id == "good_one"


def test_removing_a_claim_from_a_context(editor: Client, user: User) -> None:
    kept, dropped = ClaimFactory(user=user), ClaimFactory(user=user)
    context = ContextFactory(user=user, claims=[kept, dropped])

    response = editor.post(change_url(context), form_data(context, member_claims=[kept.pk]))

    assert response.status_code == 302
    assert list(context.claims.all()) == [kept]
    assert dropped.__class__.objects.filter(pk=dropped.pk).exists()


def test_the_change_page_shows_breadcrumb_children_and_resolved_claims(
    editor: Client, user: User
) -> None:
    root = ContextFactory(user=user, name="Life")
    middle = ContextFactory(user=user, name="Health", parent=root)
    leaf = ContextFactory(user=user, name="Sleep", parent=middle)
    sibling = ContextFactory(user=user, name="Food", parent=middle)
    deep = ClaimFactory(user=user, statement="I sleep eight hours")
    own = ClaimFactory(user=user, statement="I see a doctor yearly")
    retracted = ClaimFactory(user=user, statement="I never sleep", status=ClaimStatus.RETRACTED)
    ContextFactory(user=user, name="Naps", parent=leaf, claims=[deep, retracted])
    from apps.contexts.services import context_add_claims

    context_add_claims(context=middle, claims=[own])

    page = editor.get(change_url(middle)).text

    assert change_url(root) in page  # breadcrumb
    assert change_url(leaf) in page
    assert change_url(sibling) in page
    claim_url = reverse("admin:claims_claim_change", args=[deep.pk])
    assert claim_url in page
    assert "I see a doctor yearly" in page
    assert "I never sleep" not in page


def test_deleting_a_context_keeps_its_claims(editor: Client, user: User) -> None:
    claim = ClaimFactory(user=user)
    context = ContextFactory(user=user, claims=[claim])
    ContextFactory(user=user, parent=context)

    response = editor.post(
        reverse("admin:contexts_context_delete", args=[context.pk]), {"post": "yes"}
    )

    assert response.status_code == 302
    assert not Context.objects.filter(user=user).exists()
    claim.refresh_from_db()


def test_the_context_list_shows_own_contexts_with_counts(
    editor: Client, user: User, other_user: User
) -> None:
    ContextFactory(user=user, name="Mine", claims=[ClaimFactory(user=user)])
    ContextFactory(user=other_user, name="Theirs")

    listing = editor.get(reverse("admin:contexts_context_changelist"))

    assert [c.name for c in listing.context["cl"].result_list] == ["Mine"]
    assert listing.context["cl"].result_list[0].claim_count == 1
