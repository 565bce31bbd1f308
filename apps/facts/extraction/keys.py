"""How fact keys are named — the one place the rules live.

A key is dot-separated. Where the user says whose fact it is and what it is, the key
comes from that phrase; a bare mention gets a key derived from its own normalised
value, so stating it again is *unchanged* rather than a new fact.

==========================================  =================================================
statement                                   key
==========================================  =================================================
my #1 crypto is BTC                         ``user.favorites.crypto.1``
my email is a@b.io / email me at a@b.io     ``user.email``
my work email is a@b.io                     ``user.email.work`` (qualifier: one word)
my new / current / main email is …          ``user.email`` (neutral qualifiers add nothing)
my old / previous / former email is …       a mention: it is not the user's address now
my website / site / homepage is https://…   ``user.website`` (``user.website.work`` …)
my blog / portfolio / resume is https://…   ``user.blog``, ``user.portfolio``, ``user.resume``
my GitHub / LinkedIn … is https://…         ``user.github``, ``user.linkedin`` …
my birthday is March 3 / I was born on …    ``user.dates.birthday``
my <label> is <date>                        ``user.dates.<label>`` ("my exam" -> ``exam``)
the / our <label> is <date>                 ``dates.<label>``
my <label> is <quantity>                    ``user.quantities.<label>`` ("my budget")
the / our <label> is <quantity>             ``quantities.<label>``
I weigh … / I'm … tall / I'm … years old    ``user.quantities.weight`` / ``height`` / ``age``
my name is … / call me …                    ``user.name``
I live in … / I'm based in … / I moved to … ``user.location``
I'm from … / I come from …                  ``user.origin``
I work at … / I work for …                  ``user.employer``
my wife is Anna / my wife Anna              ``user.relations.wife`` (relations one has once)
a bare e-mail address                       ``mentioned.email.<address, lower-cased>``
a bare URL                                  ``mentioned.url.<URL, normalised>``
a bare date                                 ``mentioned.date.<ISO date>``
a bare quantity                             ``mentioned.quantity.<amount>_<unit>``
a bare PERSON / ORG / GPE entity            ``mentioned.person|org|place.<slug>``
==========================================  =================================================

A URL is normalised by lower-casing its scheme and host and dropping a final ``/``;
an e-mail address by lower-casing it; a quantity reads ``<amount>_<unit>`` with the
canonical unit (``10_km``, ``3.5_h``, ``300_usd``, ``5_percent``, ``30_deg_c``).

Open-vocabulary labels (dates, quantities) live under a typed namespace so that a
label can never collide with a fixed key ("my email is 5 kg" cannot overwrite
``user.email``). Labels and topics are slugs: lower-case words joined by ``_``
(``ice_cream_flavor``), never containing a dot. Only the last segment of a mention
key may contain dots (an address, a URL, a decimal amount).
"""

from __future__ import annotations

import re

from .text import slugify

RANKED_PREFIX = "user.favorites."
_RANKED_KEY = re.compile(r"^user\.favorites\.([^.]+)\.(\d+)$")


def ranked_key(topic: str, rank: int) -> str:
    return f"{RANKED_PREFIX}{topic}.{rank}"


def parse_ranked_key(key: str) -> tuple[str, int] | None:
    """``("crypto", 1)`` for ``user.favorites.crypto.1``; ``None`` for any other key."""
    match = _RANKED_KEY.match(key)
    return (match.group(1), int(match.group(2))) if match else None


def fact_topic(key: str) -> str:
    """The topic a key counts under: a ranked list is one topic whatever its ranks.

    ``user.favorites.crypto.3`` -> ``user.favorites.crypto``; every other key is its own
    topic (``user.email.work`` and ``user.email`` are two things the user told us).
    """
    parsed = parse_ranked_key(key)
    return f"{RANKED_PREFIX}{parsed[0]}" if parsed else key


def labelled_key(namespace: str, label: str, *, mine: bool) -> str:
    """``user.dates.exam`` for "my exam is …", ``dates.launch`` for "the launch is …"."""
    prefix = "user." if mine else ""
    return f"{prefix}{namespace}.{slugify(label)}"


def mention_key(kind: str, normalised_value: str) -> str:
    return f"mentioned.{kind}.{normalised_value}"
