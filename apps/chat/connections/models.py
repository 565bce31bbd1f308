"""The connections the site's administrator adds, and the site's default and cheap
models. Site configuration, not a user's data: only staff read or change it, on the
connections page. Registered through apps/chat/models.py."""

from __future__ import annotations

import uuid

from django.db import models


class ModelConnection(models.Model):
    class Kind(models.TextChoices):
        ANTHROPIC = "anthropic", "Anthropic (Claude)"
        OPENAI = "openai", "OpenAI-compatible server"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=100)
    base_url = models.CharField(max_length=500, blank=True)  # OpenAI-compatible only
    # A Fernet token (apps/chat/connections/secrets.py), never the key itself; the last
    # four characters are kept apart so the page can tell keys apart without showing one.
    api_key_encrypted = models.TextField(blank=True)
    api_key_last4 = models.CharField(max_length=4, blank=True)
    # The model ids the server listed at its last successful test.
    model_ids = models.JSONField(default=list, blank=True)
    tested_at = models.DateTimeField(null=True, blank=True)
    test_ok = models.BooleanField(null=True)
    test_message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return self.name


class ModelDefaults(models.Model):
    """One row: the model that answers when a conversation picks none, and the cheap one
    (distillation, the citation review, memory extraction). A blank cheap model means the
    default model does that work too."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    default_connection = models.ForeignKey(
        ModelConnection, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    default_model = models.CharField(max_length=200, blank=True)
    cheap_connection = models.ForeignKey(
        ModelConnection, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    cheap_model = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "model defaults"
        constraints = [
            models.CheckConstraint(condition=models.Q(id=1), name="model_defaults_one_row")
        ]

    def __str__(self) -> str:
        return "Model defaults"
