from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from config.api import api_v1_urls, ui_api
from config.health import healthz

urlpatterns = [
    path("", include("apps.chat.urls")),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", include("apps.accounts.urls")),
    path("knowledge/", include("apps.knowledge.urls")),
    path("facts/", include("apps.facts.urls")),
    path("files/", include("apps.indexing.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include((api_v1_urls, "api-v1"))),
    path("api/ui/", ui_api.urls),
    path("healthz", healthz, name="healthz"),
]

# Uploaded originals are never served from /media/, in any mode: only their owner may
# read them, through the Files pages (apps/indexing/views.py).
handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
