"""Memories from an exchange (DESIGN §7 step 12): an LLM extractor when Claude is
configured, rules otherwise. Only the user's own words become claims."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from apps.claims.services.validation import (
    clean_claim_types,
    clean_domains,
    clean_questions,
    clean_statement,
)

MAX_CANDIDATES = 8
MAX_STATEMENT_CHARS = 300


@dataclass(frozen=True)
class Candidate:
    statement: str
    claim_types: tuple[str, ...]
    domains: tuple[str, ...] = ()
    possible_questions: tuple[str, ...] = ()


# (pattern, claim type). Each matches a whole first-person sentence, kept as it was said.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), claim_type)
    for pattern, claim_type in (
        (r"^(?:please )?remember (?:that )?(?P<s>.+)$", "fact"),
        (
            r"^I (?:really |much |strongly )?"
            r"(?:prefer|like|love|enjoy|hate|dislike|can't stand)\b.+$",
            "preference",
        ),
        (r"^I(?:'m| am) (?:allergic|vegetarian|vegan|left-handed|right-handed)\b.*$", "fact"),
        (r"^I (?:live|grew up|was born) in\b.+$", "fact"),
        (r"^I work (?:at|for|as|in|on)\b.+$", "fact"),
        (r"^My (?:goal|aim|plan) (?:is|for .+ is) to\b.+$", "goal"),
        (r"^I (?:want|plan|intend|hope) to\b.+$", "goal"),
        (r"^I (?:have|need) to buy\b.+$", "shopping_item"),
        (r"^(?:add|put) (?P<s>.+?) (?:to|on) my shopping list$", "shopping_item"),
        (r"^I(?:'ve| have)? decided (?:to|that)\b.+$", "decision"),
        (r"^My (?!#\d)(?:\w+ ){0,3}(?:is|are) (?!\d+[.,]?\d*\b).+$", "fact"),
    )
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_QUESTION = re.compile(r"\?\s*$")


def rule_based_candidates(user_text: str) -> list[Candidate]:
    found: list[Candidate] = []
    for sentence in _SENTENCES.split(user_text[:5000]):
        sentence = sentence.strip().strip("\"'").strip()
        if not sentence or _QUESTION.search(sentence) or len(sentence) > MAX_STATEMENT_CHARS:
            continue
        if "@" in sentence or "#" in sentence:  # references and ranks are handled elsewhere
            continue
        body = sentence.rstrip(".!")
        for pattern, claim_type in _RULES:
            match = pattern.match(body)
            if match:
                statement = (match.groupdict().get("s") or body).strip()
                if claim_type == "shopping_item" and match.groupdict().get("s"):
                    statement = f"Buy {statement}"
                found.append(
                    Candidate(
                        statement=statement[0].upper() + statement[1:], claim_types=(claim_type,)
                    )
                )
                break
    return found[:MAX_CANDIDATES]


EXTRACT_SYSTEM = (
    "You extract durable personal memories from one chat exchange. Return only a JSON "
    'array. Each item: {"statement": a self-contained sentence about the user, '
    '"claim_types": [one or more of fact, preference, decision, goal, task, '
    'shopping_item, relationship, belief, observation, other], "domains": [personal, '
    "health, work, finance, relationships, learning, projects, home, travel, hobbies, "
    'other], "possible_questions": [self-contained questions it answers]}. Only what the '
    "user said about themselves; nothing from the assistant; [] when nothing is durable."
)


def parse_llm_candidates(reply: str) -> list[Candidate]:
    """Validated structured output: anything malformed is dropped, never stored."""
    start, end = reply.find("["), reply.rfind("]")
    if start < 0 or end <= start:
        return []
    try:
        items = json.loads(reply[start : end + 1])
    except json.JSONDecodeError:
        return []
    found: list[Candidate] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        try:
            statement = clean_statement(str(item.get("statement", "")))[:MAX_STATEMENT_CHARS]
            found.append(
                Candidate(
                    statement=statement,
                    claim_types=tuple(clean_claim_types(_strings(item.get("claim_types")))),
                    domains=tuple(clean_domains(_strings(item.get("domains")))),
                    possible_questions=tuple(
                        clean_questions(_strings(item.get("possible_questions")))
                    ),
                )
            )
        except ValidationError:
            continue
    return found[:MAX_CANDIDATES]


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []
