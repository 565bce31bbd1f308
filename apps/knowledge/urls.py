from django.urls import path

from . import edit_views, lists, views

app_name = "knowledge"

urlpatterns = [
    path("", views.home, name="home"),
    path("contexts/", views.context_index, name="contexts"),
    path("contexts/new/", edit_views.context_add, name="context-add"),
    path("contexts/<uuid:context_id>/", views.context_detail, name="context"),
    path("contexts/<uuid:context_id>/edit/", edit_views.context_edit, name="context-edit"),
    path("contexts/<uuid:context_id>/empty/", edit_views.context_empty_view, name="context-empty"),
    path(
        "contexts/<uuid:context_id>/delete/", edit_views.context_delete_view, name="context-delete"
    ),
    path("pending/", views.pending, name="pending"),
    path("claims/new/", edit_views.claim_add, name="claim-add"),
    path("lists/", lists.lists_page, name="lists"),
    path("lists/<uuid:claim_id>/", lists.list_item_action, name="list_item"),
    path("claims/<uuid:claim_id>/", views.claim_detail, name="claim"),
    path("claims/<uuid:claim_id>/edit/", edit_views.claim_edit, name="claim-edit"),
    path("claims/<uuid:claim_id>/retract/", edit_views.claim_retract_view, name="claim-retract"),
    path("claims/<uuid:claim_id>/restore/", edit_views.claim_restore_view, name="claim-restore"),
    path("claims/<uuid:claim_id>/pin/", edit_views.claim_pin_view, name="claim-pin"),
    path("claims/<uuid:claim_id>/details/", edit_views.claim_details_view, name="claim-details"),
    path("claims/<uuid:claim_id>/contexts/", edit_views.claim_contexts_view, name="claim-contexts"),
    path("claims/<uuid:claim_id>/review/", views.claim_review_view, name="review"),
]
