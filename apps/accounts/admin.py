from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.http import HttpRequest

from apps.core.admin_scoping import OwnedModelAdmin

from .models import ApiToken, User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    ordering = ["email"]
    list_display = ["email", "display_name", "memory_mode", "is_staff", "date_joined"]
    search_fields = ["email", "display_name"]
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        ("Profile", {"fields": ("display_name", "memory_mode")}),
        (
            "Permissions",
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "password1", "password2")}),)

    def has_module_permission(self, request):  # type: ignore[no-untyped-def]
        # The admin is every user's knowledge editor, but accounts are the superuser's.
        return request.user.is_superuser


@admin.register(ApiToken)
class ApiTokenAdmin(OwnedModelAdmin):
    """Tokens are the superuser's to see here; a user manages their own on the tokens page."""

    owner_field = "user"
    list_display = ["name", "user", "access", "prefix", "created_at", "last_used_at"]
    readonly_fields = ["prefix", "created_at", "last_used_at"]

    def _user_may_edit(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)
