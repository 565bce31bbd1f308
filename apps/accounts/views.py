from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import PasswordResetForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django_ratelimit.core import is_ratelimited

from apps.core.request_user import current_user

from .forms import ApiTokenForm, SettingsForm, SignUpForm
from .handoff import MCP_PATH, mcp_snippets
from .models import UserSession
from .selectors import api_token_list, session_list
from .services import api_token_create, api_token_revoke, user_create, user_update_settings
from .sessions import device_label, session_end, sessions_end_others


def signup_limited(request: HttpRequest) -> bool:
    """Counts this sign-up attempt against its address; whether it is over the rate."""
    return is_ratelimited(
        request,
        group="accounts.signup",
        key="ip",
        rate=settings.CAIRN_SIGNUP_RATE,
        method="POST",
        increment=True,
    )


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset view, counting requests per address: each one sends an e-mail, so
    a script must not turn the form into a way to flood someone's inbox."""

    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        if is_ratelimited(
            self.request,
            group="accounts.password_reset",
            key="ip",
            rate=settings.CAIRN_RESET_EMAIL_RATE,
            method="POST",
            increment=True,
        ):
            form.add_error(None, "Too many reset requests from this address. Try again later.")
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().form_valid(form)


@login_not_required
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("chat:home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and signup_limited(request):
        form.add_error(None, "Too many new accounts from this address. Try again later.")
        return render(request, "registration/signup.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        user = user_create(
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
            display_name=form.cleaned_data["display_name"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, "Welcome to Cairn. Start a conversation below.")
        return redirect("chat:home")
    return render(request, "registration/signup.html", {"form": form})


@require_http_methods(["GET", "POST"])
def settings_view(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    initial = {
        "display_name": user.display_name,
        "memory_mode": user.memory_mode,
        "show_admin": user.show_admin,
    }
    form = SettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        user_update_settings(user=user, **form.cleaned_data)
        messages.success(request, "Settings saved.")
        return redirect("accounts:settings")
    return render(
        request, "accounts/settings.html", {"form": form, "sessions": _sessions_shown(request)}
    )


@dataclass(frozen=True)
class SessionShown:
    row: UserSession
    device: str
    current: bool


def _sessions_shown(request: HttpRequest) -> list[SessionShown]:
    """Settings → Sessions: each signed-in browser, this one first and marked."""
    current = request.session.session_key
    rows = [
        SessionShown(
            row=row, device=device_label(row.user_agent), current=row.session_key == current
        )
        for row in session_list(user=current_user(request))
    ]
    return sorted(rows, key=lambda item: not item.current)


@require_POST
def session_sign_out(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """End one browser session of the user's; another user's answers 404."""
    if not session_end(user=current_user(request), session_id=session_id):
        raise Http404("No such session.")
    messages.success(request, "Signed that browser out.")
    return redirect(f"{reverse('accounts:settings')}#sessions")


@require_POST
def sessions_sign_out_others(request: HttpRequest) -> HttpResponse:
    ended = sessions_end_others(
        user=current_user(request), keep_session_key=request.session.session_key
    )
    messages.success(
        request,
        f"Signed out {ended} other browser{'s' if ended != 1 else ''}."
        if ended
        else "No other browser was signed in.",
    )
    return redirect(f"{reverse('accounts:settings')}#sessions")


@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    form = ApiTokenForm(request.POST or None)
    new_token, new_key = None, None
    if request.method == "POST" and form.is_valid():
        new_token, new_key = api_token_create(
            user=current_user(request),
            name=form.cleaned_data["name"],
            access=form.cleaned_data["access"],
        )
        form = ApiTokenForm()
    # As the browser reached this site, so the URL works from where the person is.
    mcp_url = request.build_absolute_uri(MCP_PATH)
    return render(
        request,
        "accounts/tokens.html",
        {
            "form": form,
            "tokens": api_token_list(user=current_user(request)),
            "new_token": new_token,
            "new_key": new_key,
            "mcp_url": mcp_url,
            "snippets": mcp_snippets(url=mcp_url, key=new_key),
        },
    )


@require_POST
def token_revoke(request: HttpRequest, token_id: str) -> HttpResponse:
    api_token_revoke(user=current_user(request), token_id=token_id)
    messages.success(request, "Token revoked. Integrations using it stop working at once.")
    return redirect("accounts:tokens")
