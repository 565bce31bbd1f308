from django.urls import path

from . import views

app_name = "files"

urlpatterns = [
    path("", views.home, name="home"),
    path("upload/", views.upload, name="upload"),
    path("folders/", views.folder_create, name="folder-create"),
    path("sources/<uuid:source_id>/", views.source_card, name="source"),
    path("sources/<uuid:source_id>/refresh/", views.source_refresh_view, name="source-refresh"),
    path("sources/<uuid:source_id>/delete/", views.source_delete_view, name="source-delete"),
    path("documents/<uuid:document_id>/", views.document_detail, name="document"),
    path(
        "documents/<uuid:document_id>/original/",
        views.document_original,
        name="document-original",
    ),
    path(
        "documents/<uuid:document_id>/reindex/",
        views.document_reindex_view,
        name="document-reindex",
    ),
    path(
        "documents/<uuid:document_id>/delete/", views.document_delete_view, name="document-delete"
    ),
]
