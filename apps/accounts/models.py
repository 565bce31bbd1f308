from __future__ import annotations

import hashlib
import uuid
from typing import Any, ClassVar

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models


class MemoryMode(models.TextChoices):
    OFF = "off", "Off — never extract memories"
    SUGGEST = "suggest", "Suggest — extracted memories wait for my review"
    AUTO = "auto", "Auto — extracted memories are used at once"


class EmailUserManager(UserManager["User"]):
    """Users log in with their e-mail address; there is no username."""

    def _create_user_object(
        self, username: Any, email: str | None, password: str | None, **extra_fields: Any
    ) -> User:
        if not email:
            raise ValueError("An e-mail address is required.")
        user = self.model(email=self.normalize_email(email).lower(), **extra_fields)
        user.set_password(password)
        return user

    def _create_user(
        self, username: Any, email: str | None, password: str | None, **extra_fields: Any
    ) -> User:
        user = self._create_user_object(username, email, password, **extra_fields)
        user.save(using=self._db)
        return user

    def create_user(  # type: ignore[override]
        self,
        email: str | None = None,
        password: str | None = None,  # type: ignore[override]
        **extra_fields: Any,
    ) -> User:
        extra_fields.setdefault("is_staff", False)
        extra_fields.setdefault("is_superuser", False)
        return self._create_user(None, email, password, **extra_fields)

    def create_superuser(  # type: ignore[override]
        self,
        email: str | None = None,
        password: str | None = None,  # type: ignore[override]
        **extra_fields: Any,
    ) -> User:
        extra_fields.setdefault("is_staff", True)
        extra_fields.setdefault("is_superuser", True)
        return self._create_user(None, email, password, **extra_fields)


class User(AbstractUser):
    username = None  # type: ignore[assignment]
    email = models.EmailField("e-mail address", unique=True)
    display_name = models.CharField(max_length=150, blank=True)
    memory_mode = models.CharField(
        max_length=10,
        choices=MemoryMode.choices,
        default=MemoryMode.SUGGEST,
        help_text="What Cairn does with memories it finds in your conversations.",
    )
    # The admin is open to every user as a knowledge editor (DESIGN §3), but only staff
    # see it in the menu unless they ask for it in Settings (issue 30).
    show_admin = models.BooleanField(default=False)

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    objects: ClassVar[EmailUserManager] = EmailUserManager()  # type: ignore[assignment]

    class Meta:
        ordering = ["email"]

    def __str__(self) -> str:
        return self.email

    @property
    def sees_admin(self) -> bool:
        """Whether the menus offer the admin: staff, or a user who asked for it."""
        return self.is_staff or self.show_admin

    @property
    def name(self) -> str:
        return self.display_name or self.email.split("@")[0]

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Every door that changes a password (the settings page, a reset, the admin,
        # manage.py changepassword) ends in set_password() and save(); Django marks the
        # change in _password for its own validators, and so is it caught here, once.
        # (A hash upgrade on login clears the mark first: it is no change.)
        password_changed = getattr(self, "_password", None) is not None and not self._state.adding
        super().save(*args, **kwargs)
        if password_changed:
            from .sessions import user_password_changed  # sessions imports this module

            user_password_changed(user=self)


class TokenAccess(models.TextChoices):
    # What a read-only token may do is what the MCP tools marked readOnlyHint do and what
    # the REST API's safe methods (GET, HEAD, OPTIONS) do: search, list, read, get facts,
    # resolve references. The rule itself is api_token_may_write (services.py).
    READ = "read", "Read only — search, list and read"
    WRITE = "write", "Read and write — also add, change and retract memories and set facts"


def hash_token_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A named API token. Only a hash of the key is stored; the key is shown once."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey("accounts.User", on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(
        max_length=8, editable=False, help_text="First characters, to tell tokens apart."
    )
    access = models.CharField(
        max_length=5,
        choices=TokenAccess.choices,
        # Tokens made before access levels existed could write; they still can.
        default=TokenAccess.WRITE,
        help_text="What integrations using this token may do.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # A token revoked by a password change stays listed, with why, so its owner knows
    # which integrations to give a new one; revoking one by hand deletes it.
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class UserSession(models.Model):
    """A signed-in browser, as Settings → Sessions lists it. The session itself lives in
    Django's session store; this row says which user it belongs to and what it looked
    like, so one can be ended from another device. The page names a row by ``id``: the
    session key is a secret and never leaves the server."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        "accounts.User", on_delete=models.CASCADE, related_name="browser_sessions"
    )
    session_key = models.CharField(max_length=40, unique=True, editable=False)
    user_agent = models.CharField(max_length=300, blank=True)
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField()

    class Meta:
        ordering = ["-last_seen_at"]

    def __str__(self) -> str:
        return f"{self.user} · {self.user_agent[:40]}"
