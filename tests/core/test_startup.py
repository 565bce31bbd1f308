"""What a process loads when Django starts: every web process, worker and management
command pays for it, and the test suite starts about fifty of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_django_setup_leaves_spacy_until_a_name_is_read() -> None:
    """spaCy costs about two seconds of CPU to import: loaded when text is first read for
    names or facts (or by the web server's warm-up), not by ``django.setup()``."""
    probe = (
        "import sys, django; django.setup(); "
        "print(sorted(m for m in sys.modules if m == 'spacy' or m.startswith('spacy.')))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_name_stop_words_are_spacys() -> None:
    from apps.core.words import name_stop_words

    words = name_stop_words()
    assert {"anyway", "whatever", "the"} <= words
    assert "ilse" not in words
