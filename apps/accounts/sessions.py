"""Sessions end everywhere (issue 29): a websocket outlived the session that opened it.

A socket is authenticated once, at its handshake; a chat socket opened before logout (or
before a password change elsewhere) kept running full turns. So every socket of a user
joins that user's ``auth`` group on the channel layer (Redis when scaled out, so it
reaches sockets on every server process), and:

- **logout** closes the sockets of the session that logged out with 4401 (the page says
  "You were signed out" and goes to the login page);
- **a password change** closes every socket of the user with 4409: the page connects
  again a moment later (once the tab that changed it holds its new session cookie), and
  the handshake, which checks the session against the new password, lets the session
  that changed it back in and closes the others with 4401. It also revokes
  the user's API tokens, which are kept and listed as revoked, with the reason, and
  deletes the user's other sessions from the session store (issue 30), so a stolen
  cookie dies with the old password rather than at its next request.

Each signed-in browser is a ``UserSession`` row (noted by ``SessionSeenMiddleware``), so
Settings → Sessions lists them and ends one, or all but this one, from any device.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta
from importlib import import_module
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from .models import ApiToken, User, UserSession

CLOSE_UNAUTHENTICATED = 4401  # not signed in, or signed out: go to the login page
CLOSE_SESSION_CHANGED = 4409  # the password changed: connect again to find out which
SESSION_ENDED = "session.ended"  # the channel message; consumers handle session_ended()
TOKENS_REVOKED_NOTE = "Revoked when the account's password was changed."
# How often a browser's "last seen" is written: every request would be a write per page.
SEEN_EVERY = timedelta(minutes=5)


def auth_group_name(user_id: object) -> str:
    return f"auth.{user_id}"


def session_tag(session_key: str | None) -> str | None:
    """Which session a socket belongs to, without putting the key itself on the wire."""
    return hashlib.sha256(session_key.encode()).hexdigest()[:32] if session_key else None


def _sockets_close(*, user_id: int, session_key: str | None, code: int) -> None:
    """Close the user's sockets (only the session's, when ``session_key`` is given) once
    the transaction that ended the session commits."""
    message = {"type": SESSION_ENDED, "session": session_tag(session_key), "code": code}
    layer = get_channel_layer()
    if layer is not None:
        send = async_to_sync(layer.group_send)
        transaction.on_commit(lambda: send(auth_group_name(user_id), message), robust=True)


def _session_store() -> SessionBase:
    engine = import_module(settings.SESSION_ENGINE)
    store: SessionBase = engine.SessionStore()
    return store


def user_logged_out(*, user: User, session_key: str | None) -> None:
    if session_key:
        UserSession.objects.filter(user=user, session_key=session_key).delete()
        _sockets_close(user_id=user.pk, session_key=session_key, code=CLOSE_UNAUTHENTICATED)


def user_password_changed(*, user: User) -> int:
    """Revoke the user's API tokens, end their sessions and close their sockets; how many
    tokens it revoked. The session that changed the password keeps its user signed in:
    Django gives it a new key right after (``update_session_auth_hash``), which the
    middleware notes as a new row."""
    revoked = ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_reason=TOKENS_REVOKED_NOTE
    )
    _sessions_end(UserSession.objects.filter(user=user), code=None)
    _sockets_close(user_id=user.pk, session_key=None, code=CLOSE_SESSION_CHANGED)
    return revoked


def _sessions_end(rows: QuerySet[UserSession], *, code: int | None) -> int:
    """Delete the sessions of ``rows`` from the store and the rows; close each one's
    sockets with ``code`` (None: the caller closes them all at once)."""
    store = _session_store()
    ended = list(rows.values_list("user_id", "session_key"))
    for user_id, session_key in ended:
        store.delete(session_key)
        if code is not None:
            _sockets_close(user_id=user_id, session_key=session_key, code=code)
    rows.delete()
    return len(ended)


def session_seen(*, user: User, session_key: str, user_agent: str, ip_address: str | None) -> None:
    """Note that this browser session was used now (one upsert: a page and its requests
    may arrive together), and forget the user's rows of sessions that expired long ago."""
    now = timezone.now()
    UserSession.objects.bulk_create(
        [
            UserSession(
                user=user,
                session_key=session_key,
                user_agent=user_agent[:300],
                ip_address=ip_address or None,
                last_seen_at=now,
            )
        ],
        update_conflicts=True,
        unique_fields=["session_key"],
        update_fields=["user", "user_agent", "ip_address", "last_seen_at"],
    )
    stale = now - timedelta(seconds=settings.SESSION_COOKIE_AGE)
    UserSession.objects.filter(user=user, last_seen_at__lt=stale).delete()


def session_end(*, user: User, session_id: uuid.UUID) -> bool:
    """Sign one of the user's browser sessions out; False when it is not theirs (or gone),
    which the page answers like a missing one."""
    return (
        _sessions_end(
            UserSession.objects.filter(user=user, id=session_id), code=CLOSE_UNAUTHENTICATED
        )
        > 0
    )


def sessions_end_others(*, user: User, keep_session_key: str | None) -> int:
    """Sign out every browser session of the user but ``keep_session_key``; how many."""
    others = UserSession.objects.filter(user=user).exclude(session_key=keep_session_key or "")
    return _sessions_end(others, code=CLOSE_UNAUTHENTICATED)


_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chrome/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Android", "Android"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def device_label(user_agent: str) -> str:
    """ "Firefox on Windows" from a User-Agent header; "Unknown browser" without one."""
    if not user_agent.strip():
        return "Unknown browser"
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), "")
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or user_agent[:60]


def on_user_logged_out(sender: Any, request: Any, user: User | None, **kwargs: Any) -> None:
    """Django's ``user_logged_out`` signal (the logout page and the admin's), sent before
    the session is flushed."""
    if user is not None and request is not None:
        user_logged_out(user=user, session_key=request.session.session_key)
