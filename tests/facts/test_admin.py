"""The admin as each user's facts editor: scoped to their projects, every write through the
services, history visible, retract instead of delete."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.facts.models import FactOrigin, ProjectFact
from apps.facts.services import fact_store
from apps.projects.models import Project
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:facts_projectfact_changelist")
ADD = reverse("admin:facts_projectfact_add")


def change_url(fact: ProjectFact) -> str:
    return reverse("admin:facts_projectfact_change", args=[fact.pk])


@pytest.fixture
def editor(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


@pytest.fixture
def theirs(other_user: User) -> ProjectFact:
    project = ProjectFactory(owner=other_user, name="Bob's")
    return fact_store(project=project, key="user.email", value="bob@example.com").fact


def test_the_list_shows_only_my_facts(
    editor: Client, project: Project, theirs: ProjectFact
) -> None:
    fact_store(project=project, key="user.email", value="alice@example.com")

    response = editor.get(CHANGELIST)

    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == list(
        ProjectFact.objects.filter(project=project)
    )
    assert "bob@example.com" not in response.content.decode()
    assert "Bob&#x27;s" not in response.content.decode()  # not even as a project filter


def test_another_user_s_fact_is_404(editor: Client, theirs: ProjectFact) -> None:
    assert editor.get(change_url(theirs)).status_code == 404
    retract = reverse("admin:facts_projectfact_retract", args=[theirs.pk])
    assert editor.post(retract).status_code == 404
    theirs.refresh_from_db()
    assert theirs.is_current


def test_the_add_form_offers_only_my_projects(
    editor: Client, project: Project, theirs: ProjectFact
) -> None:
    field = editor.get(ADD).context["adminform"].form.fields["project"]

    assert list(field.queryset) == [project]


def test_adding_a_fact_stores_it_through_the_service(editor: Client, project: Project) -> None:
    response = editor.post(
        ADD,
        {
            "project": project.pk,
            "fact_key": "user.favorites.pie.1",
            "value_text": "pecan",
            "value_type": "string",
        },
    )

    assert response.status_code == 302
    fact = ProjectFact.objects.get(project=project)
    assert (fact.fact_key, fact.value_text, fact.origin) == (
        "user.favorites.pie.1",
        "pecan",
        FactOrigin.MANUAL,
    )
    assert (fact.topic, fact.rank) == ("pie", 1)


def test_adding_an_existing_key_updates_it_and_keeps_history(
    editor: Client, project: Project
) -> None:
    old = fact_store(project=project, key="user.email", value="old@b.io").fact

    editor.post(
        ADD,
        {
            "project": project.pk,
            "fact_key": "user.email",
            "value_text": "new@b.io",
            "value_type": "string",
        },
    )

    old.refresh_from_db()
    new = ProjectFact.objects.get(project=project, is_current=True)
    assert not old.is_current
    assert new.supersedes_id == old.pk
    assert new.value_text == "new@b.io"


def test_another_user_s_project_cannot_be_chosen(editor: Client, theirs: ProjectFact) -> None:
    response = editor.post(
        ADD,
        {
            "project": theirs.project_id,
            "fact_key": "user.email",
            "value_text": "evil@x.io",
            "value_type": "string",
        },
    )

    assert response.status_code == 200
    assert "project" in response.context["adminform"].form.errors
    assert ProjectFact.objects.filter(project=theirs.project).count() == 1


@pytest.mark.parametrize(
    ("key", "value", "value_type", "field"),
    [
        ("", "x", "string", "fact_key"),
        ("two words", "x", "string", "fact_key"),
        ("n", "twelve", "number", "value_text"),
        ("d", "tomorrow", "date", "value_text"),
        # Issue 29: JSON text whose escape decodes to a lone surrogate was a 500.
        ("j", '{"a": "\\ud800"}', "json", "value_text"),
    ],
)
def test_bad_input_is_shown_on_the_form(
    editor: Client, project: Project, key: str, value: str, value_type: str, field: str
) -> None:
    response = editor.post(
        ADD, {"project": project.pk, "fact_key": key, "value_text": value, "value_type": value_type}
    )

    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not ProjectFact.objects.exists()


def test_editing_a_value_writes_a_new_row(editor: Client, project: Project) -> None:
    old = fact_store(project=project, key="user.favorites.crypto.1", value="BTC").fact

    response = editor.post(change_url(old), {"value_text": "ETH", "value_type": "string"})

    assert response.status_code == 302
    old.refresh_from_db()
    assert old.value_text == "BTC"
    assert not old.is_current
    new = ProjectFact.objects.get(project=project, is_current=True)
    assert (new.value_text, new.supersedes_id, new.origin) == ("ETH", old.pk, FactOrigin.MANUAL)


def test_an_unchanged_edit_writes_nothing(editor: Client, project: Project) -> None:
    fact = fact_store(project=project, key="user.email", value="a@b.io").fact

    response = editor.post(
        change_url(fact), {"value_text": " a@b.io ", "value_type": "string"}, follow=True
    )

    assert ProjectFact.objects.filter(project=project).count() == 1
    assert "already had this value" in response.content.decode()


def test_history_is_shown_and_earlier_rows_are_read_only(editor: Client, project: Project) -> None:
    first = fact_store(project=project, key="user.favorites.crypto.1", value="BTC").fact
    fact_store(project=project, key="user.favorites.crypto.1", value="ETH")

    page = editor.get(change_url(first))

    assert page.status_code == 200
    html = page.content.decode()
    history = html[html.index("<ol><li>") : html.index("</ol>", html.index("<ol><li>"))]
    assert history.index("ETH") < history.index("BTC")  # newest first
    assert "BTC</a> (this row) — superseded" in history
    assert not page.context["has_change_permission"]
    refused = editor.post(change_url(first), {"value_text": "XMR", "value_type": "string"})
    assert refused.status_code == 403
    first.refresh_from_db()
    assert first.value_text == "BTC"


def test_retract_from_the_change_page_keeps_the_row(editor: Client, project: Project) -> None:
    fact = fact_store(project=project, key="user.email", value="a@b.io").fact
    assert "Retract (keeps history)" in editor.get(change_url(fact)).content.decode()

    response = editor.post(reverse("admin:facts_projectfact_retract", args=[fact.pk]))

    assert response.status_code == 302
    fact.refresh_from_db()
    assert not fact.is_current
    assert fact.retracted_at is not None


def test_retract_action_retracts_the_selected_current_facts(
    editor: Client, project: Project
) -> None:
    facts = [fact_store(project=project, key=f"k.{i}", value="v").fact for i in range(3)]

    editor.post(
        CHANGELIST,
        {"action": "retract_selected", "_selected_action": [str(f.pk) for f in facts[:2]]},
    )

    assert set(
        ProjectFact.objects.filter(project=project, is_current=True).values_list(
            "fact_key", flat=True
        )
    ) == {"k.2"}
    assert ProjectFact.objects.filter(project=project).count() == 3


def test_deleting_is_not_offered(editor: Client, project: Project) -> None:
    fact = fact_store(project=project, key="user.email", value="a@b.io").fact

    delete = reverse("admin:facts_projectfact_delete", args=[fact.pk])
    assert editor.post(delete, {"post": "yes"}).status_code == 403
    actions = editor.get(CHANGELIST).context["action_form"].fields["action"].choices
    assert "delete_selected" not in [name for name, _ in actions]
    assert ProjectFact.objects.filter(pk=fact.pk).exists()
