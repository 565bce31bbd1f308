"""Issue 8, end to end in Chromium: a file uploaded on the Files page is indexed, and the
chat's answer about it cites the very passage of the file that holds the answer.

The chat runs on the offline provider (no API key), which answers from the turn's
retrieved sources; the test settings run indexing jobs in-process (``CAIRN_Q_SYNC``), and
the embedding model is the real one, so retrieval is what a user gets."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.indexing.models import Chunk, Document, DocumentStatus
from tests.browser.helpers import log_in, start_conversation

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("media_root")]

FILE_NAME = "skerry-point.txt"
# Long enough to be cut into several passages (about 2,048 characters each); the fact the
# question asks about sits in one of them only.
FILE_TEXT = """\
Skerry Point light: notes for the new keeper

The tower at Skerry Point was built in 1871 from granite quarried on the mainland and \
carried across the sound on flat barges. It stands thirty-two metres tall and its lamp, \
first burning colza oil and later paraffin, was converted to electricity in 1954. The \
original Fresnel lens, a first-order lens of brass and glass, still turns on its bath of \
mercury, although the clockwork that drove it has been replaced by a small motor. The \
light shows two white flashes every fifteen seconds and can be seen for twenty-two \
nautical miles in clear weather. The fog signal, a diaphone installed in 1911, was \
silenced in 1987 and replaced by an electric horn that sounds two blasts every thirty \
seconds when visibility falls below two miles. The keepers' cottages at the foot of the \
tower were rebuilt after the storm of 1903 took their roofs, and the walled garden behind \
them still grows kale, potatoes and a stubborn row of rhubarb. Supplies come once a \
fortnight by the relief vessel from Stromhaven, weather permitting; in winter the \
relief can be a month late, so the store room holds six weeks of tinned food, flour, \
lamp spares and diesel for the generator. Every visitor signs the book in the watch room. \
The lamp room is reached by one hundred and forty-one steps; the brass handrail is \
polished every Saturday and the lens every morning after the light is put out. Spare \
bulbs, mantles and a paraffin lamp for emergencies are kept in the cupboard beneath the \
lens pedestal, with the tools for the rotation motor. The radio beacon on the roof of the \
engine house was switched off in 2001, but its mast still carries the aerial for the \
weather station and the telephone link to the mainland.

The keeper keeps a boat at the slipway below the cottages. The lighthouse keeper's boat \
is called Marigold: a clinker-built dinghy, painted yellow, with a small outboard motor. \
Marigold is used for checking the lobster pots and for the short crossing to the \
neighbouring islet when the relief vessel cannot land. She is hauled up the slipway on \
the winch whenever a gale is forecast.

Tides in the sound run hard: up to five knots on the springs, and the overfalls off the \
north end of the point break white even on calm days. The safest time to cross is the \
hour either side of slack water, which falls roughly two hours after high water at \
Stromhaven. A westerly swell makes the landing at the slipway dangerous and a northerly \
one makes it impossible. The weather station on the gallery records wind speed and \
direction, air pressure, temperature and rainfall every ten minutes, and the readings are \
sent to the coastguard by radio at six in the morning and six in the evening. Gannets \
and fulmars nest on the west cliffs from April to August; puffins burrow in the turf above \
the landing, so keep to the path. Seals haul out on the skerries at low water and should \
not be disturbed during the pupping season in the autumn. The logbook records every \
lighting and extinguishing of the lamp, every fault, every passing ship that signals, and \
the state of the sea at each watch; it is kept in ink and never torn.
"""
QUESTION = "What is the lighthouse keeper's boat called?"


def test_an_uploaded_file_is_indexed_then_cited_in_an_answer(
    page: Page, server: str, shot: Any
) -> None:
    log_in(page, server, email="keeper@example.com")
    page.goto(f"{server}/files/")
    shot("files-empty")

    page.get_by_label("Files", exact=True).set_input_files(
        {"name": FILE_NAME, "mimeType": "text/plain", "buffer": FILE_TEXT.encode()}
    )
    shot("file-chosen")
    page.get_by_role("button", name="Upload").click()

    expect(page.get_by_text("1 file uploaded")).to_be_visible()
    card = page.locator("[data-source-id]", has=page.get_by_role("link", name=FILE_NAME))
    bar = card.get_by_role("progressbar")
    expect(card.locator("[data-progress-status]")).to_have_text("Up to date", timeout=15_000)
    expect(bar).to_have_attribute("aria-valuenow", "1")
    expect(bar).to_have_attribute("aria-valuemax", "1")
    expect(bar.locator("span")).to_have_attribute("style", re.compile(r"width:\s*100%"))
    expect(card.locator("tr", has_text=FILE_NAME)).to_contain_text("Indexed")
    shot("indexed")

    document = Document.objects.get(path=FILE_NAME)
    assert document.status == DocumentStatus.INDEXED
    assert document.chunk_count > 1, "the file should span several passages"
    (passage,) = Chunk.objects.filter(document=document, text__contains="Marigold")

    page.get_by_role("link", name="Chat", exact=True).click()
    start_conversation(page)
    page.locator("#composer-input").fill(QUESTION)
    shot("question")
    page.locator("#composer-input").press("Enter")

    answer = page.locator("article.msg-assistant.status-complete").last
    expect(answer).to_be_visible(timeout=30_000)
    body = answer.locator(".msg-body")
    # The answer's line about the boat, with its citation [N].
    line = body.locator("li", has_text="Marigold")
    expect(line).to_have_count(1)
    citation = line.locator("sup.cite a")
    expect(citation).to_have_text(re.compile(r"^\[\d+\]$"))
    number = citation.inner_text().strip("[]")
    passage_url = f"/files/documents/{document.pk}/?chunk={passage.pk}#chunk-{passage.pk}"
    expect(citation).to_have_attribute("href", passage_url)

    # The sources footer: "[N] skerry-point.txt, passage 2 of 3 · document", linking to
    # that passage.
    title = f"{FILE_NAME}, passage {passage.chunk_index + 1} of {document.chunk_count}"
    footer = body.locator("p", has=page.locator("strong", has_text="Sources:"))
    expect(footer).to_contain_text(f"[{number}] {title} · document")
    expect(footer.locator("sup.cite a", has_text=f"[{number}]")).to_have_attribute(
        "href", passage_url
    )
    entry = footer.get_by_role("link", name=title, exact=True).and_(
        footer.locator(f'a[href="{passage_url}"]')
    )
    expect(entry).to_have_count(1)
    shot("answer")

    entry.click()
    expect(page).to_have_url(re.compile(re.escape(passage_url) + "$"))
    expect(page.locator(f"#chunk-{passage.pk}")).to_contain_text(
        "The lighthouse keeper's boat is called Marigold"
    )
    expect(page.locator(f"#chunk-{passage.pk}")).to_be_in_viewport()
    shot("cited-passage")
