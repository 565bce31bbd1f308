"""One date format across the site (issue 30): "27 Nov" this year, "27 Nov 2025" another,
with the time where one is shown; the template filters say the same."""

from __future__ import annotations

from datetime import UTC, date, datetime

from django.template import Context, Template

from apps.core.date_labels import day_label, moment_label

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def test_this_year_has_no_year_and_another_year_has_it() -> None:
    assert day_label(datetime(2026, 11, 27, 6, 5, tzinfo=UTC), now=NOW) == "27 Nov"
    assert day_label(datetime(2025, 11, 27, 6, 5, tzinfo=UTC), now=NOW) == "27 Nov 2025"
    assert day_label(date(2025, 1, 3), now=NOW) == "3 Jan 2025"


def test_a_moment_carries_its_time() -> None:
    assert moment_label(datetime(2026, 3, 1, 6, 5, tzinfo=UTC), now=NOW) == "1 Mar, 06:05"
    assert moment_label(datetime(2024, 3, 1, 18, 30, tzinfo=UTC), now=NOW) == "1 Mar 2024, 18:30"


def test_the_template_filters_write_dates_the_same_way() -> None:
    template = Template("{% load cairn_format %}{{ last|when }} / {{ last|day }} / {{ none|when }}")

    text = template.render(Context({"last": datetime(2019, 5, 6, 9, 0, tzinfo=UTC), "none": None}))

    assert text == "6 May 2019, 09:00 / 6 May 2019 / "
