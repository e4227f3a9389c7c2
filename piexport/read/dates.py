"""Days as people write them on a command line: ISO dates and times, and relative ones
(``today``, ``yesterday``, ``7d``, ``2w``) counted back from a day the caller gives, so that
no answer depends on the clock of the machine that computes it."""

from __future__ import annotations

import re
from datetime import date, timedelta

from ..errors import InputError
from .tree import timestamp_ms

__all__ = ["DATE_HELP", "date_ms", "resolve_day"]

DATE_HELP = "YYYY-MM-DD, an ISO time, today, yesterday, Nd (N days ago) or Nw (N weeks ago)"
_RELATIVE = re.compile(r"(\d{1,5})\s*([dw])", re.IGNORECASE)


def resolve_day(text: str, today: date) -> str:
    """``text`` as an ISO date or time: a relative day is counted back from ``today``
    (``7d``: seven days before it; ``2w``: fourteen); an ISO date or time is kept as
    written. Anything else raises ``InputError`` naming what it takes."""
    value = text.strip()
    word = value.lower()
    if word == "today":
        return today.isoformat()
    if word == "yesterday":
        return (today - timedelta(days=1)).isoformat()
    m = _RELATIVE.fullmatch(word)
    if m:
        days = int(m.group(1)) * (7 if m.group(2) == "w" else 1)
        try:
            return (today - timedelta(days=days)).isoformat()
        except OverflowError:
            pass
    elif date_ms(value) is not None:
        return value
    raise InputError(f"not a date: {text!r} (use {DATE_HELP})")


def date_ms(text: str | None, end: bool = False) -> int | None:
    """A day (UTC; ``end``: its last millisecond) or an ISO time as milliseconds; None for
    none or for text that is neither."""
    if not text:
        return None
    day = len(text) == 10 and "T" not in text
    ms = timestamp_ms(text + "T00:00:00Z" if day else text)
    if ms is None:
        return None
    return ms + (86_400_000 - 1 if end and day else 0)
