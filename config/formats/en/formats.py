"""Dates Django writes itself (the admin, an unformatted ``{{ value }}``) in the site's
format (apps/core/dates.py) rather than "Nov. 27, 2026, 6:08 a.m." (issue 30). The pages
use the ``day`` / ``when`` filters, which also drop this year's year; input formats stay
Django's."""

DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y, H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
TIME_FORMAT = "H:i"
MONTH_DAY_FORMAT = "j M"
YEAR_MONTH_FORMAT = "M Y"
