from django.contrib import admin
from django.http import HttpRequest


class CairnAdminSite(admin.AdminSite):
    site_header = "Cairn knowledge editor"
    site_title = "Cairn"
    index_title = "Your knowledge"
    site_url = "/"

    def has_permission(self, request: HttpRequest) -> bool:
        # Not only staff: every active user edits their own knowledge here (DESIGN §3).
        return bool(request.user.is_active and request.user.is_authenticated)
