"""ProjectFact: a structured key/value kept current per project, with its history (DESIGN §4).

Every write makes a new row; rows are never edited except to stop being current, and
never deleted (only a whole project's deletion removes them). The rows of one key form a
linear chain through ``supersedes``: each row names the row it replaced, and a row is
replaced at most once (``supersedes`` is one-to-one). The chain's last row is the *head*:
it is current, or it was retracted (``retracted_at`` set, ``is_current`` false). Storing
the key again after a retraction starts a new current row that supersedes the retracted
one, so the chain stays the key's complete history.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.utils import timezone

MAX_KEY_LENGTH = 500


class FactValueType(models.TextChoices):
    STRING = "string", "Text"
    NUMBER = "number", "Number"
    BOOL = "bool", "Yes / no"
    DATE = "date", "Date"
    JSON = "json", "JSON"


class FactOrigin(models.TextChoices):
    EXTRACTED = "extracted", "Extracted from chat"
    MANUAL = "manual", "Set by hand"
    API = "api", "Set through the API"
    MCP = "mcp", "Added over MCP"


class ProjectFact(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="facts")
    fact_key = models.CharField(max_length=MAX_KEY_LENGTH)
    value_text = models.TextField()
    value_type = models.CharField(
        max_length=10, choices=FactValueType.choices, default=FactValueType.STRING
    )
    confidence = models.FloatField(default=1.0)
    origin = models.CharField(max_length=10, choices=FactOrigin.choices)
    # The API token's name when an MCP client set it (see Claim.origin_token_name).
    origin_token_name = models.CharField(max_length=100, blank=True, editable=False)
    # What the extractor read (ranked, email, url, date, quantity, entity); blank otherwise.
    kind = models.CharField(max_length=20, blank=True)
    # The group a fact is shown and counted under: a ranked list's topic ("crypto") for
    # user.favorites.<topic>.<rank>, a namespace ("profile", "dates", "mentioned" …)
    # otherwise; see services.values.key_topic. ``rank`` is set for ranked items only.
    topic = models.CharField(max_length=120, blank=True)
    rank = models.PositiveIntegerField(null=True, blank=True)
    source_message = models.ForeignKey(
        "chat.Message",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="project_facts",
    )
    # Where in the source message the statement was made: ``content[span_start:span_end]``.
    span_start = models.PositiveIntegerField(null=True, blank=True)
    span_end = models.PositiveIntegerField(null=True, blank=True)
    effective_at = models.DateTimeField(default=timezone.now)
    # RESTRICT: a superseded row cannot be deleted on its own, but a project's deletion,
    # which cascades to every row of the chain, still goes through.
    supersedes = models.OneToOneField(
        "self",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="superseded_by",
    )
    is_current = models.BooleanField(default=True)
    retracted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # No "project" here: ordering by a foreign key would join and sort by the
        # project's own ordering on every read of a project's facts.
        ordering = ["fact_key", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "fact_key"],
                condition=Q(is_current=True),
                name="projectfact_one_current_per_key",
            ),
            models.CheckConstraint(
                condition=Q(retracted_at__isnull=True) | Q(is_current=False),
                name="projectfact_retracted_not_current",
            ),
            models.CheckConstraint(
                condition=Q(value_type__in=FactValueType.values),
                name="projectfact_value_type_valid",
            ),
            models.CheckConstraint(condition=~Q(fact_key=""), name="projectfact_key_not_empty"),
        ]
        indexes = [
            # The page, the API and facts_relevant read a project's current facts by topic;
            # topic resolution reads the distinct topics of its ranked lists.
            models.Index(
                fields=["project", "topic", "rank", "fact_key"],
                condition=Q(is_current=True),
                name="projectfact_current_topic",
            ),
            # A key's history, newest first.
            models.Index(
                fields=["project", "fact_key", "-created_at"], name="projectfact_key_history"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.fact_key} = {self.value_text[:60]}"

    @property
    def is_ranked(self) -> bool:
        return self.rank is not None

    @property
    def status(self) -> str:
        if self.is_current:
            return "current"
        return "retracted" if self.retracted_at is not None else "superseded"

    @property
    def origin_words(self) -> str:
        """Where it came from, as the facts page says it after "set …": "from chat",
        "set by hand", "added over MCP (Claude Desktop)"."""
        if self.origin == FactOrigin.EXTRACTED:
            return "from chat"
        label = str(self.get_origin_display())
        words = label[:1].lower() + label[1:]  # "added over MCP": lower-case, MCP kept
        if self.origin == FactOrigin.MCP and self.origin_token_name:
            return f"{words} ({self.origin_token_name})"
        return words
