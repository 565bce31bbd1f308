from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import path, reverse_lazy
from django.views.generic import RedirectView

from . import views

app_name = "accounts"

# Password reset by e-mail with Django's own views (issue 30); the templates are the
# site's (templates/registration/password_reset_*.html).
password_reset_urls = [
    path(
        "password/reset/",
        views.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            extra_context={"timeout_hours": settings.PASSWORD_RESET_TIMEOUT // 3600}
        ),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            success_url=reverse_lazy("accounts:password_reset_complete")
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]

urlpatterns = [
    # Django's default LOGIN_URL, which people and tools still try; ?next= is kept.
    path(
        "login/",
        login_not_required(RedirectView.as_view(pattern_name="login", query_string=True)),
        name="login_redirect",
    ),
    path("signup/", views.signup, name="signup"),
    path("settings/", views.settings_view, name="settings"),
    path(
        "sessions/<uuid:session_id>/sign-out/",
        views.session_sign_out,
        name="session_sign_out",
    ),
    path("sessions/sign-out-others/", views.sessions_sign_out_others, name="sessions_sign_out"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<uuid:token_id>/revoke/", views.token_revoke, name="token_revoke"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(success_url="/accounts/password/done/"),
        name="password_change",
    ),
    path(
        "password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"
    ),
    *password_reset_urls,
]
