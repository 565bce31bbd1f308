from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.indexes import GistIndex, OpClass
from django.db import models
from django.db.models import F
from django.db.models.functions import Upper

MAX_CONTEXT_DEPTH = 10


class Context(models.Model):
    """A node in a user's tree of contexts; referencing it pulls in the whole subtree."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="contexts"
    )
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    friendly_id = models.CharField(max_length=60)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    claims = models.ManyToManyField(
        "claims.Claim", through="ContextClaim", blank=True, related_name="contexts"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "friendly_id"], name="context_friendly_id_unique_per_user"
            ),
            models.CheckConstraint(
                condition=~models.Q(parent=models.F("id")), name="context_not_its_own_parent"
            ),
        ]
        indexes = [
            models.Index(fields=["user", "parent"]),
            GistIndex(
                F("user"),
                OpClass(Upper("friendly_id"), name="gist_trgm_ops"),
                name="context_friendly_id_trgm_idx",
            ),
            GistIndex(
                F("user"),
                OpClass(Upper("name"), name="gist_trgm_ops"),
                name="context_name_trgm_idx",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class ContextClaim(models.Model):
    context = models.ForeignKey(Context, on_delete=models.CASCADE, related_name="memberships")
    claim = models.ForeignKey(
        "claims.Claim", on_delete=models.CASCADE, related_name="context_memberships"
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["context", "claim"], name="context_claim_unique"),
        ]
        indexes = [models.Index(fields=["claim"])]

    def __str__(self) -> str:
        return f"{self.context_id} ∋ {self.claim_id}"


class ContextAlias(models.Model):
    """A friendly ID a context was once known by, so an ``@old_name`` in an earlier message
    still finds it (see ClaimAlias)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    friendly_id = models.CharField(max_length=60)
    context = models.ForeignKey(Context, on_delete=models.CASCADE, related_name="aliases")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "context aliases"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "friendly_id"], name="context_alias_unique_per_user"
            ),
        ]

    def __str__(self) -> str:
        return f"@{self.friendly_id} → {self.context_id}"
