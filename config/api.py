"""The two APIs: DRF for integrations at /api/v1/, django-ninja for the pages at /api/ui/."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularSwaggerSplitView,
)
from ninja import NinjaAPI
from ninja.errors import ValidationError as NinjaValidationError
from ninja.security import SessionAuth
from rest_framework.routers import DefaultRouter

from apps.accounts.api import TokenObtainApi
from apps.accounts.ui_api import router as accounts_ui_router
from apps.chat.api import ConversationViewSet
from apps.chat.exports.api import ChatImportViewSet
from apps.chat.reference_api import MessageResolveApi
from apps.chat.ui_api import router as chat_ui_router
from apps.contexts.reference_api import ReferenceResolveApi
from apps.contexts.ui_api import router as contexts_ui_router
from apps.core.api import field_errors, ninja_field_errors
from apps.facts.api import ProjectFactViewSet
from apps.indexing.api import DocumentViewSet, SearchApi, SourceViewSet
from apps.knowledge.api import (
    ClaimViewSet,
    EntityViewSet,
    KnowledgeExportApi,
    KnowledgeImportApi,
    TagViewSet,
)
from apps.knowledge.api.contexts import ContextViewSet
from apps.projects.api import ProjectViewSet
from config.security import with_api_docs_policy

router = DefaultRouter()
router.register("projects", ProjectViewSet, basename="project")
router.register("claims", ClaimViewSet, basename="claim")
router.register("contexts", ContextViewSet, basename="context")
router.register("entities", EntityViewSet, basename="entity")
router.register("tags", TagViewSet, basename="tag")
router.register(
    r"projects/(?P<project_id>[^/.]+)/facts", ProjectFactViewSet, basename="project-fact"
)
router.register("conversations", ConversationViewSet, basename="conversation")
router.register("imports", ChatImportViewSet, basename="chat-import")
router.register("sources", SourceViewSet, basename="source")
router.register("documents", DocumentViewSet, basename="document")

api_v1_urls: list[URLPattern | URLResolver] = [
    path("auth/token/", TokenObtainApi.as_view(), name="token-obtain"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file: no inline script for the CSP.
    path(
        "docs/",
        with_api_docs_policy(
            # In the site's frame (templates/api/docs.html), navigation and all (issue 30).
            SpectacularSwaggerSplitView.as_view(
                url_name="api-v1:schema", template_name="api/docs.html"
            )
        ),
        name="docs",
    ),
    # No ReDoc page: its script fetches its logo from a CDN, and Swagger UI shows the same.
    path("knowledge/export/", KnowledgeExportApi.as_view(), name="knowledge-export"),
    path("knowledge/import/", KnowledgeImportApi.as_view(), name="knowledge-import"),
    path("references/resolve/", ReferenceResolveApi.as_view(), name="reference-resolve"),
    path(
        "references/resolve-message/", MessageResolveApi.as_view(), name="reference-resolve-message"
    ),
    re_path(r"^search/?$", SearchApi.as_view(), name="search"),
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


# One error shape on both JSON APIs: a refused value is a 400 naming its field, as DRF
# answers it (django-ninja's own answer was a 422 with its own shape).
@ui_api.exception_handler(NinjaValidationError)
def _invalid_input(request: HttpRequest, error: NinjaValidationError) -> HttpResponse:
    return ui_api.create_response(request, ninja_field_errors(list(error.errors)), status=400)


@ui_api.exception_handler(DjangoValidationError)
def _refused(request: HttpRequest, error: DjangoValidationError) -> HttpResponse:
    return ui_api.create_response(request, field_errors(error), status=400)


ui_api.add_router("/", accounts_ui_router)
ui_api.add_router("/", contexts_ui_router)
ui_api.add_router("/", chat_ui_router)
