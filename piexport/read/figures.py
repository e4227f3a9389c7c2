"""Figures a session states about itself, checked where they are read.

A usage object's token counts and costs, and the times entries carry, are valid JSON however
large, negative or far off they are; the code that adds them up and charts them assumes a
count that fits in 64 bits and a date a calendar holds. So the loader asks this module about
each of them: a figure that cannot be true is reported as a diagnostic naming its line, and
left out of every sum (``report.stats`` skips the whole usage object); a time outside the
years the site charts is reported and not charted. One bad session costs only that
session's figures, never the site.

The bounds:

- token counts (``input``, ``output``, ``cacheRead``, ``cacheWrite``, ``cacheWrite1h``,
  ``reasoning``, ``totalTokens``): a whole number from 0 to ``MAX_TOKENS`` (2^53, what a
  JavaScript number holds exactly). More than that in one model call cannot be true.
- costs (every number in ``usage.cost``): from 0 to ``MAX_COST`` dollars, finite.
- times: from ``FIRST_CHARTED`` up to (not including) ``END_CHARTED``; pi was written long
  after the first and a clock past the second is wrong.

A value that is not a number at all (text, ``null``) is no figure: it counts as unknown (0),
as it always did, and is not reported here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .jsonutil import OddNumber
from .model import JSON

MAX_TOKENS = 2**53
"""Tokens one usage object may report in any one field."""
MAX_COST = 100_000.0
"""Dollars one usage object may report in any one field of its cost."""
TOKEN_FIELDS = (
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
    "cacheWrite1h",
    "reasoning",
    "totalTokens",
)
FIRST_CHARTED = datetime(2000, 1, 1, tzinfo=UTC)
END_CHARTED = datetime(2100, 1, 1, tzinfo=UTC)
FIRST_CHARTED_MS = int(FIRST_CHARTED.timestamp() * 1000)
END_CHARTED_MS = int(END_CHARTED.timestamp() * 1000)


def _shown(value: Any) -> str:
    text = value.text if isinstance(value, OddNumber) else repr(value)
    return text if len(text) <= 24 else text[:23] + "…"


def _figure_problem(value: Any, limit: float) -> str | None:
    """Why a number cannot be this figure, or None (also None for a value that is no number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return "is not a finite number"
    if value < 0:
        return "is negative"
    if value > limit:
        return f"is over {limit:,.0f}"
    return None


def usage_problems(usage: Any) -> Iterator[str]:
    """What cannot be true in a usage object (``{"input": …, "cost": {…}}``), in key order;
    nothing for a usage that is not an object (it holds no figures)."""
    if not isinstance(usage, dict):
        return
    for key in TOKEN_FIELDS:
        why = _figure_problem(usage.get(key), MAX_TOKENS)
        if why is not None:
            yield f"{key} {_shown(usage.get(key))} {why}"
    cost = usage.get("cost")
    if isinstance(cost, dict):
        for key, value in cost.items():
            why = _figure_problem(value, MAX_COST)
            if why is not None:
                yield f"cost.{key} {_shown(value)} {why}"


def usage_is_valid(usage: Any) -> bool:
    """Whether a usage object's figures may be added up (an object with no impossible
    figure). ``report.stats`` adds only these; the loader reported the others."""
    return isinstance(usage, dict) and next(usage_problems(usage), None) is None


USAGE_KINDS = {
    "assistant": "turns",
    "toolResult": "tool work",
    "compaction": "compaction summaries",
    "branch_summary": "branch summaries",
}
"""What each kind of usage is called in a breakdown: the model's turns (assistant messages),
model work a tool did itself (a tool result's ``usage``), the cost of writing a compaction or a
branch summary; ``usage`` entries are called by their own ``kind`` (``cache_warm``, …)."""


@dataclass(frozen=True, slots=True)
class UsageSource:
    """One usage object in a session, and what it paid for."""

    kind: str
    """``turns``, ``tool work``, ``compaction summaries``, ``branch summaries``, or a ``usage``
    entry's own kind (``cache_warm``)."""
    model: str | None
    """``provider/model`` where the record names one (assistant messages, usage entries)."""
    usage: Any


def model_name(record: JSON) -> str | None:
    """``provider/model`` of a record naming a model (an assistant message, a usage entry)."""
    model = record.get("model")
    if not isinstance(model, str) or not model:
        return None
    provider = record.get("provider")
    return f"{provider}/{model}" if isinstance(provider, str) and provider else model


def usage_source(record: JSON) -> UsageSource | None:
    """The usage a record (an entry as the file holds it) carries, where pi 1.5's session
    totals count one: an assistant message's, a tool result's own (nested model work), a
    compaction's or branch summary's (writing the summary), and every ``usage`` entry,
    whatever its kind. None for anything else."""
    kind = record.get("type")
    if kind == "message":
        msg = record.get("message")
        if not isinstance(msg, dict):
            return None
        role = msg.get("role")
        if role == "assistant":
            return UsageSource("turns", model_name(msg), msg.get("usage"))
        if role == "toolResult" and isinstance(msg.get("usage"), dict):
            return UsageSource("tool work", None, msg["usage"])
        return None
    if kind in ("compaction", "branch_summary"):
        usage = record.get("usage")
        return UsageSource(USAGE_KINDS[kind], None, usage) if isinstance(usage, dict) else None
    if kind == "usage":
        named = record.get("kind")
        named = named if isinstance(named, str) and named.strip() else "usage"
        return UsageSource(named, model_name(record), record.get("usage"))
    return None


def chartable(ms: int | None) -> bool:
    """Whether a time (milliseconds since the epoch) lies in the years the site charts."""
    return ms is not None and FIRST_CHARTED_MS <= ms < END_CHARTED_MS


def time_problem(ms: int | None) -> str | None:
    """Why a readable time is not charted, or None."""
    if ms is None or chartable(ms):
        return None
    return (
        f"is outside the years {FIRST_CHARTED.year}-{END_CHARTED.year - 1}; "
        "it is not charted nor counted on a day"
    )


def utc_text(ms: Any, fmt: str = "%Y-%m-%d %H:%M:%S UTC") -> str | None:
    """A time as text in UTC, or None for a value no calendar holds (any number at all)."""
    if isinstance(ms, bool) or not isinstance(ms, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, UTC).strftime(fmt)
    except (OverflowError, OSError, ValueError):
        return None


def iso_time(ms: int | None) -> str | None:
    """A time in ms as JSON outputs write it (``2026-11-25T22:54:05.123Z``); None for no
    time or one no calendar holds."""
    stamp = utc_text(ms, "%Y-%m-%dT%H:%M:%S.")
    return None if stamp is None or ms is None else stamp + f"{ms % 1000:03d}Z"
