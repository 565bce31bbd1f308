"""Bad input: huge messages are bounded; unicode, emoji and RTL text never break anything."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from apps.facts.extraction import MAX_EXTRACT_CHARS, extract_facts

NOW = datetime(2025, 6, 11, 10, 0, tzinfo=UTC)


def test_a_100_kb_message_is_read_up_to_the_limit_and_flagged() -> None:
    head = "My favorite crypto is XMR. "
    tail = "my #1 crypto is BTC. "  # beyond the limit: never read
    text = head + "lorem ipsum dolor sit amet " * 4_000 + tail
    assert len(text) > 100_000

    result = extract_facts(text, now=NOW)

    assert result.truncated
    assert {f.key: f.value for f in result.facts} == {"user.favorites.crypto.1": "XMR"}


def test_short_messages_are_not_flagged() -> None:
    assert not extract_facts("x" * MAX_EXTRACT_CHARS, now=NOW).truncated


@pytest.mark.parametrize(
    "text",
    [
        "a" * 100_000,
        " " * 100_000,
        "1" * 100_000,
        "#1" * 50_000,
        "my #1 is " * 12_000,
        "a@" * 50_000,
        "a." * 50_000,
        "Abc " * 25_000,
        "\U0001f680" * 100_000,
        "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd " * 10_000,
        "my favorite crypto is BTC, " * 4_000,
        "1) Blue, " * 12_000,
        "https://" + "a" * 100_000,
        "John Smith met Anna in Paris. " * 4_000,
        '"' * 100_000,
        "\x00\ufeff\u200b\u200f" * 25_000,
    ],
    ids=lambda t: repr(t[:12]),
)
def test_hostile_input_is_handled(text: str) -> None:
    """Bounded regular expressions: each of these returns (no time asserted; see bench/)."""
    result = extract_facts(text, now=NOW)
    assert result.truncated == (len(text) > MAX_EXTRACT_CHARS)


@pytest.mark.parametrize(
    "text",
    [
        "\u0645\u0641\u0636\u0644\u064a \u0647\u0648 BTC \u2014 my #1 crypto is BTC \U0001f680",
        "my #1 crypto is \u0628\u064a\u062a\u0643\u0648\u064a\u0646",
        "my favorite color is \u05db\u05d7\u05d5\u05dc \U0001f499",
        "\u6211\u6700\u559c\u6b22\u7684\u662f BTC. my favorite food is \u5bff\u53f8",
        "my #1 crypto is \U0001f468\u200d\U0001f469\u200d\U0001f467 BTC",
        "\u202emy #1 crypto is BTC\u202c",
        "my email is \u00e9l\u00e8ve@\u00e9cole.fr",
    ],
)
def test_unicode_emoji_and_rtl_never_crash_and_spans_are_exact(text: str) -> None:
    for fact in extract_facts(text, now=NOW).facts:
        if fact.kind not in ("date", "quantity"):
            assert text[slice(*fact.value_span)] == fact.value
        assert fact.value == fact.value.strip()


def test_rtl_values_are_kept_as_typed() -> None:
    facts = extract_facts(
        "my #1 crypto is \u0628\u064a\u062a\u0643\u0648\u064a\u0646", now=NOW
    ).facts
    assert [(f.key, f.value) for f in facts] == [
        ("user.favorites.crypto.1", "\u0628\u064a\u062a\u0643\u0648\u064a\u0646")
    ]


def test_random_mixtures_keep_the_invariants() -> None:
    """Property check over many random messages built from tricky pieces."""
    # fmt: off
    pieces = [
        "my", "#1", "#2", "is", "are", "favorite", "crypto", "BTC", "ETH", "and", ",", ".",
        "?", "make", "top", "3", "1)", "2)", "first:", "second:", "@claim_5", "x@y.io",
        "https://a.b/c(d)", "www.e.com", "March", "3", "3/4/2025", "next", "Friday", "in", "3",
        "days", "$300", "5", "kg", "3.5", "hours", "John", "Paris", "مرحبا", "🚀", "\u200f",
        "I", "live", "in", "my", "wife", "Anna", "\n", "“quoted”", '"', "'", "é", "日本", "my",
        "#", "##1",
    ]
    # fmt: on
    rng = random.Random(7)
    for _ in range(300):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        result = extract_facts(text, now=NOW, existing_topics=rng.choice([(), ("crypto", "color")]))
        keys = [f.key for f in result.facts]
        assert len(keys) == len(set(keys))
        for fact in result.facts:
            assert fact.value
            assert fact.value == fact.value.strip()
            assert not fact.value.lower().startswith(("is ", "are ", "and "))
            assert fact.span[0] <= fact.value_span[0] <= fact.value_span[1] <= fact.span[1]
        for start, end in result.rank_spans:
            assert text[start:end].strip()
