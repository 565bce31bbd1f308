from django.urls import path

from config.views import section_pending

from . import views

app_name = "chat"

urlpatterns = [
    path("", views.home, name="home"),
    path("files/", section_pending, {"section": "files"}, name="files"),
    path("facts/", section_pending, {"section": "facts"}, name="facts"),
]
