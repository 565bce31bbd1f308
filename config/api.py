"""The two APIs: DRF for integrations at /api/v1/, django-ninja for the pages at /api/ui/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from ninja import NinjaAPI
from ninja.security import SessionAuth
from rest_framework.routers import DefaultRouter

from apps.accounts.api import TokenObtainApi
from apps.accounts.ui_api import router as accounts_ui_router
from apps.projects.api import ProjectViewSet

router = DefaultRouter()
router.register("projects", ProjectViewSet, basename="project")

api_v1_urls: list[URLPattern | URLResolver] = [
    path("auth/token/", TokenObtainApi.as_view(), name="token-obtain"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-v1:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-v1:schema"), name="redoc"),
    path("", include(router.urls)),
]

# Session auth with CSRF: these endpoints serve the site's own pages only.
ui_api = NinjaAPI(
    title="Cairn UI API",
    version="1",
    urls_namespace="api-ui",
    auth=SessionAuth(csrf=True),
    docs_url=None,
)
ui_api.add_router("/", accounts_ui_router)
