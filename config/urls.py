from django.conf import settings
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

if settings.DEBUG:
    from django.conf.urls.static import static

    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
