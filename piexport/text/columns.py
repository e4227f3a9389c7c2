"""Text in a terminal's columns: how many cells a text takes (wide East Asian characters and
most emoji take two, combining marks and format characters none), and cutting or padding to
a number of cells, never inside a redaction token. Text given here is terminal-safe already
(``textsafe.terminal_safe``): no control character is left to move the cursor."""

from __future__ import annotations

import unicodedata

from .cut import _token_at, safe_cut

__all__ = ["cells", "cut_end", "cut_start", "pad_end", "pad_start"]


def _cells(c: str) -> int:
    if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf"):
        return 0
    if c in "\ufe0e\ufe0f" or "\u200b" <= c <= "\u200f":
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def cells(text: str) -> int:
    """The terminal cells ``text`` takes."""
    if text.isascii():
        return len(text)
    return sum(map(_cells, text))


def cut_end(text: str, width: int, mark: str = "…") -> str:
    """``text`` in at most ``width`` cells, cut at its end with ``mark`` (its start kept:
    ``anthropic/claude-opus-…``); a token the cut falls inside is left out whole."""
    if cells(text) <= width:
        return text
    room, used, end = max(0, width - cells(mark)), 0, 0
    for end, c in enumerate(text):  # noqa: B007
        used += _cells(c)
        if used > room:
            break
    return text[: safe_cut(text, end)] + mark


def cut_start(text: str, width: int, mark: str = "…") -> str:
    """``text`` in at most ``width`` cells, cut at its start with ``mark`` first (its end
    kept: ``…/work/shop``); a token the cut falls inside is left out whole."""
    if cells(text) <= width:
        return text
    room, used, start = max(0, width - cells(mark)), 0, len(text)
    while start > 0 and used + _cells(text[start - 1]) <= room:
        start -= 1
        used += _cells(text[start])
    token = _token_at(text, start)
    if token is not None:
        start = token[1]
    return mark + text[start:]


def pad_end(text: str, width: int) -> str:
    """``text`` and spaces to ``width`` cells (left-aligned)."""
    return text + " " * max(0, width - cells(text))


def pad_start(text: str, width: int) -> str:
    """Spaces and ``text`` to ``width`` cells (right-aligned)."""
    return " " * max(0, width - cells(text)) + text
