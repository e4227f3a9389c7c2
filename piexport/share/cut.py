"""Cutting session text short without cutting a redaction token in half.

Every shortening of session text (titles, previews, summaries, tree rows) goes through
:func:`shorten`, so a ``[REDACTED:…]`` token is either whole or gone: half a token is not
ours, and the output gate would read ``KEY=[RE…`` as a secret. Kept apart from ``redact``
(its rules and gate) so that what only shortens text does not load them.
"""

from __future__ import annotations

import re

TOKEN = re.compile(r"\\?\[REDACTED:[a-z0-9-]{1,40}:[0-9a-f]{8}\\?\]")
"""One of our tokens, also as Markdown text escapes it (``\\[REDACTED:…\\]``)."""


def safe_cut(text: str, end: int) -> int:
    """The largest offset ``<= end`` that does not fall inside a redaction token: where to
    cut ``text`` so that no ``[REDACTED:…]`` is left half (a half token is not ours, and the
    gate would read ``KEY=[RE…`` as a secret)."""
    if end <= 0 or end >= len(text) or "[" not in text:
        return max(0, min(end, len(text)))
    lo = max(0, end - TOKEN_MAX)
    for m in TOKEN.finditer(text, lo, min(len(text), end + TOKEN_MAX)):
        if m.start() < end < m.end():
            return m.start()
    return end


def shorten(text: str, limit: int, mark: str = "…", *, strip: bool = False) -> str:
    """``text`` cut to at most ``limit`` characters with ``mark`` at the end, never inside a
    redaction token (every shortening of session text goes through this)."""
    if len(text) <= limit:
        return text
    head = text[: safe_cut(text, max(0, limit - len(mark)))]
    return (head.rstrip() if strip else head) + mark


TOKEN_MAX = 62
"""No redaction token is longer (``[REDACTED:`` + a 40-character rule + ``:`` + 8 + ``]``, and
two backslashes where Markdown escapes the brackets)."""
