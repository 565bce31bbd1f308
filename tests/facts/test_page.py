"""The Facts page: a project's facts by topic with their history, manual set and retract,
the empty state, and nothing of another user's."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.chat.message_source import message_to_read
from apps.facts.models import FactOrigin, ProjectFact
from apps.facts.services import fact_retract, fact_store, facts_persist
from apps.projects.models import Project
from tests.factories import ProjectFactory
from tests.facts.conftest import Say

pytestmark = pytest.mark.django_db

HOME = reverse("facts:home")
SET = reverse("facts:set")
RETRACT = reverse("facts:retract")


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_page_requires_login(client: Client) -> None:
    response = client.get(HOME)
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_the_nav_links_to_the_page(page_client: Client) -> None:
    html = page_client.get(HOME).content.decode()
    assert f'href="{HOME}" aria-current="page">Facts</a>' in html


def test_without_a_project_it_shows_personal_with_a_helpful_empty_state(
    page_client: Client, user: User
) -> None:
    response = page_client.get(HOME)

    assert response.status_code == 200
    assert response.context["project"] == Project.objects.get(owner=user, slug="personal")
    text = text_of(response.content.decode())
    assert "No facts in Personal yet" in text
    assert "my #1 crypto is BTC" in text


def test_facts_are_grouped_by_topic_with_lists_in_rank_order(
    page_client: Client, project: Project, say: Say
) -> None:
    facts_persist(
        project=project, message=message_to_read(say("My favorite cryptos are BTC, ETH and XMR."))
    )
    fact_store(project=project, key="user.email", value="jane@example.com")
    fact_store(
        project=project,
        key="user.quantities.weight",
        value={"amount": 70, "unit": "kg"},
        value_type="json",
    )

    response = page_client.get(HOME, {"project": project.pk})

    text = text_of(response.content.decode())
    assert "Favorite crypto" in text
    assert "About you" in text
    assert text.index("#1 BTC") < text.index("#2 ETH") < text.index("#3 XMR")
    assert "jane@example.com" in text
    assert "70 kg" in text  # a quantity reads as one
    assert "from chat" in text


def test_history_is_on_the_page_without_javascript(page_client: Client, project: Project) -> None:
    key = "user.favorites.crypto.1"
    for value in ("BTC", "ETH", "XMR"):
        fact_store(project=project, key=key, value=value)

    html = page_client.get(HOME, {"project": project.pk}).content.decode()

    details = html[html.index('<details class="f-history">') :]
    details = details[: details.index("</details>")]
    assert "History (2 earlier values)" in details
    assert details.index("XMR") < details.index("ETH") < details.index("BTC")
    assert "superseded" in details


def test_setting_a_fact_by_hand(page_client: Client, project: Project) -> None:
    response = page_client.post(
        SET,
        {
            "project": project.pk,
            "key": "user.favorites.pie.1",
            "value": "pecan",
            "value_type": "string",
        },
        follow=True,
    )

    assert response.redirect_chain[-1][0] == f"{HOME}?project={project.pk}"
    assert "Stored “pie list, #1”." in response.content.decode()
    fact = ProjectFact.objects.get(project=project)
    assert (fact.value_text, fact.origin) == ("pecan", FactOrigin.MANUAL)

    again = page_client.post(
        SET,
        {
            "project": project.pk,
            "key": "user.favorites.pie.1",
            "value": "apple",
            "value_type": "string",
        },
        follow=True,
    )
    assert "Updated “pie list, #1”" in again.content.decode()
    assert ProjectFact.objects.filter(project=project).count() == 2


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"key": "", "value": "x", "value_type": "string"}, "key"),
        ({"key": "#0 books", "value": "x", "value_type": "string"}, "key"),
        ({"key": "?!", "value": "x", "value_type": "string"}, "key"),
        ({"key": "n", "value": "many", "value_type": "number"}, "value"),
        ({"key": "n", "value": "x", "value_type": "colour"}, "value_type"),
        # Issue 29: JSON text whose escape decodes to a lone surrogate was a 500.
        ({"key": "n", "value": '{"a": "\\ud800"}', "value_type": "json"}, "value"),
    ],
)
def test_bad_input_re_renders_the_form_with_errors(
    page_client: Client, project: Project, data: dict[str, str], field: str
) -> None:
    response = page_client.post(SET, {"project": project.pk, **data})

    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert not ProjectFact.objects.exists()


def test_retracting_removes_the_fact_from_view_but_keeps_it(
    page_client: Client, project: Project
) -> None:
    fact_store(project=project, key="user.email", value="jane@example.com")

    response = page_client.post(RETRACT, {"project": project.pk, "key": "user.email"}, follow=True)

    text = text_of(response.content.decode())
    assert "Retracted “email”" in text
    assert "Retracted facts (1)" in text  # still listed, as history
    assert not ProjectFact.objects.filter(project=project, is_current=True).exists()
    assert ProjectFact.objects.filter(project=project).count() == 1


def test_retracting_a_key_without_a_value_says_so(page_client: Client, project: Project) -> None:
    response = page_client.post(RETRACT, {"project": project.pk, "key": "nothing"}, follow=True)
    assert "nothing was retracted" in response.content.decode()


@pytest.mark.parametrize("project_id", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_a_project_id_that_names_nothing_is_404(page_client: Client, project_id: str) -> None:
    assert page_client.get(HOME, {"project": project_id}).status_code == 404


def test_another_user_s_project_is_404_everywhere(page_client: Client, other_user: User) -> None:
    theirs = ProjectFactory(owner=other_user, name="Bob's secrets")
    fact_store(project=theirs, key="user.email", value="bob@example.com")

    assert page_client.get(HOME, {"project": theirs.pk}).status_code == 404
    assert (
        page_client.post(
            SET, {"project": theirs.pk, "key": "k", "value": "v", "value_type": "string"}
        ).status_code
        == 404
    )
    assert page_client.post(RETRACT, {"project": theirs.pk, "key": "user.email"}).status_code == 404
    assert ProjectFact.objects.get(project=theirs).is_current
    assert "Bob" not in page_client.get(HOME).content.decode()


def test_the_project_picker_lists_only_my_projects(
    page_client: Client, user: User, other_user: User, project: Project
) -> None:
    ProjectFactory(owner=other_user, name="Not mine")

    response = page_client.get(HOME, {"project": project.pk})

    names = [p.name for p in response.context["projects"]]
    assert "Personal" in names
    assert "Not mine" not in names


def test_unicode_values_render(page_client: Client, project: Project) -> None:
    fact_store(project=project, key="user.name", value="زينب 🌙 <script>alert(1)</script>")
    fact_retract(project=project, key="user.name")
    fact_store(project=project, key="user.name", value="שרה")

    html = page_client.get(HOME, {"project": project.pk}).content.decode()

    assert "שרה" in html
    assert "زينب 🌙" in html
    assert "<script>alert(1)</script>" not in html  # escaped
    assert "&lt;script&gt;" in html


def test_a_fact_is_set_and_shown_in_words(page_client: Client, project: Project) -> None:
    """Issue 18: "crypto list, #1", not user.favorites.crypto.1, on the form and the page."""
    response = page_client.post(
        SET,
        {"project": project.pk, "key": "crypto list, #1", "value": "BTC", "value_type": "string"},
        follow=True,
    )

    fact = ProjectFact.objects.get(project=project, is_current=True)
    assert fact.fact_key == "user.favorites.crypto.1"
    page = response.content.decode()
    assert "Stored “crypto list, #1”." in page
    assert ">crypto list, #1</span>" in page
    assert "crypto list, #1" in page
    assert "user.favorites.crypto.1</span>" not in page
