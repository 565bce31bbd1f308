"""Fact keys in words and back (issue 18)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from apps.facts.services import fact_retract, fact_store
from apps.facts.wording import fact_change_text, key_from_words, key_words
from apps.projects.models import Project


@pytest.mark.parametrize(
    ("words", "key"),
    [
        ("crypto list, #1", "user.favorites.crypto.1"),
        ("my #2 book", "user.favorites.book.2"),
        ("Ice cream list #3", "user.favorites.ice_cream.3"),
        ("email", "user.email"),
        ("birthday", "user.dates.birthday"),
        ("favourite colour", "user.favourite_colour"),
        ("user.favorites.crypto.1", "user.favorites.crypto.1"),  # a key typed as one
    ],
)
def test_words_name_a_key(words: str, key: str) -> None:
    assert key_from_words(words) == key


@pytest.mark.parametrize("words", ["", "   ", "#0 books", "?!"])
def test_words_that_name_nothing_are_an_error_on_key(words: str) -> None:
    with pytest.raises(ValidationError) as error:
        key_from_words(words)
    assert "key" in error.value.message_dict


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("user.favorites.crypto.1", "crypto list, #1"),
        ("user.email.work", "email (work)"),
        ("user.dates.birthday", "birthday"),
        ("mentioned.email.a@b.io", "mentioned email: a@b.io"),
    ],
)
def test_a_key_reads_as_words(key: str, words: str) -> None:
    assert key_words(key) == words


def test_a_change_is_said_in_words(project: Project) -> None:
    saved = fact_store(project=project, key="user.favorites.crypto.1", value="BTC").fact
    updated = fact_store(project=project, key="user.favorites.crypto.1", value="SOL").fact
    fact_retract(project=project, key="user.favorites.crypto.1")
    again = fact_store(project=project, key="user.favorites.crypto.1", value="ETH").fact

    assert fact_change_text(saved) == "Saved #1 crypto = BTC"
    assert fact_change_text(updated) == "Updated #1 crypto: BTC → SOL"
    assert fact_change_text(again) == "Saved #1 crypto = ETH"  # a retracted value is none
