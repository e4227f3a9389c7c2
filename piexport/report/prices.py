"""What an assistant message would have cost, for messages whose provider reported no cost.

pi writes the cost its own price table gives; a model it has no price for (a new model, a
custom provider, a subscription) reports 0, and 17 of 32 real sessions had none. The
estimate comes from ``genai-prices`` (a maintained price table, pinned, with its data
bundled): always shown as "est.", never added to a reported cost. Its import pulls in
pydantic (0.2 s), so it is loaded the first time an estimate is needed, never at start-up;
and only its bundled table is used: nothing here starts its updater, so it never touches
the network.

An estimate obeys the bounds reported figures obey (``read.figures``): none is made from a usage
object with a figure that cannot be true, and one over ``MAX_COST`` dollars (or not finite) is
left out, named by :func:`estimate_problems` as the loader names a reported cost that cannot be.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from ..read.figures import MAX_COST, usage_is_valid
from ..read.jsonutil import finite_number
from ..read.model import Diagnostic, Session
from ..read.tree import timestamp_ms

PROVIDERS = {
    "amazon-bedrock": "aws",
    "google-vertex": "google",
    "google-gemini-cli": "google",
    "google-antigravity": "google",
    "xai": "x-ai",
    "openai-codex": "openai",
    "azure-openai-responses": "azure",
    "moonshotai-cn": "moonshotai",
    "kimi-coding": "moonshotai",
    "minimax-cn": "minimax",
    "zai-coding-cn": "zai",
}
"""pi's provider ids where genai-prices names the same provider otherwise; any other id is
tried as it is, then the model is looked up on its own."""


def _count(value: Any) -> int:
    n = finite_number(value)
    return int(n) if n is not None and n > 0 else 0


def reported_cost(usage: Any) -> float | None:
    """The cost a message's usage reports, or None for none (absent, not a number, or 0:
    pi writes 0 for a model it has no price for)."""
    if not isinstance(usage, dict):
        return None
    cost = usage.get("cost")
    total = finite_number(cost.get("total")) if isinstance(cost, dict) else None
    return float(total) if total else None


def estimate_message(message: Any, timestamp: Any = None) -> float | None:
    """The estimated cost of one assistant message that reported none (None when it did,
    when it used no tokens, when the price table does not know its model, or when the figure
    cannot be true: see :func:`estimate_problems`)."""
    value = _raw_estimate(message, timestamp)
    return value if value is not None and _within_bounds(value) else None


def _within_bounds(value: float) -> bool:
    return math.isfinite(value) and 0 <= value <= MAX_COST


def estimate_problems(session: Session) -> Iterator[Diagnostic]:
    """One diagnostic for each estimate left out because it cannot be true (over
    ``MAX_COST`` dollars), naming its line, as a reported cost that cannot be true is named.
    Cheap when nothing is estimated: the price table loads only for a message that needs it."""
    for entry in session.entries:
        message = entry.message
        if message is None or message.get("role") != "assistant":
            continue
        usage = message.get("usage")
        if not isinstance(usage, dict) or reported_cost(usage) is not None:
            continue
        value = _raw_estimate(message, entry.timestamp)
        if value is not None and not _within_bounds(value):
            shown = f"{value:,.2f}" if math.isfinite(value) else str(value)
            yield Diagnostic(
                session.path,
                entry.line,
                f"estimated cost ~${shown} is over {MAX_COST:,.0f}: left out of every total",
            )


def _raw_estimate(message: Any, timestamp: Any = None) -> float | None:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict) or reported_cost(usage) is not None:
        return None
    if not usage_is_valid(usage):  # a figure no call could have: the loader named it
        return None
    model, provider = message.get("model"), message.get("provider")
    if not isinstance(model, str) or not model:
        return None
    tokens = tuple(_count(usage.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite"))
    if not any(tokens):
        return None
    # the price on the day it was sent: the message's own time, else its entry's
    ms = timestamp_ms(message.get("timestamp"))
    ms = ms if ms is not None else timestamp_ms(timestamp)
    if ms is None:
        return None
    try:
        day = datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return None
    return estimate(provider if isinstance(provider, str) else "", model, day, *tokens)


@lru_cache(maxsize=65_536)
def estimate(
    provider: str, model: str, day: str, input: int, output: int, cache_read: int, cache_write: int
) -> float | None:
    """Dollars for one request, by genai-prices, at the prices of ``day`` (UTC). pi's
    ``input`` leaves cached tokens out; genai-prices' ``input_tokens`` is every input token,
    cache reads and writes included, which it prices apart."""
    from genai_prices import Usage, calc_price  # pydantic, 0.2 s: only when one is needed

    usage = Usage(
        input_tokens=input + cache_read + cache_write,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        output_tokens=output,
    )
    when = datetime.fromisoformat(day).replace(tzinfo=UTC)
    named = PROVIDERS.get(provider.lower(), provider.lower()) or None
    for provider_id in dict.fromkeys((named, None)):
        try:
            price = calc_price(
                usage, model_ref=model, provider_id=provider_id, genai_request_timestamp=when
            )
        except (LookupError, ValueError):
            continue
        return float(price.total_price)
    return None
