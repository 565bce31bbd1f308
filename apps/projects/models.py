from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Project(models.Model):
    """The workspace that owns conversations, facts and file sources."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="projects"
    )
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=140)
    description = models.TextField(blank=True)
    archived = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["archived", "name"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "slug"], name="project_slug_unique_per_owner"),
        ]

    def __str__(self) -> str:
        return self.name
