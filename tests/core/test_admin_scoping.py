"""Admin scoping reads each admin's declared ``owner_field`` (issue 27), the one place that
says where a row's owner is; it is never guessed from field names. An owned admin without
one, a path that leads elsewhere, and a plain admin of rows that belong to a user all fail
``manage.py check``."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.core import checks
from django.test import Client, RequestFactory
from django.urls import reverse

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from apps.contexts.models import Context
from apps.core.admin_scoping import OwnedModelAdmin, scope_to_user
from config.admin_site import CairnAdminSite
from tests.factories import UserFactory
from tests.knowledge_factories import ContextFactory


def _ids(errors: list[checks.CheckMessage]) -> list[str | None]:
    return [error.id for error in errors]


def test_every_admin_of_the_site_passes_the_checks() -> None:
    assert checks.run_checks(tags=[checks.Tags.admin]) == []


def test_an_owned_admin_that_does_not_declare_its_owner_fails_the_check() -> None:
    class UndeclaredAdmin(OwnedModelAdmin):
        pass

    errors = UndeclaredAdmin(Context, CairnAdminSite(name="undeclared")).check()

    assert _ids(errors) == ["cairn.E101"]
    assert errors[0].msg.startswith("UndeclaredAdmin does not declare owner_field")


@pytest.mark.parametrize(
    ("owner_field", "problem"),
    [
        ("parent", "it ends at Context, not at the user model"),
        ("keeper", "Context has no field 'keeper'"),
        ("name", "Context.name is not a relation"),
    ],
)
def test_an_owner_field_that_does_not_lead_to_a_user_fails_the_check(
    owner_field: str, problem: str
) -> None:
    class AstrayAdmin(OwnedModelAdmin):
        pass

    AstrayAdmin.owner_field = owner_field

    errors = AstrayAdmin(Context, CairnAdminSite(name="astray")).check()

    assert _ids(errors) == ["cairn.E102"]
    assert errors[0].msg.endswith(f"does not lead to the owning user: {problem}.")


def test_a_plain_admin_of_rows_that_belong_to_a_user_fails_the_check() -> None:
    site = CairnAdminSite(name="plain")
    site.register(Context, admin.ModelAdmin)  # a user's contexts, listed to anyone
    site.register(Group, admin.ModelAdmin)  # nobody's rows: nothing to scope

    errors = [error for error in site.check(None) if error.id == "cairn.E103"]

    assert [error.msg for error in errors] == [
        "ModelAdmin edits Context, whose rows belong to a user, without scoping them to the "
        "requesting user."
    ]


@pytest.mark.django_db
def test_choices_come_from_the_owner_field_their_model_s_admin_declares(
    user: User, other_user: User, rf: RequestFactory
) -> None:
    mine = ContextFactory(user=user, name="Mine")
    theirs = ContextFactory(user=other_user, name="Theirs")
    request = rf.get("/admin/")
    request.user = user
    as_superuser = rf.get("/admin/")
    as_superuser.user = UserFactory(email="root@example.com", is_superuser=True)

    # ContextAdmin declares owner_field = "user"
    assert list(scope_to_user(Context.objects.all(), request)) == [mine]
    # On a site where no admin declares Context's owner, nothing is offered but to a superuser
    bare = CairnAdminSite(name="bare")
    assert list(scope_to_user(Context.objects.all(), request, site=bare)) == []
    superuser_sees = scope_to_user(Context.objects.order_by("name"), as_superuser, site=bare)
    assert list(superuser_sees) == [mine, theirs]


@pytest.mark.django_db
def test_api_tokens_in_the_admin_are_the_superuser_s_alone(
    page_client: Client, user: User, other_user: User
) -> None:
    api_token_create(user=user, name="laptop")
    api_token_create(user=other_user, name="bob's phone")
    changelist = reverse("admin:accounts_apitoken_changelist")

    assert page_client.get(changelist).status_code == 403
    root = UserFactory(email="root@example.com", is_superuser=True, is_staff=True)
    page_client.force_login(root)
    listed = page_client.get(changelist)
    assert listed.status_code == 200
    assert "laptop" in listed.content.decode()
    assert "bob&#x27;s phone" in listed.content.decode()
