"""A chat turn that names an earlier version of a memory uses the current one, and the
note saying so is kept with the message (issue 30)."""

from __future__ import annotations

import pytest

from apps.accounts.models import User
from apps.chat.models import Message
from apps.chat.pipeline.prepare import prepare_turn
from apps.chat.pipeline.types import TurnRequest
from apps.chat.services import conversation_create, conversation_pin_claim
from apps.claims.services import claim_create, claim_supersede

pytestmark = pytest.mark.django_db


def test_a_chat_turn_naming_an_old_version_uses_the_current_one_and_says_so(
    user: User,
) -> None:
    old = claim_create(user=user, statement="I am vegetarian")
    new = claim_supersede(claim=old, statement="I am vegan")
    conversation = conversation_create(user=user)

    turn = prepare_turn(
        user=user,
        conversation=conversation,
        request=TurnRequest(text=f"What should I cook, given @memory:{old.id}?"),
    )

    assert [item.claim.id for item in turn.memory] == [new.id]
    assert "I am vegan" in turn.system_prompt
    assert "I am vegetarian" not in turn.system_prompt
    assert "#1 was edited; showing the current version." in turn.notices
    stored = Message.objects.get(pk=turn.user_message.pk).notices
    assert {"kind": "notice", "text": "#1 was edited; showing the current version."} in stored


def test_a_conversation_pin_moves_to_the_new_version(user: User) -> None:
    old = claim_create(user=user, statement="I am vegetarian")
    conversation = conversation_create(user=user)
    conversation_pin_claim(conversation=conversation, claim=old)

    new = claim_supersede(claim=old, statement="I am vegan")

    assert list(conversation.pinned_claims.all()) == [new]
