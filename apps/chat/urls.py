from django.urls import path

from . import views
from .connections import views as connections
from .exports.views import import_delete, import_retry, imports_page

app_name = "chat"

urlpatterns = [
    path("", views.home, name="home"),
    path("c/new/", views.conversation_new, name="new"),
    path("imports/", imports_page, name="imports"),
    path("imports/<uuid:chat_import_id>/retry/", import_retry, name="import-retry"),
    path("imports/<uuid:chat_import_id>/delete/", import_delete, name="import-delete"),
    path("c/list/", views.sidebar_fragment, name="sidebar"),
    path("c/<uuid:conversation_id>/", views.conversation_page, name="conversation"),
    path("c/<uuid:conversation_id>/messages/", views.message_fragment, name="messages"),
    path("c/<uuid:conversation_id>/rename/", views.conversation_rename, name="rename"),
    path("c/<uuid:conversation_id>/archive/", views.conversation_archive, name="archive"),
    path("c/<uuid:conversation_id>/delete/", views.conversation_delete_view, name="delete"),
    path("c/<uuid:conversation_id>/model/", connections.conversation_model, name="model"),
    path("connections/", connections.connections_page, name="connections"),
    path("connections/add/", connections.connection_add, name="connection-add"),
    path("connections/defaults/", connections.defaults_set, name="connection-defaults"),
    path(
        "connections/<uuid:connection_id>/test/",
        connections.connection_test_view,
        name="connection-test",
    ),
    path(
        "connections/<uuid:connection_id>/delete/",
        connections.connection_delete_view,
        name="connection-delete",
    ),
    path(
        "c/<uuid:conversation_id>/m/<uuid:message_id>/remember/",
        views.message_remember_view,
        name="remember",
    ),
]
