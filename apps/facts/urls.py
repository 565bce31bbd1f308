from django.urls import path

from . import views

app_name = "facts"

urlpatterns = [
    path("", views.home, name="home"),
    path("set/", views.set_fact, name="set"),
    path("retract/", views.retract, name="retract"),
]
