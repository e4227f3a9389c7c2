"""Make invisible and direction-changing characters visible, and keep control bytes out.

Bidi overrides (Trojan Source, CVE-2021-42574), zero-width and tag characters let a shared
page show text that is not the text that ran; raw control characters have no business in
HTML at all. Every replacement comes from the fixed tables below, never from content.
"""

from __future__ import annotations

import re

_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
_INVISIBLE = [0x200B, 0x200C, 0x200D, 0x2060, *range(0x2061, 0x2065), 0xFEFF, 0xFFFE, 0xFFFF]
_TAGS = list(range(0xE0000, 0xE0080))  # "ASCII smuggling": invisible copies of ASCII
_CONTROLS = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)]
"""C0 except tab, LF and CR; DEL; C1. CR is left to the caller (it means a line end)."""


def _label(c: int) -> str:
    return f"\\x{c:02x}" if c < 0xA0 else f"⟪U+{c:04X}⟫"


HIDDEN = frozenset(chr(c) for c in [*_BIDI, *_INVISIBLE, *_TAGS, *_CONTROLS, 0x0D])
"""Every character the tables below replace (CR included)."""
_MARKUP = {
    c: f'<span class="ctl" title="U+{c:04X}">{_label(c)}</span>'
    for c in [*_BIDI, *_INVISIBLE, *_TAGS, *_CONTROLS, 0x0D]
}
_PLAIN = {c: _label(c) for c in [*_BIDI, *_INVISIBLE, *_TAGS, *_CONTROLS, 0x0D]}


def _char_class(chars: frozenset[str]) -> str:
    """A regex class of runs (a-b), not single characters: re scans runs far faster."""
    points = sorted(map(ord, chars))
    runs: list[list[int]] = []
    for p in points:
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return (
        "["
        + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in runs)
        + "]"
    )


_ANY_HIDDEN = re.compile(_char_class(HIDDEN))
_ASCII_HIDDEN = re.compile(_char_class(frozenset(c for c in HIDDEN if c.isascii())))
"""The same for ASCII text (most code and output): a small class scans twice as fast."""


def _has_hidden(text: str) -> bool:
    return (_ASCII_HIDDEN if text.isascii() else _ANY_HIDDEN).search(text) is not None


def reveal_controls(escaped_html: str) -> str:
    """Replace hidden characters in already-escaped HTML *text* with visible markers.

    Never use it on a string that holds attribute values: the marker contains quotes.
    """
    if not _has_hidden(escaped_html):
        return escaped_html  # the usual case: a regex scan is far faster than translate
    return escaped_html.translate(_MARKUP)


def plain_controls(text: str) -> str:
    """The same markers as plain text, for attribute values and plain-text outputs."""
    return text.translate(_PLAIN) if _has_hidden(text) else text
