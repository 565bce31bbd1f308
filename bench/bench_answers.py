"""Issue 28: answers a person can trust, scored on scripted scenarios (our own: no LoCoMo or
LongMemEval data) through the real pipeline and the REST API — files (PDF, HTML, DOCX,
Markdown), an imported ChatGPT export, statements, facts, a pin, a retraction, list
commands, a question asked twice — with the offline provider and with the Anthropic SDK
over a mocked HTTP transport. With Anthropic the mocked model's words mean nothing, so its
figures are read from what the turn gave the model: the sources numbered in its prompt.

Per provider it prints (targets in brackets): self-echo sources (0), question-echo
sources (0), citations whose sentence and source share no content word (0), irrelevant
pinned citations (0), forgotten memory used (0), evidence found (≥ 95 %), list commands
obeyed (100 %; the offline provider's own reading — with a model, its tools do it), junk
facts (0), imported turns mislabelled (0).

Run: .venv/bin/python bench/bench_answers.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402

# (question, words its known evidence holds, whether the pinned claim is relevant to it)
QUESTIONS = (
    ("What is my monthly rent?", "EUR 1,450", False),
    ("What is the IP address of the Pi-hole?", "192.168.8.53", False),
    ("What is my hotel confirmation code?", "HVR-58231", False),
    ("How long do I bake the sourdough loaf?", "40 minutes", False),
    ("What did I buy in May 2024?", "bread pan", False),
    ("When do I like to work out?", "morning workouts", False),
    ("What is my #1 crypto?", "BTC", False),
    ("Where does my sister Ana live?", "Split", False),
    ("Which antibiotic am I allergic to?", "penicillin", True),
    ("What is my monthly rent?", "EUR 1,450", False),  # asked twice
)
FORGOTTEN = ("What is my gym locker code?", "4471")
# (command, the open shopping list after it)
LIST_COMMANDS = (
    ("Add oat milk to my shopping list", ["Oat milk"]),
    ("add eggs and bread to my shopping list", ["Bread", "Eggs", "Oat milk"]),
    ("Add rice, lentils and almond milk to my shopping list", None),
    ("tick off lentils", ["Almond milk", "Bread", "Eggs", "Oat milk", "Rice"]),
    ("I bought the oat milk", ["Almond milk", "Bread", "Eggs", "Rice"]),
    ("eggs are done", ["Almond milk", "Bread", "Rice"]),
    ("put oat milk back", ["Almond milk", "Bread", "Oat milk", "Rice"]),
    ("remove rice from my shopping list", ["Almond milk", "Bread", "Oat milk"]),
)
_MESSAGE_IN_URL = re.compile(r"#m-([0-9a-f-]{36})")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CITE = re.compile(r"\[(\d+)\]")
_RAW_KEY = re.compile(r"\b(?:user|mentioned)\.[a-z_]+\.")


def _fake_anthropic() -> Any:
    """The Anthropic API as httpx's MockTransport serves it: every streamed answer cites its
    first source; extraction and review get empty JSON. The requests are kept."""
    import httpx2

    from tests.chat.test_llm_anthropic import message_end, message_start, streamed, text_block

    class Server:
        def __init__(self) -> None:
            self.bodies: list[dict[str, Any]] = []

        def __call__(self, request: httpx2.Request) -> httpx2.Response:
            body = json.loads(request.content)
            self.bodies.append(body)
            if body.get("stream"):
                return streamed(
                    message_start(),
                    *text_block(0, "From your memory [1]."),
                    *message_end("end_turn", 5),
                )
            reply = {
                "id": "msg_x",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "claude"),
                "content": [{"type": "text", "text": "[]"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
            return httpx2.Response(200, json=reply)

    return Server()


def _use_anthropic(server: Any) -> None:
    import httpx2

    from apps.chat import api
    from apps.chat.llm import anthropic_provider, factory

    def build(_answerer: Any = None) -> Any:
        return anthropic_provider.AnthropicProvider(
            api_key="sk-bench",
            main_model="claude-main",
            cheap_model="claude-cheap",
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server)),
            max_retries=0,
        )

    api.build_provider = build  # type: ignore[attr-defined]
    factory.build_provider = build  # type: ignore[assignment]


def _message_of(source: dict[str, Any]) -> Any:
    from apps.chat.models import Message

    found = _MESSAGE_IN_URL.search(source.get("url") or "")
    if not found:
        return None
    return Message.objects.select_related("conversation").filter(pk=found.group(1)).first()


def run(provider: str) -> dict[str, Any]:
    from django.conf import settings

    from apps.chat.models import Conversation, Message
    from apps.claims.models import Claim, ClaimOrigin, ClaimStatus
    from apps.claims.services import claim_create
    from apps.indexing.search._evidence import content_words, is_bare_question
    from apps.indexing.services import message_index
    from bench.answers_scenario import build

    settings.CAIRN_ALIGNMENT_REVIEW = False
    server = None
    if provider == "anthropic":
        server = _fake_anthropic()
        _use_anthropic(server)
    scenario = build(name=f"bench-{provider}")
    user = scenario.user
    counts: Counter[str] = Counter()
    notices: list[str] = []

    def turn(text: str, conversation_id: str | None = None) -> dict[str, Any]:
        response = scenario.client.post(
            f"/api/v1/conversations/{conversation_id or scenario.conversation_id}/messages/",
            {"text": text},
            format="json",
        )
        assert response.status_code == 201, response.content
        body: dict[str, Any] = response.json()
        notices.extend(n["text"] for n in body["user_message"]["notices"])
        return body

    # What the user told Cairn before, in another conversation (evidence, not history).
    earlier = scenario.new_conversation("Earlier")
    turn("My sister Ana lives in Split.", earlier)
    turn("My #1 crypto is BTC.", earlier)
    turn("Lena's birthday is on March 14.", earlier)
    turn("I want to run a half marathon in under 2 hours by June.", earlier)
    said = turn("My gym locker code is 4471.", earlier)["user_message"]
    message = Message.objects.get(pk=said["id"])
    message_index(message_id=message.pk)
    locker = claim_create(
        user=user,
        statement="My gym locker code is 4471",
        origin=ClaimOrigin.CHAT,
        source_message=message,
    )
    retracted = scenario.client.post(f"/api/v1/claims/{locker.pk}/retract/")
    assert retracted.status_code == 200, retracted.content
    turn("I prefer morning workouts, usually before 7am.")

    found = 0
    missed: list[str] = []
    for question, evidence, pin_relevant in QUESTIONS:
        was_found = found
        before = len(server.bodies) if server else 0
        answer = turn(question)["answer"]
        sources = answer["sources"]
        judged = sources if provider == "anthropic" else [s for s in sources if s["cited"]]
        for source in judged:
            turn_of = _message_of(source)
            if turn_of is not None:
                imported = bool(turn_of.conversation.external_source)
                if turn_of.role == "assistant" and not imported:
                    counts["self-echo sources"] += 1
                if turn_of.role == "user" and is_bare_question(turn_of.content):
                    counts["question-echo sources"] += 1
                if imported and not re.match(r"^(ChatGPT|You), \d+ \w+ 2024", source["title"]):
                    counts["imported turns mislabelled"] += 1
            if "penicillin" in (source["title"] + source["excerpt"]) and not pin_relevant:
                counts["irrelevant pinned citations"] += 1
        if provider == "anthropic":
            system = " ".join(
                body["system"] if isinstance(body["system"], str) else json.dumps(body["system"])
                for body in server.bodies[before:]
                if body.get("stream")
            )
            found += evidence in " ".join(s["excerpt"] + " " + s["title"] for s in sources) or (
                evidence in system
            )
        else:
            found += evidence in answer["content"]
            by_number = {s["number"]: s for s in sources}
            text = answer["content"].split("\n\n---\n")[0]
            for sentence in _SENTENCE.split(text):
                words = content_words(_CITE.sub(" ", sentence))
                for number in {int(n) for n in _CITE.findall(sentence)}:
                    source = by_number.get(number)
                    if (
                        source
                        and words
                        and not words & content_words(source["title"] + " " + source["excerpt"])
                    ):
                        counts["citations sharing no content"] += 1
        if found == was_found:
            missed.append(f"{question} -> {' '.join(answer['content'].split())[:160]}")
        if _RAW_KEY.search(answer["content"]):
            counts["junk facts"] += 1

    before = len(server.bodies) if server else 0
    forgot = turn(FORGOTTEN[0])["answer"]
    shown = forgot["content"] + " ".join(s["excerpt"] for s in forgot["sources"])
    if server:
        shown += " ".join(json.dumps(b.get("system")) for b in server.bodies[before:])
    counts["forgotten memory used"] += FORGOTTEN[1] in shown

    counts["junk facts"] += sum("mentioned" in n or bool(_RAW_KEY.search(n)) for n in notices)

    obeyed, asked = 0, 0
    if provider == "offline":
        lists = scenario.new_conversation("Lists")
        for command, expected in LIST_COMMANDS:
            turn(command, lists)
            if expected is None:
                continue
            asked += 1
            open_items = sorted(
                Claim.objects.filter(
                    user=user, claim_types__contains=["shopping_item"], status=ClaimStatus.ACTIVE
                ).values_list("statement", flat=True)
            )
            obeyed += open_items == expected
    _ = Conversation  # the scenario's conversations are the user's own
    return {
        "counts": counts,
        "evidence": found / len(QUESTIONS),
        "missed": missed,
        "lists": (obeyed / asked) if asked else None,
    }


def main() -> None:
    _django.setup("cairn_bench_answers")
    rows = [
        ("self-echo sources", 0),
        ("question-echo sources", 0),
        ("citations sharing no content", 0),
        ("irrelevant pinned citations", 0),
        ("forgotten memory used", 0),
    ]
    tail = [("junk facts", 0), ("imported turns mislabelled", 0)]
    for provider in ("offline", "anthropic"):
        result = run(provider)
        counts = result["counts"]
        print(f"== {provider}", flush=True)
        for name, target in rows:
            value = counts[name]
            shown = (
                "n/a (the model writes)"
                if (provider == "anthropic" and name == "citations sharing no content")
                else value
            )
            ok = (
                "OK"
                if (provider == "anthropic" and isinstance(shown, str)) or value <= target
                else "MISSED"
            )
            print(f"  {name:<34} {shown!s:>24}   target {target}  {ok}")
        evidence = result["evidence"]
        print(
            f"  {'evidence found':<34} {evidence:>23.0%}   target ≥ 95 %  "
            f"{'OK' if evidence >= 0.95 else 'MISSED'}"
        )
        for miss in result["missed"]:
            print(f"    not found: {miss}")
        lists = result["lists"]
        if lists is None:
            print(f"  {'list commands obeyed':<34} {'n/a (the model’s tools)':>24}")
        else:
            print(
                f"  {'list commands obeyed':<34} {lists:>23.0%}   target 100 %  "
                f"{'OK' if lists == 1 else 'MISSED'}"
            )
        for name, target in tail:
            value = counts[name]
            verdict = "OK" if value <= target else "MISSED"
            print(f"  {name:<34} {value:>24}   target {target}  {verdict}")


if __name__ == "__main__":
    main()
