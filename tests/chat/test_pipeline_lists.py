"""Which typed lists a question is about (issue 17): a plain, deterministic word match."""

from __future__ import annotations

import pytest

from apps.chat.pipeline.lists import lists_asked_about


@pytest.mark.parametrize(
    ("question", "lists"),
    [
        ("what's on my shopping list?", ["shopping_item"]),
        ("Do I need groceries?", ["shopping_item"]),
        ("what are my goals?", ["goal"]),
        ("Any to-dos left, and how are my goals going?", ["goal", "task"]),
        ("what do you know about my training?", []),
        ("I like goalkeepers", []),
    ],
)
def test_a_question_names_the_lists_it_is_about(question: str, lists: list[str]) -> None:
    assert lists_asked_about(question) == lists
