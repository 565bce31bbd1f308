"""Field validation shared by every write path (services, admin, API, import)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.core.exceptions import ValidationError

from apps.claims.friendly_ids import validate_friendly_id
from apps.claims.models import STATEMENT_MAX_LENGTH, ClaimStatus, ClaimType, Domain
from apps.core.validation import required_text

MAX_QUESTIONS = 20
QUESTION_MAX_LENGTH = 500


def clean_statement(statement: str) -> str:
    statement = required_text(statement, field="statement", what="A claim's statement")
    if len(statement) > STATEMENT_MAX_LENGTH:
        raise ValidationError(
            {
                "statement": f"A statement has at most {STATEMENT_MAX_LENGTH:,} characters "
                f"(this one has {len(statement):,})."
            }
        )
    return statement


def _clean_choices(values: Iterable[str], allowed: Sequence[str], field: str) -> list[str]:
    cleaned: list[str] = []
    for value in values:
        value = str(value).strip().lower()
        if value not in allowed:
            raise ValidationError(
                {
                    field: f"Unknown {field[:-1].replace('_', ' ')} '{value}'. "
                    f"Choose from: {', '.join(allowed)}."
                }
            )
        if value not in cleaned:
            cleaned.append(value)
    return cleaned


def clean_claim_types(values: Iterable[str] | None) -> list[str]:
    cleaned = _clean_choices(values or [], ClaimType.values, "claim_types")
    return cleaned or [ClaimType.FACT]


def clean_domains(values: Iterable[str] | None) -> list[str]:
    return _clean_choices(values or [], Domain.values, "domains")


def clean_status(value: str) -> str:
    if value not in ClaimStatus.values:
        raise ValidationError({"status": f"Unknown status '{value}'."})
    return value


def clean_questions(values: Iterable[str] | None) -> list[str]:
    questions = [q.strip() for q in values or [] if q and q.strip()]
    if len(questions) > MAX_QUESTIONS:
        raise ValidationError({"possible_questions": f"At most {MAX_QUESTIONS} questions."})
    if any(len(q) > QUESTION_MAX_LENGTH for q in questions):
        raise ValidationError(
            {"possible_questions": f"A question has at most {QUESTION_MAX_LENGTH} characters."}
        )
    return questions


def clean_confidence(value: float | None) -> float:
    if value is None:
        return 1.0
    if not 0.0 <= float(value) <= 1.0:
        raise ValidationError({"confidence": "Confidence is between 0 and 1."})
    return float(value)


def clean_friendly_id(value: str, *, kind: str) -> str:
    value = (value or "").strip()
    error = validate_friendly_id(value, kind=kind)
    if error:
        raise ValidationError({"friendly_id": error})
    return value
