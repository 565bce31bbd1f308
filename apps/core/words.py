"""English words every app reads text with.

``STOP_WORDS``: the words that carry no meaning of their own, lower-case, apostrophes kept
and dropped ("i'm", "im"; not "id", a word of its own in "my passport ID"). One list for
every reader of words: a friendly ID's words (``claims.friendly_ids``), a clear word match
in search (``indexing.search``) and the offline provider's excerpts (``chat.llm.offline``).

``name_stop_words()``: spaCy's longer list, which the readers of names use (a capitalised
word in it — "Anyway", "Whatever" — names no one).
"""

from functools import cache

STOP_WORDS = frozenset(
    """
    a about above actually after again against all also always am an and any are as at be
    because been before being below between both but by can could did do does doesnt doing
    done dont down during each else etc ever few for from further had has have having he
    her here hers herself him himself his how i i'm if im in into is isnt it its itself
    ive just know let like me mine more most much must my myself no nor not now of off
    often ok okay on once only or other ought our ours ourselves out over own per please
    really said same say shall she should so some sometimes such tell than that thats the
    their theirs them themselves then there these they this those through to too under
    until up upon us usually very via was we were what when where which while who whom why
    will with would yeah yes you your yours yourself yourselves
    """.split()  # noqa: SIM905 - a word list reads better as text
)


@cache
def name_stop_words() -> frozenset[str]:
    """spaCy's English stop words, imported on first use: importing spaCy costs about two
    seconds of CPU, which every process would otherwise pay at startup, whether or not it
    reads a name (the web server loads it in its warm-up, ``config.asgi``)."""
    from spacy.lang.en.stop_words import STOP_WORDS as SPACY_STOP_WORDS

    return frozenset(SPACY_STOP_WORDS)
