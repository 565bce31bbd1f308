from django.urls import path

from . import lists, views

app_name = "knowledge"

urlpatterns = [
    path("", views.home, name="home"),
    path("contexts/", views.context_index, name="contexts"),
    path("contexts/<uuid:context_id>/", views.context_detail, name="context"),
    path("pending/", views.pending, name="pending"),
    path("lists/", lists.lists_page, name="lists"),
    path("lists/<uuid:claim_id>/", lists.list_item_action, name="list_item"),
    path("claims/<uuid:claim_id>/", views.claim_detail, name="claim"),
    path("claims/<uuid:claim_id>/review/", views.claim_review_view, name="review"),
]
