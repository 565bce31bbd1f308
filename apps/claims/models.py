from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex, GistIndex, OpClass
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import F
from django.db.models.functions import Upper
from pgvector.django import HnswIndex, VectorField

EMBEDDING_DIMENSIONS = 384
STATEMENT_MAX_LENGTH = 10_000


class ClaimType(models.TextChoices):
    FACT = "fact", "Fact"
    PREFERENCE = "preference", "Preference"
    DECISION = "decision", "Decision"
    GOAL = "goal", "Goal"
    TASK = "task", "Task"
    SHOPPING_ITEM = "shopping_item", "Shopping item"
    RELATIONSHIP = "relationship", "Relationship"
    BELIEF = "belief", "Belief"
    OBSERVATION = "observation", "Observation"
    OTHER = "other", "Other"


class Domain(models.TextChoices):
    PERSONAL = "personal", "Personal"
    HEALTH = "health", "Health"
    WORK = "work", "Work"
    FINANCE = "finance", "Finance"
    RELATIONSHIPS = "relationships", "Relationships"
    LEARNING = "learning", "Learning"
    PROJECTS = "projects", "Projects"
    HOME = "home", "Home"
    TRAVEL = "travel", "Travel"
    HOBBIES = "hobbies", "Hobbies"
    OTHER = "other", "Other"


class ClaimStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    CONTESTED = "contested", "Contested"
    PENDING = "pending", "Pending review"
    RETRACTED = "retracted", "Retracted"
    SUPERSEDED = "superseded", "Superseded"
    # A goal or task completed, a shopping item ticked off: true once, finished now; not
    # "retracted", which says it was wrong (issue 17). It can be restored to active.
    DONE = "done", "Done"


# Only these are used in answers and in context resolution (DESIGN §4).
USABLE_STATUSES = (ClaimStatus.ACTIVE, ClaimStatus.CONTESTED)

# What a person (admin, API) may set on a claim; claim_update takes exactly these.
CLAIM_EDITABLE_FIELDS = (
    "statement",
    "friendly_id",
    "claim_types",
    "domains",
    "status",
    "possible_questions",
    "pinned",
    "confidence",
    "valid_from",
    "valid_until",
    "metadata",
)


class ClaimOrigin(models.TextChoices):
    MANUAL = "manual", "Manual"
    CHAT = "chat", "Chat"
    EXTRACTED = "extracted", "Extracted"
    IMPORTED = "imported", "Imported"
    API = "api", "API"
    MCP = "mcp", "Added over MCP"


class ClaimCounter(models.Model):
    """The last claim number given to a user: numbers are allocated by one atomic upsert."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    last_number = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.last_number}"


class Claim(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="claims"
    )
    number = models.PositiveIntegerField(editable=False)
    friendly_id = models.CharField(max_length=60)
    statement = models.TextField()
    claim_types = ArrayField(
        models.CharField(max_length=20, choices=ClaimType.choices),
        default=list,
        help_text="The first type is the primary one.",
    )
    domains = ArrayField(
        models.CharField(max_length=20, choices=Domain.choices), default=list, blank=True
    )
    status = models.CharField(
        max_length=12, choices=ClaimStatus.choices, default=ClaimStatus.ACTIVE
    )
    possible_questions = ArrayField(
        models.TextField(),
        default=list,
        blank=True,
        help_text="Self-contained questions this claim answers.",
    )
    pinned = models.BooleanField(default=False, help_text="Used in every answer.")
    confidence = models.FloatField(default=1.0)
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_until = models.DateTimeField(null=True, blank=True)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="superseded_by"
    )
    origin = models.CharField(
        max_length=10, choices=ClaimOrigin.choices, default=ClaimOrigin.MANUAL
    )
    # The name of the API token an MCP client added it with, as it was then: the token
    # may be renamed or revoked later, the provenance stays.
    origin_token_name = models.CharField(max_length=100, blank=True, editable=False)
    source_message = models.ForeignKey(
        "chat.Message", null=True, blank=True, on_delete=models.SET_NULL, related_name="claims"
    )
    metadata = models.JSONField(default=dict, blank=True)
    reinforced_count = models.PositiveIntegerField(default=0)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    embedding_model = models.CharField(max_length=100, blank=True, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("statement", "friendly_id", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            # One memory keeps its number and friendly ID across versions: the versions it
            # replaced (superseded rows) share them, so only the current one must be unique.
            models.UniqueConstraint(
                fields=["user", "number"],
                condition=~models.Q(status="superseded"),
                name="claim_number_unique_per_user",
            ),
            models.UniqueConstraint(
                fields=["user", "friendly_id"],
                condition=~models.Q(status="superseded"),
                name="claim_friendly_id_unique_per_user",
            ),
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0, confidence__lte=1),
                name="claim_confidence_between_0_and_1",
            ),
        ]
        indexes = [
            models.Index(fields=["user", "status", "-updated_at"]),
            # Any version by number: a reference to an earlier one finds it here (the
            # unique index above holds current versions only).
            models.Index(fields=["user", "number"], name="claim_user_number_idx"),
            # Newest first across statuses: autocomplete's typo branch and recent lists.
            models.Index(fields=["user", "-updated_at"], name="claim_user_recent_idx"),
            models.Index(
                fields=["user", "pinned"], condition=models.Q(pinned=True), name="claim_pinned_idx"
            ),
            GinIndex(fields=["search_vector"], name="claim_search_vector_idx"),
            # Typo-tolerant look-ups (`<%` word similarity); GIN, as with 10,000 claims a
            # user GiST nearest-neighbour scans measured ten times slower.
            GinIndex(
                OpClass(Upper("friendly_id"), name="gin_trgm_ops"),
                name="claim_friendly_id_trgm_idx",
            ),
            # Prefix look-ups (`LIKE 'abc%'`) whatever the database's collation.
            models.Index(
                F("user"),
                OpClass("friendly_id", name="varchar_pattern_ops"),
                name="claim_friendly_id_prefix_idx",
            ),
            HnswIndex(
                name="claim_embedding_hnsw_idx",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.number} {self.statement[:80]}"

    @property
    def primary_type(self) -> str:
        return self.claim_types[0] if self.claim_types else ClaimType.OTHER

    @property
    def origin_words(self) -> str:
        """Where it came from, as the pages say it: "Added over MCP (Claude Desktop)"."""
        if self.origin == ClaimOrigin.MCP and self.origin_token_name:
            return f"{ClaimOrigin.MCP.label} ({self.origin_token_name})"
        return str(self.get_origin_display())


class ClaimAlias(models.Model):
    """A friendly ID a claim was once known by (renamed by hand or by the migration that
    dropped random hashes), so an ``@old_name`` in an earlier message still finds it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    friendly_id = models.CharField(max_length=60)
    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="aliases")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "claim aliases"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "friendly_id"], name="claim_alias_unique_per_user"
            ),
        ]

    def __str__(self) -> str:
        return f"@{self.friendly_id} → {self.claim_id}"


class EntityType(models.TextChoices):
    PERSON = "person", "Person"
    ORGANISATION = "organisation", "Organisation"
    PLACE = "place", "Place"
    THING = "thing", "Thing"
    EVENT = "event", "Event"


class Entity(models.Model):
    """A person, organisation, place, thing or event the user's claims mention."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="entities"
    )
    name = models.CharField(max_length=200)
    entity_type = models.CharField(
        max_length=20, choices=EntityType.choices, default=EntityType.THING
    )
    friendly_id = models.CharField(max_length=60)
    description = models.TextField(blank=True)
    claims = models.ManyToManyField(Claim, blank=True, related_name="entities")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "friendly_id"], name="entity_friendly_id_unique_per_user"
            ),
        ]
        indexes = [
            GistIndex(
                F("user"),
                OpClass(Upper("friendly_id"), name="gist_trgm_ops"),
                name="entity_friendly_id_trgm_idx",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.entity_type})"


class Tag(models.Model):
    """A user's label, optionally under a parent tag; a tag resolves over its children."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tags"
    )
    name = models.CharField(max_length=100)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    friendly_id = models.CharField(max_length=60)
    claims = models.ManyToManyField(Claim, blank=True, related_name="tags")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "friendly_id"], name="tag_friendly_id_unique_per_user"
            ),
        ]
        indexes = [
            GistIndex(
                F("user"),
                OpClass(Upper("friendly_id"), name="gist_trgm_ops"),
                name="tag_friendly_id_trgm_idx",
            )
        ]

    def __str__(self) -> str:
        return self.name
