"""What a passage looks like quoted into a prompt or an excerpt (issue 28): another
answer's ``[N]`` markers and sources footer gone, everything else as written."""

from __future__ import annotations

import pytest

from apps.indexing.search._quoting import FOOTER_MARK, quotable


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("Rent is EUR 1,450 [2].", "Rent is EUR 1,450."),
        ("Both said so [1, 3]; fine [2].", "Both said so; fine."),
        (
            "See arr[1] and [the docs](https://example.org) [4]",
            "See arr[1] and [the docs](https://example.org)",
        ),
        ("No markers at all, just words.", "No markers at all, just words."),
        (f"The answer [1].{FOOTER_MARK}[1] #3 rent", "The answer."),
        (f"No marker here.{FOOTER_MARK}[1] #3 rent", "No marker here."),
        ("", ""),
    ],
)
def test_markers_and_footer_are_left_out_and_nothing_else(text: str, quoted: str) -> None:
    assert quotable(text) == quoted
    assert quotable(quoted) == quoted  # quoting twice changes nothing
