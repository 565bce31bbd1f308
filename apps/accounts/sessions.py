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
  the user's API tokens, which are kept and listed as revoked, with the reason. The other
  sessions' pages are refused by Django itself at their next request.
"""

from __future__ import annotations

import hashlib
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from .models import ApiToken, User

CLOSE_UNAUTHENTICATED = 4401  # not signed in, or signed out: go to the login page
CLOSE_SESSION_CHANGED = 4409  # the password changed: connect again to find out which
SESSION_ENDED = "session.ended"  # the channel message; consumers handle session_ended()
TOKENS_REVOKED_NOTE = "Revoked when the account's password was changed."


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


def user_logged_out(*, user: User, session_key: str | None) -> None:
    if session_key:
        _sockets_close(user_id=user.pk, session_key=session_key, code=CLOSE_UNAUTHENTICATED)


def user_password_changed(*, user: User) -> int:
    """Revoke the user's API tokens and close their sockets; how many tokens it revoked."""
    revoked = ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_reason=TOKENS_REVOKED_NOTE
    )
    _sockets_close(user_id=user.pk, session_key=None, code=CLOSE_SESSION_CHANGED)
    return revoked


def on_user_logged_out(sender: Any, request: Any, user: User | None, **kwargs: Any) -> None:
    """Django's ``user_logged_out`` signal (the logout page and the admin's), sent before
    the session is flushed."""
    if user is not None and request is not None:
        user_logged_out(user=user, session_key=request.session.session_key)
