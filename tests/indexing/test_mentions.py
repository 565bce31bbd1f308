"""Who a passage names, who said it and who "my old flatmate" is (``indexing.mentions``):
the rules the mention index is written by. No database."""

from __future__ import annotations

from apps.indexing.mentions import (
    ALIAS,
    INITIAL,
    NAMED,
    RELATION,
    SPEAKER,
    AskedNames,
    Mention,
    mentions_in,
    query_keys,
    speaker_of,
    unheaded,
)


def keys(text: str, role: str) -> set[str]:
    return {m.key for m in mentions_in(text, speaker=speaker_of(text)) if m.role == role}


def test_a_transcript_turn_is_said_by_the_name_at_its_head() -> None:
    turn = "Melanie: I took the kids to the pottery class on Saturday."

    assert speaker_of(turn) == "Melanie"
    assert keys(turn, SPEAKER) == {"melanie"}
    assert keys(turn, NAMED) == set()  # the head is who speaks, not a name in the text


def test_headings_and_asides_are_not_speakers() -> None:
    for text in (
        "FYI: the boiler is fixed.",
        "Note: bring the passports.",
        "Quick update: the boiler is fixed.",
        "User: what is the capital of France?",
        "So: where were we?",
        "The plan was simple: leave at eight.",
    ):
        assert speaker_of(text) is None, text


def test_capitalised_words_are_names_and_a_sentence_start_is_kept_apart() -> None:
    text = "Spent the weekend with Captain Squeak. Ilse came too, and Tom Baker."

    assert keys(text, NAMED) == {"captain", "squeak", "captain squeak", "tom", "baker", "tom baker"}
    assert keys(text, INITIAL) == {"spent", "ilse"}
    # Everyday words and the calendar are never names, capitalised or not.
    assert keys("On Monday I said The End in May.", NAMED) == {"end"}


def test_who_a_relation_is_said_either_side_of_it() -> None:
    for text in (
        "My old flatmate, Ilse, came round for tea.",
        "Had a long walk with Ilse, my old flatmate, and caught up.",
        "When I mention my old flatmate, that's Ilse; we go back years.",
        "my old flatmate is Ilse",
    ):
        assert Mention("ilse", ALIAS, "|old flatmate") in mentions_in(text), text
    assert keys("My old flatmate took the twins rock pooling.", RELATION) == {"|old flatmate"}


def test_relations_keep_their_words_and_whose_they_are() -> None:
    """ "My flatmate" is not "my old flatmate", "my wife's cousin" is not "my wife", and a
    transcript speaker's "my mom" is theirs, not the user's."""
    assert keys("My flatmate is allergic to latex.", RELATION) == {"|flatmate"}
    assert keys("My wife's cousin, Dagny, came round.", RELATION) == {"|wife's cousin"}
    assert Mention("dagny", ALIAS, "|wife's cousin") in mentions_in(
        "My wife's cousin, Dagny, came round."
    )
    melanie = "Melanie: my mom Linda came to the class too."
    assert keys(melanie, RELATION) == {"melanie|mom"}
    assert Mention("linda", ALIAS, "melanie|mom") in mentions_in(melanie, speaker="Melanie")
    # Things one has are not people: no relation, no alias.
    assert keys("I took my kids to Paris.", RELATION) == set()
    assert keys("I took my kids to Paris.", ALIAS) == set()


def test_a_question_offers_its_capitalised_words_as_names() -> None:
    assert query_keys("What activities does Ilse do with her kids?") == AskedNames(("ilse",))
    assert query_keys("What did Anna Schmidt say about Ilse's trip?").written == (
        "anna",
        "schmidt",
        "anna schmidt",
        "ilse",
    )
    assert not query_keys("what does ilse do with her kids")  # no capital, no name
    assert not query_keys("Which places has he travelled to?")
    # A sentence's first word is a verb more often than a name, unless it reads as one;
    # then only the user's own writing can say it is one.
    assert not query_keys("Tell me about the leak")
    assert query_keys("Return the number of items in Python") == AskedNames(("python",))
    assert query_keys("Lisbon trip budget") == AskedNames((), ("lisbon",))
    assert query_keys("Ilse's kids?") == AskedNames((), ("ilse",))


def test_the_model_reads_a_transcript_turn_without_its_heading() -> None:
    assert unheaded("Melanie: Thanks, Caroline!") == "Thanks, Caroline!"
    assert unheaded("FYI: the boiler is fixed.") == "FYI: the boiler is fixed."
    assert unheaded("No heading here.") == "No heading here."


def test_a_speaker_named_by_an_everyday_word_is_a_speaker() -> None:
    """ "Will: …" and "May: …" head transcripts as "Melanie: …" does; a question asks of
    Will inside a sentence, not at its start ("Will she …" is a verb)."""
    turn = "Will: I took the kids to the zoo on Sunday."

    assert speaker_of(turn) == "Will"
    assert speaker_of("May: I started a pottery course.") == "May"
    assert keys(turn, SPEAKER) == {"will"}
    assert unheaded(turn) == "I took the kids to the zoo on Sunday."
    assert speaker_of("So: where were we?") is None
    assert "will" in query_keys("What does Will do with his kids?").written
    assert query_keys("Will she enjoy a hiking trip?") == AskedNames()
    # In a passage's text the word is no name: "in May" names no one.
    assert keys("We moved house in May, finally.", NAMED) == set()
