from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

from apps.core.storage import upload_key

EXPORT_SOURCE_NAMES = {"chatgpt": "ChatGPT", "claude": "Claude"}


class Conversation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations"
    )
    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="conversations"
    )
    title = models.CharField(max_length=200, blank=True)
    archived = models.BooleanField(default=False)
    # Where an imported conversation came from ("chatgpt", "claude") and its id there, so a
    # second import of the same export finds it instead of creating it again.
    external_source = models.CharField(max_length=20, blank=True)
    external_id = models.CharField(max_length=200, blank=True)
    pinned_claims = models.ManyToManyField(
        "claims.Claim", blank=True, related_name="pinned_in_conversations"
    )
    # The model this conversation's picker chose, "<connection key>:<model id>" (the
    # connection key is "offline", "env-…" or a ModelConnection id); blank for the site's
    # default. apps/chat/connections/selectors.py resolves it, falling back when it is gone.
    chosen_model = models.CharField(max_length=250, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["user", "archived", "-updated_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "external_source", "external_id"],
                condition=~models.Q(external_id=""),
                name="conversation_imported_once_per_user",
            )
        ]

    def __str__(self) -> str:
        return self.title or "Untitled conversation"

    @property
    def source_name(self) -> str:
        """Where an imported conversation came from, as the vendor writes it."""
        return EXPORT_SOURCE_NAMES.get(self.external_source, self.external_source)


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user", "User"
        ASSISTANT = "assistant", "Assistant"

    class Status(models.TextChoices):
        COMPLETE = "complete", "Complete"
        STREAMING = "streaming", "Streaming"
        PARTIAL = "partial", "Partial"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    content = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.COMPLETE)
    order = models.PositiveIntegerField()
    references = models.JSONField(default=list, blank=True)
    attached_claims = models.ManyToManyField(
        "claims.Claim", blank=True, related_name="attached_to_messages"
    )
    memory_used = models.JSONField(default=list, blank=True)
    sources = models.JSONField(default=list, blank=True)
    # What the alignment review found wrong with the answer ({"type", "ref", "reason"}),
    # kept whether or not it was corrected, so the page can mark the `[N]` (issue 17).
    review_findings = models.JSONField(default=list, blank=True)
    fact_counts = models.JSONField(default=dict, blank=True)
    index_status = models.CharField(max_length=20, blank=True)
    model_name = models.CharField(max_length=100, blank=True)
    # Token counts only ({"input_tokens", "output_tokens"}); what the turn did is below.
    usage = models.JSONField(default=dict, blank=True)
    # What the turn did besides answering (issue 27: these were flags inside `usage`).
    review_corrected = models.BooleanField(
        default=False, help_text="The alignment review corrected the answer."
    )
    memory_distilled = models.BooleanField(
        default=False, help_text="A cheap model condensed the memory the answer was given."
    )
    tool_calls = models.PositiveIntegerField(
        default=0, help_text="How many memory tools the model called while answering."
    )
    # A clarifying question ("Which list do you mean?") offers these lists to pick from.
    clarify_topics = ArrayField(models.TextField(), default=list, blank=True)
    # What the turn told the user besides the answer, kept so a reload shows it too
    # (issue 18): [{"kind": "fact" | "notice", "text": "Saved #1 crypto = BTC"}, …].
    notices = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    external_id = models.CharField(max_length=200, blank=True)
    chat_import = models.ForeignKey(
        "ChatImport", null=True, blank=True, on_delete=models.SET_NULL, related_name="messages"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["conversation", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation", "order"], name="message_order_unique_per_conversation"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:60]}"


def import_upload_to(chat_import: ChatImport, filename: str) -> str:
    """``imports/<user id>/<uuid4>/<name>``: every export is named ``conversations.json``
    or the like, so a key by name and month let a worker open another user's file."""
    return upload_key(kind="imports", user_id=chat_import.user_id, name=filename)


class ChatImport(models.Model):
    """One upload of a ChatGPT or Claude export, worked through in the background: its
    progress is what the Import page's bar and ``GET /api/v1/imports/<id>/`` show."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Waiting to start"
        STORING = "storing", "Storing conversations"
        INDEXING = "indexing", "Making them searchable"
        DONE = "done", "Searchable"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_imports"
    )
    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="chat_imports"
    )
    file = models.FileField(upload_to=import_upload_to, max_length=300)
    file_name = models.CharField(max_length=200)
    source = models.CharField(max_length=20, blank=True)  # detected: chatgpt / claude
    extract_claims = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    conversations_total = models.PositiveIntegerField(default=0)
    conversations_done = models.PositiveIntegerField(default=0)
    conversations_created = models.PositiveIntegerField(default=0)
    messages_total = models.PositiveIntegerField(default=0)
    messages_stored = models.PositiveIntegerField(default=0)
    messages_indexed = models.PositiveIntegerField(default=0)
    # Conversations that could not be stored as they were (counted in conversations_done
    # too): how many, and the first SKIPPED_KEPT as {index, title, reason} (issue 29).
    conversations_skipped = models.PositiveIntegerField(default=0)
    skipped = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.get_status_display()})"

    @property
    def skipped_summary(self) -> str:
        """'2 of 340 conversations skipped: conversation 3 (“Trip plans”): …; …'"""
        listed = "; ".join(
            f"conversation {record.get('index', 0) + 1}"
            + (f" (“{record['title']}”)" if record.get("title") else "")
            + f": {record.get('reason', '')}"
            for record in self.skipped[:5]
        )
        more = " …" if self.conversations_skipped > 5 else ""
        return (
            f"{self.conversations_skipped} of {self.conversations_total} conversations "
            f"skipped: {listed}{more}"
        )

    @property
    def source_name(self) -> str:
        return EXPORT_SOURCE_NAMES.get(self.source, self.source)


# The connections page's models live beside their services; imported so Django sees them.
from apps.chat.connections.models import ModelConnection, ModelDefaults  # noqa: E402, F401
