"""Checks that show (issue 17, bullet 5): what the alignment review finds is stored with the
answer, corrected or not, and marked on the doubted `[N]` with its reason — live and after
a reload; offline, the review checks each `[N]` by the words it shares with its source."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from apps.chat.llm import OfflineProvider
from apps.chat.models import Message
from apps.chat.pipeline.distill_align import ReviewFinding, align_answer
from tests.chat.helpers import connect, events_until, of_type
from tests.chat.test_llm_anthropic import FakeAnthropic
from tests.chat.test_pipeline_distill_align import message, sources
from tests.chat.test_sources_told_apart import SHOES, TRAIN, _account, _page
from tests.chat.test_typed_lists import _claude, _text_turn

ASK = {"type": "message", "text": "@marathon_mornings @hoka_shoes what should I wear?"}


def _verdict(**fields: Any) -> Any:
    return message(json.dumps({"pass": False, **fields}))


@sync_to_async
def _saved_answer(conversation: Any) -> Message:
    return conversation.messages.order_by("order").last()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_an_unsupported_citation_is_stored_and_marked_live_and_after_reload(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # [1] training, [2] shoes as registered; Claude cites the shoes first, and the review
    # doubts what it says of [1] (the training), which the saved answer numbers [2].
    server = FakeAnthropic(
        _text_turn("Your shoes are Hoka Cliftons [2]. You swim every evening [1]."),
        _verdict(issues=[{"type": "unsupported", "ref": 1, "claim": "You swim every evening"}]),
    )
    monkeypatch.setattr(
        "apps.chat.consumers.provider_for_running_loop", lambda _answerer: _claude(server)
    )
    user, conversation, _ = await _account()
    ws = await connect(user, conversation.id)

    await ws.send_json_to(ASK)
    events = await events_until(ws, "done")
    await ws.disconnect()

    finding = {"type": "unsupported", "ref": 2, "reason": "You swim every evening"}
    review = of_type(events, "review")[0]
    assert (review["corrected"], review["findings"]) == (False, [finding])
    done = of_type(events, "done")[0]["message"]
    assert done["content"].startswith(
        "Your shoes are Hoka Cliftons [1]. You swim every evening [2]."
    )
    assert done["review_findings"] == [finding]
    reason = "Not supported by source 2 — unsupported: You swim every evening"
    marked = done["html"].split('<sup class="cite unsupported">', 1)[1].split("</sup>", 1)[0]
    assert f'title="{reason}"' in marked
    assert f'>[2]<span class="visually-hidden"> ({reason})</span></a>' in marked
    assert '<sup class="cite"><a' in done["html"]  # [1] stands unmarked
    assert done["html"].count("cite unsupported") == 1  # the sentence, not the footer line

    saved = await _saved_answer(conversation)
    assert saved.review_findings == [finding]
    page = await _page(user, conversation)
    assert f'title="{reason}"' in page
    assert f'[2]<span class="visually-hidden"> ({reason})</span>' in page
    assert "Checked against its sources: 1 doubt" in page
    assert "[2] unsupported: You swim every evening" in page


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_corrected_answer_keeps_what_the_review_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = FakeAnthropic(
        _text_turn("You train three mornings [1] in red shoes [2]."),
        _verdict(
            issues=[{"type": "wrong_citation", "ref": 2, "claim": "red shoes"}],
            corrections="You train three mornings a week [1].",
        ),
    )
    monkeypatch.setattr(
        "apps.chat.consumers.provider_for_running_loop", lambda _answerer: _claude(server)
    )
    user, conversation, _ = await _account()
    ws = await connect(user, conversation.id)

    await ws.send_json_to(ASK)
    events = await events_until(ws, "done")
    await ws.disconnect()

    assert of_type(events, "review")[0]["corrected"] is True
    saved = await _saved_answer(conversation)
    assert saved.content.startswith("You train three mornings a week [1].")
    assert SHOES not in saved.content  # the corrected answer no longer cites the shoes
    # the finding is kept; its [2] is gone from the answer, so it has no number to mark
    assert saved.review_findings == [{"type": "wrong_citation", "ref": None, "reason": "red shoes"}]
    page = await _page(user, conversation)
    assert "1 doubt (corrected)" in page
    assert "wrong citation: red shoes" in page


@pytest.mark.asyncio
async def test_the_offline_review_checks_each_citation_by_shared_words() -> None:
    registry = sources()  # [1] Working on project Alpha, [2] I work in tech

    supported = await align_answer(
        OfflineProvider(), answer="You work on project Alpha [1], in tech [2].", registry=registry
    )
    doubted = await align_answer(
        OfflineProvider(),
        answer="You work on project Alpha [1].\n- Bananas are yellow [2].",
        registry=registry,
    )

    assert supported.issues == ()
    assert doubted.issues == (
        ReviewFinding(kind="unsupported", ref=2, reason="shares no words with source [2]"),
    )
    assert doubted.answer == "You work on project Alpha [1].\n- Bananas are yellow [2]."
    assert not doubted.corrected


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_an_offline_answer_passes_its_own_review_and_shows_no_marks() -> None:
    user, conversation, _ = await _account()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "what do you know about my training?"})
    events = await events_until(ws, "done")
    await ws.disconnect()

    done = of_type(events, "done")[0]["message"]
    assert TRAIN in done["content"]
    assert done["review_findings"] == []
    assert not of_type(events, "review")
    assert "unsupported" not in done["html"]
