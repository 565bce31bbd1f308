"""The extraction corpus: every message with the exact facts it must yield.

Precision and recall are counted over (key, value, value_type) triples across the whole
corpus, printed, and both must be 100%: a wrong fact is as bad as a missing one.
Negatives (messages that must yield nothing) count through precision.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from apps.facts.extraction import ExtractionResult, extract_facts

CORPUS = Path(__file__).parent / "corpus" / "facts_corpus.json"
Triple = tuple[str, str, str]


def _load() -> dict[str, Any]:
    return json.loads(CORPUS.read_text(encoding="utf-8"))


def _run(message: dict[str, Any], now: datetime) -> ExtractionResult:
    return extract_facts(
        message["text"],
        now=now,
        existing_topics=message.get("existing_topics", ()),
        recent_topic=message.get("recent_topic"),
    )


def _triples(facts: Any) -> set[Triple]:
    return {(f["key"], f["value"], f["value_type"]) for f in facts}


def test_corpus_is_big_enough_and_covers_every_kind() -> None:
    messages = _load()["messages"]
    assert len(messages) >= 60
    assert len({m["id"] for m in messages}) == len(messages)
    kinds = {m["id"].split("_", 1)[0] for m in messages}
    assert {"rank", "topic", "neg", "email", "url", "date", "qty", "ent", "mixed"} <= kinds
    assert sum(1 for m in messages if not m["expected"]) >= 15


def test_precision_and_recall_are_100_percent(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _load()
    now = datetime.fromisoformat(doc["now"])
    true_positive = false_positive = false_negative = 0
    failures = []
    for message in doc["messages"]:
        result = _run(message, now)
        got = {(f.key, f.value, f.value_type) for f in result.facts}
        want = _triples(message["expected"])
        true_positive += len(got & want)
        false_positive += len(got - want)
        false_negative += len(want - got)
        if got != want:
            failures.append(
                f"{message['id']}: extra {sorted(got - want)} missing {sorted(want - got)}"
            )
    precision = true_positive / ((true_positive + false_positive) or 1)
    recall = true_positive / ((true_positive + false_negative) or 1)
    with capsys.disabled():
        print(
            f"\nfacts corpus: {len(doc['messages'])} messages, {true_positive + false_negative} "
            f"expected facts, precision {precision:.1%}, recall {recall:.1%}"
        )
    assert failures == []
    assert precision == 1.0
    assert recall == 1.0


@pytest.mark.parametrize("message", _load()["messages"], ids=lambda m: m["id"])
def test_each_message(message: dict[str, Any]) -> None:
    """One case per message, so a regression names the sentence it broke."""
    now = datetime.fromisoformat(_load()["now"])
    result = _run(message, now)

    assert {(f.key, f.value, f.value_type) for f in result.facts} == _triples(message["expected"])
    assert list(result.ambiguous_topics) == message.get("ambiguous_topics", [])
    if "rank_markers" in message:
        markers = [message["text"][start:end] for start, end in result.rank_spans]
        assert markers == message["rank_markers"]
    for fact in result.facts:
        start, end = fact.span
        assert 0 <= start <= fact.value_span[0] <= fact.value_span[1] <= end <= len(message["text"])
