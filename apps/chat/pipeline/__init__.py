"""The reply pipeline (DESIGN §7): a sequence of small named steps, each testable alone.

``apps/chat/turn.py`` runs one turn through these steps and emits its events
(``apps/chat/events.py``), above them:
``prepare.prepare_turn`` the synchronous steps 1–6 and 8 (save the user message,
references, facts, indexing, ``memory``, ``sources``, ``prompt``); ``stream`` steps 7
(``distill_align``) and 9, with the memory ``tools``; ``finish.finish_turn`` steps 10–11
(alignment, footer, save). ``saving`` says whether a save happened, in words, and retries
the answer's save through a short database outage. Step 12, claim extraction, is a background job
(``apps/chat/tasks.py`` with ``apps/chat/claim_extraction.py``).
"""
