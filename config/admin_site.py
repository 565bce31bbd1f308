from typing import Any

from django.contrib import admin
from django.contrib.contenttypes.models import ContentType
from django.core import checks
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, URLResolver, path

from apps.core.admin_scoping import unowned_admin_errors


class CairnAdminSite(admin.AdminSite):
    site_header = "Cairn knowledge editor"
    site_title = "Cairn"
    index_title = "Your knowledge"
    site_url = "/"
    # The app sidebar took 300 px from every list, squeezing the claim statement and
    # pushing columns out of view at 1366 px (issue 18); the breadcrumbs still navigate.
    enable_nav_sidebar = False

    def has_permission(self, request: HttpRequest) -> bool:
        # Not only staff: every active user edits their own knowledge here (DESIGN §3).
        return bool(request.user.is_active and request.user.is_authenticated)

    def check(self, app_configs: Any) -> list[checks.CheckMessage]:
        # Every user may open this admin: none of its lists may show another user's rows.
        return [*super().check(app_configs), *unowned_admin_errors(self)]

    def get_urls(self) -> list[URLResolver | URLPattern]:
        urls = super().get_urls()
        # Django's "view on site" shortcut looks objects up unscoped: another user's claim
        # redirected while a missing one answered 404, and a malformed id was a 500.
        scoped = path(
            "r/<path:content_type_id>/<path:object_id>/",
            self.admin_view(self.view_on_site),
            name="view_on_site",
        )
        return [scoped if getattr(url, "name", "") == "view_on_site" else url for url in urls]

    def view_on_site(
        self, request: HttpRequest, content_type_id: str, object_id: str
    ) -> HttpResponse:
        """Redirect to the object's page, looked up through its admin's scoped queryset:
        not yours, not there and not an id all answer the same 404."""
        try:
            model = ContentType.objects.get_for_id(int(content_type_id)).model_class()
            model_admin = self._registry.get(model) if model is not None else None
            if model_admin is None:
                raise Http404("No such object.")
            obj = model_admin.get_queryset(request).filter(pk=object_id).first()
        except (ValueError, OverflowError, ValidationError, ContentType.DoesNotExist) as error:
            raise Http404("No such object.") from error
        url = getattr(obj, "get_absolute_url", lambda: None)() if obj is not None else None
        if not url:
            raise Http404("No such object.")
        return HttpResponseRedirect(url)
