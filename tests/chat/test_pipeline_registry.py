"""The per-turn source registry, citations and the sources footer."""

from __future__ import annotations

from uuid import UUID

import pytest

from apps.chat.pipeline.sources import DEFAULT_CITE_THRESHOLD, SourceRegistry, passes_cite_threshold
from apps.chat.rendering import render_markdown

CLAIM_ID = UUID("550e8400-e29b-41d4-a716-446655440000")


@pytest.fixture
def registry() -> SourceRegistry:
    registry = SourceRegistry()
    registry.register(
        "claim", CLAIM_ID, "#42 prefer_morning_a3f2", "I prefer mornings", None, "/k/42"
    )
    registry.register("fact", "f-1", "user.favorites.crypto.1", "BTC")
    registry.register("chunk", "k-9", "plan.md", "Week 1: runs", 0.71, "/d/3#k-9")
    return registry


def test_numbers_follow_registration_order_and_repeat_for_the_same_item(
    registry: SourceRegistry,
) -> None:
    again = registry.register("claim", str(CLAIM_ID), "other title", "other excerpt")
    same_id_other_kind = registry.register("chunk", CLAIM_ID, "t", "e")

    assert again == 1
    assert same_id_other_kind == 4
    assert [item.number for item in registry.items()] == [1, 2, 3, 4]
    first = registry.get(1)
    assert first is not None
    assert first.excerpt == "I prefer mornings"  # the first registration wins
    assert registry.number_for("fact", "f-1") == 2
    assert registry.get(99) is None
    assert len(registry) == 4


def test_citations_in_finds_single_grouped_and_adjacent_markers(registry: SourceRegistry) -> None:
    text = "Mornings [1]. BTC first [2, 3][9]. Not a cite: arr[3], [2](http://x) or `x = [1]`."

    assert registry.citations_in(text) == {1, 2, 3}
    assert registry.invalid_citations_in(text) == {9}
    assert [item.number for item in registry.cited_items(text)] == [1, 2, 3]


def test_strip_invalid_citations_keeps_valid_ones_and_code(registry: SourceRegistry) -> None:
    text = "You like mornings [1] and tea [7]. Coins: BTC [2, 8].\n```py\nrow = [7]\n```\nSee [5]"

    cleaned = registry.strip_invalid_citations(text)

    assert cleaned == "You like mornings [1] and tea. Coins: BTC [2].\n```py\nrow = [7]\n```\nSee"
    assert registry.invalid_citations_in(cleaned) == set()


def test_the_footer_lists_only_cited_sources_with_their_numbers(registry: SourceRegistry) -> None:
    footer = registry.footer("You prefer mornings [1]; your plan starts with runs [3].")

    assert footer == (
        "\n\n---\n**Sources:**\n"
        "[1] [#42 prefer\\_morning\\_a3f2](/k/42) · claim  \n"
        "[3] [plan.md](/d/3#k-9) · chunk"
    )


def test_the_footer_shows_each_source_on_a_line_of_its_own(registry: SourceRegistry) -> None:
    answer = "You prefer mornings [1]; your plan starts with runs [3]."

    html = render_markdown(answer + registry.footer(answer), sources={1: "/k/42", 3: "/d/3"})

    footer = html.split("<hr")[1]
    assert footer.count("<br") == 1  # between the two sources
    first, second = footer.split("<br", 1)
    assert "prefer_morning_a3f2" in first
    assert "plan.md" not in first
    assert "plan.md" in second


def test_the_footer_can_list_every_source_and_is_empty_without_citations(
    registry: SourceRegistry,
) -> None:
    assert registry.footer("No citations here.") == ""
    assert SourceRegistry().footer("[1]", include_uncited=True) == ""
    everything = registry.footer("No citations here.", include_uncited=True)
    assert [line[:3] for line in everything.splitlines()[4:]] == ["[1]", "[2]", "[3]"]


def test_footer_titles_cannot_break_the_markdown(registry: SourceRegistry) -> None:
    registry.register("message", "m-1", "Chat ](javascript:alert(1)) [x]\n\nnew", "e")

    footer = registry.footer("[4]")

    assert footer.endswith("[4] Chat \\](javascript:alert(1)) \\[x\\] new · message")


def test_cite_threshold_lets_unscored_items_through() -> None:
    assert passes_cite_threshold(None)
    assert passes_cite_threshold(DEFAULT_CITE_THRESHOLD)
    assert not passes_cite_threshold(0.29)
    assert passes_cite_threshold(0.02, threshold=0.015)


def test_an_answer_is_renumbered_by_first_use_and_its_footer_follows(
    registry: SourceRegistry,
) -> None:
    from apps.chat.pipeline.sources import renumbered

    numbered = renumbered(registry, "Week 1 [3]; BTC [2, 3] and again [3]. Code: `x[2]`")

    assert numbered.text == "Week 1 [1]; BTC [1, 2] and again [1]. Code: `x[2]`"
    assert [(i.number, i.title) for i in numbered.items] == [
        (1, "plan.md"),
        (2, "user.favorites.crypto.1"),
        (3, "#42 prefer_morning_a3f2"),  # uncited: after the cited ones
    ]
    assert numbered.cited == {1, 2}
    assert numbered.new_numbers == {3: 1, 2: 2, 1: 3}
    assert numbered.footer().splitlines()[-2:] == [
        "[1] [plan.md](/d/3#k-9) · chunk  ",
        "[2] user.favorites.crypto.1 · fact",
    ]
