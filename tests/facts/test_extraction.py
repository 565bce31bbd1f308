"""extract_facts as the reply pipeline sees it: facts, keys, spans, ranks and references."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from apps.contexts.reference_parser import parse_references
from apps.facts.extraction import (
    ExtractionResult,
    extract_facts,
    fact_topic,
    parse_ranked_key,
    ranked_key,
)

NOW = datetime(2025, 6, 11, 10, 0, tzinfo=UTC)


def extract(text: str, **kwargs: object) -> ExtractionResult:
    return extract_facts(text, now=NOW, **kwargs)  # type: ignore[arg-type]


def facts_of(text: str, **kwargs: object) -> dict[str, str]:
    return {f.key: f.value for f in extract(text, **kwargs).facts}


# --- seeds/001 §1.2.1: every ranked-list pattern -----------------------------------------


@pytest.mark.parametrize(
    ("text", "existing", "expected"),
    [
        ("1) Blue, 2) Green", ("color",), {"color.1": "Blue", "color.2": "Green"}),
        ("BTC is my #1 favorite", ("crypto",), {"crypto.1": "BTC"}),
        ("Make BTC my #1", ("crypto",), {"crypto.1": "BTC"}),
        ("my #1 favorite crypto is BTC", (), {"crypto.1": "BTC"}),
        ("My favorite #1 is BTC", ("crypto",), {"crypto.1": "BTC"}),
        ("my #1 is BTC", ("crypto",), {"crypto.1": "BTC"}),
        ("my #4 is actually FIL", ("crypto",), {"crypto.4": "FIL"}),
        ("#1 XMR", ("crypto",), {"crypto.1": "XMR"}),
        ("first: Blue, second: Green", ("color",), {"color.1": "Blue", "color.2": "Green"}),
        (
            "My favorite cryptos are XMR, BTC, XLM",
            (),
            {"crypto.1": "XMR", "crypto.2": "BTC", "crypto.3": "XLM"},
        ),
        ("My favorite crypto is XMR, BTC", (), {"crypto.1": "XMR", "crypto.2": "BTC"}),
        ("my #1 crypto is BTC", (), {"crypto.1": "BTC"}),
        ("#2 on my list is ETH", ("crypto",), {"crypto.2": "ETH"}),
        (
            "my top 3 cryptos are A, B and C",
            (),
            {"crypto.1": "A", "crypto.2": "B", "crypto.3": "C"},
        ),
        ("my favorite color is blue", (), {"color.1": "blue"}),
        ("my second favorite crypto is ETH", (), {"crypto.2": "ETH"}),
        ("ETH is my third favorite crypto", (), {"crypto.3": "ETH"}),
        ("my number one crypto is BTC", (), {"crypto.1": "BTC"}),
        ("change my #2 crypto to ADA", (), {"crypto.2": "ADA"}),
    ],
)
def test_every_seed_pattern(text: str, existing: tuple[str, ...], expected: dict[str, str]) -> None:
    assert facts_of(text, existing_topics=existing) == {
        f"user.favorites.{key}": value for key, value in expected.items()
    }


@pytest.mark.parametrize(
    "text",
    [
        "my #4 is actually FIL",
        "my #4 is now definitely FIL!",
        'my #4 is "FIL"',
        "my #4 is FIL, probably",
        "my #4 is FIL 🚀🚀",
        "FIL is now my #4",
        "Honestly, FIL is my #4",
    ],
)
def test_values_are_cleaned_never_is_actually(text: str) -> None:
    """seeds/001 §5.1.2: "is actually FIL" must never be stored."""
    assert facts_of(text, existing_topics=("crypto",)) == {"user.favorites.crypto.4": "FIL"}


@pytest.mark.parametrize("text", ["#1 is actually FIL", "#1 and FIL at noon", "#1 is great"])
def test_a_bare_hash_rank_needs_a_ticker_like_value(text: str) -> None:
    """Pattern 2b without a ranking cue: no ranked fact, and never a value like "is …"."""
    facts = extract(text, existing_topics=("crypto",)).facts
    assert [f for f in facts if f.kind == "ranked"] == []
    assert all(not f.value.lower().startswith(("is ", "and ")) for f in facts)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'd make sure to put BTC as my #1", {"crypto.1": "BTC"}),
        ("my #1 is BTC because it is sound money", {"crypto.1": "BTC"}),
        ("my #1 is BTC and ETH is my #2", {"crypto.1": "BTC", "crypto.2": "ETH"}),
        ("my #2 is Bitcoin Cash, obviously", {"crypto.2": "Bitcoin Cash"}),
        ("my #1 is BTC or ETH", {}),
        ("my #1 is not BTC", {}),
        ("my #1 is it", {}),
    ],
)
def test_value_boundaries(text: str, expected: dict[str, str]) -> None:
    facts = {f.key: f.value for f in extract(text, existing_topics=("crypto",)).facts}
    assert facts == {f"user.favorites.{key}": value for key, value in expected.items()}


def test_ranked_values_are_not_read_again_as_entities() -> None:
    facts = extract("My favorite city is Paris and Google is my #1 employer").facts
    assert [(f.key, f.kind) for f in facts] == [
        ("user.favorites.city.1", "ranked"),
        ("user.favorites.employer.1", "ranked"),
    ]


def test_a_later_statement_of_the_same_key_wins() -> None:
    assert facts_of("my #1 crypto is BTC. Actually no, my #1 crypto is ETH") == {
        "user.favorites.crypto.1": "ETH"
    }


def test_ranked_fact_fields() -> None:
    text = "Quick note: my #2 crypto is ETH."
    (fact,) = extract(text).facts
    assert (fact.kind, fact.topic, fact.rank, fact.value_type) == ("ranked", "crypto", 2, "string")
    assert text[slice(*fact.span)] == "my #2 crypto is ETH"
    assert text[slice(*fact.value_span)] == "ETH"
    assert 0 < fact.confidence <= 1


# --- ranks versus #N claim references (DESIGN §5) -----------------------------------------


def _references_kept(text: str, result: ExtractionResult) -> list[str]:
    """What the reply pipeline does: drop a #N reference lying inside a rank."""
    parsed = parse_references(text)
    return [ref.raw for ref in parsed.references if not result.in_rank((ref.start, ref.end))]


def test_hash_two_as_a_rank_is_not_a_claim_reference() -> None:
    text = "#2 on my list is ETH"
    result = extract(text, existing_topics=("crypto",))
    assert [text[s:e] for s, e in result.rank_spans] == ["#2"]
    assert {f.key for f in result.facts} == {"user.favorites.crypto.2"}
    assert _references_kept(text, result) == []


def test_one_message_updates_a_list_and_references_claims() -> None:
    text = "My #1 crypto is BTC, and #2 on my list is ETH - see #42 and @claim_5 for why"
    result = extract(text)
    assert {f.key: f.value for f in result.facts} == {
        "user.favorites.crypto.1": "BTC",
        "user.favorites.crypto.2": "ETH",
    }
    assert _references_kept(text, result) == ["#42", "@claim_5"]


def test_a_rank_in_a_question_is_still_a_rank() -> None:
    text = "what is my #1 crypto again? also show #3"
    result = extract(text)
    assert result.facts == ()
    assert _references_kept(text, result) == ["#3"]


def test_a_bare_claim_number_is_no_rank() -> None:
    text = "#3 is outdated, please update it"
    result = extract(text, existing_topics=("crypto",))
    assert result.facts == ()
    assert result.rank_spans == ()
    assert _references_kept(text, result) == ["#3"]


# --- topics, ambiguity --------------------------------------------------------------------


def test_ambiguous_topic_stores_nothing_and_returns_candidates() -> None:
    result = extract(
        "Make SOL my #3. My email is sol@example.com", existing_topics=("crypto", "color")
    )
    assert result.facts == ()
    assert result.ambiguous_topics == ("color", "crypto")
    assert [(c.rank, c.value) for c in result.unresolved_ranks] == [(3, "SOL")]


def test_the_users_answer_resolves_the_ambiguity() -> None:
    result = extract(
        "Make SOL my #3. My email is sol@example.com",
        existing_topics=("crypto", "color"),
        explicit_topic="crypto",
    )
    assert {f.key: f.value for f in result.facts} == {
        "user.favorites.crypto.3": "SOL",
        "user.email": "sol@example.com",
    }


def test_unresolvable_ranks_are_returned_but_other_facts_are_stored() -> None:
    result = extract("my #1 is BTC and my email is a@b.io")
    assert {f.key for f in result.facts} == {"user.email"}
    assert result.ambiguous_topics == ()
    assert [(c.rank, c.value) for c in result.unresolved_ranks] == [(1, "BTC")]


def test_stored_topic_names_are_kept_as_stored() -> None:
    assert facts_of("my #2 colour is teal", existing_topics=("colors",)) == {
        "user.favorites.colors.2": "teal"
    }


def test_a_topic_phrase_before_items_names_their_list() -> None:
    assert facts_of("My favorite cryptos: #1 XMR, #2 BTC") == {
        "user.favorites.crypto.1": "XMR",
        "user.favorites.crypto.2": "BTC",
    }


# --- keys ---------------------------------------------------------------------------------


def test_key_helpers() -> None:
    assert ranked_key("crypto", 1) == "user.favorites.crypto.1"
    assert parse_ranked_key("user.favorites.ice_cream_flavor.12") == ("ice_cream_flavor", 12)
    assert parse_ranked_key("user.email.work") is None
    assert fact_topic("user.favorites.crypto.3") == "user.favorites.crypto"
    assert fact_topic("user.email.work") == "user.email.work"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("my email is a@b.io", "user.email"),
        ("my e-mail address: a@b.io", "user.email"),
        ("email me at a@b.io", "user.email"),
        ("my work email is a@b.io", "user.email.work"),
        ("my new email is a@b.io", "user.email"),
        ("my old email is a@b.io", "mentioned.email.a@b.io"),
        ("my wife's email is a@b.io", "mentioned.email.a@b.io"),
        ("ping A@B.io", "mentioned.email.a@b.io"),
        ("my blog is https://x.org/blog", "user.blog"),
        ("my work website: https://acme.io", "user.website.work"),
        ("my LinkedIn is https://linkedin.com/in/x", "user.linkedin"),
        ("see HTTPS://Example.COM/A/", "mentioned.url.https://example.com/A"),
    ],
)
def test_contact_keys_follow_the_phrase(text: str, key: str) -> None:
    assert list(facts_of(text)) == [key]


def test_extraction_is_for_user_text_only_and_keeps_no_state() -> None:
    first = extract("my #1 crypto is BTC")
    second = extract("my #1 crypto is BTC")
    assert first == second
