from __future__ import annotations

import secrets

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from .models import ApiToken, MemoryMode, TokenAccess, User, hash_token_key
from .signals import user_created


@transaction.atomic
def user_create(*, email: str, password: str, display_name: str = "") -> User:
    """Create a user; the apps above accounts set up what a new user has (``user_created``:
    the projects app makes the Personal project) in the same transaction. The password
    must pass the validators."""
    user = User(email=User.objects.normalize_email(email).lower(), display_name=display_name)
    validate_password(password, user)
    user.set_password(password)
    user.full_clean(exclude=["password"])
    user.save()
    user_created.send(sender=User, user=user)
    return user


def user_update_settings(
    *, user: User, display_name: str, memory_mode: str, show_admin: bool = False
) -> User:
    if memory_mode not in MemoryMode.values:
        raise ValueError(f"Unknown memory mode {memory_mode!r}.")
    user.display_name = display_name
    user.memory_mode = memory_mode
    user.show_admin = show_admin
    user.save(update_fields=["display_name", "memory_mode", "show_admin"])
    return user


def api_token_create(
    *, user: User, name: str, access: str = TokenAccess.WRITE
) -> tuple[ApiToken, str]:
    """Create a token and return it with its key, which is never retrievable again."""
    if access not in TokenAccess.values:
        raise ValidationError({"access": f"Choose one of {', '.join(TokenAccess.values)}."})
    key = secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name.strip() or "API token",
        key_hash=hash_token_key(key),
        prefix=key[:8],
        access=access,
    )
    return token, key


# Said by both doors that refuse a read-only token's write (the REST API's 403, the MCP
# tool error), so a person reads the same sentence wherever they meet it.
READ_ONLY_REFUSAL = (
    "This API token is read-only: it may search, list and read memory but not change it. "
    "Create a read-and-write token under Settings → API tokens to let this integration "
    "save memories."
)


def api_token_may_write(*, token: ApiToken) -> bool:
    """Whether integrations using ``token`` may change memory (add, edit, retract, set
    facts), or only read it. The one rule behind the REST API and the MCP server."""
    return token.access == TokenAccess.WRITE


def api_token_revoke(*, user: User, token_id: str) -> None:
    # Filtering by user makes another user's token indistinguishable from a missing one.
    ApiToken.objects.filter(user=user, id=token_id).delete()


def api_token_touch(*, token: ApiToken) -> None:
    now = timezone.now()
    # Writing on every request would be wasteful; a minute's precision is enough to show.
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)


def api_token_for_key(*, key: str) -> ApiToken | None:
    """The token a key opens (its last use noted), or None for a missing, revoked
    (deleted, or revoked by a password change) or malformed key, or an inactive user:
    the REST API and the MCP endpoint authenticate the same way."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=hash_token_key(key), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    api_token_touch(token=token)
    return token


def api_token_user(*, key: str) -> User | None:
    token = api_token_for_key(key=key)
    return token.user if token is not None else None
