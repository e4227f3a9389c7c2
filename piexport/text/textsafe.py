"""Make invisible and direction-changing characters visible, and keep control bytes out.

Bidi overrides (Trojan Source, CVE-2021-42574), zero-width and tag characters, and the
characters that draw as nothing or as a blank (a combining grapheme joiner, variation
selectors, Hangul fillers, the braille blank) let a shared page show text that is not the
text that ran: ``AKIA\\u034f…`` looks exactly like the key it hides. Raw control characters
have no business in HTML at all. Every replacement comes from the fixed tables below, never
from content.

Variation selectors are the one case that depends on context: after an emoji or another
symbol (``❤\\ufe0f``, ``⚠\\ufe0f``), after a CJK ideograph, and in a keycap (``1\\ufe0f\\u20e3``)
they choose how the character before them looks, and models write them all the time, so
there they are left alone. Anywhere else (after a letter of a key, a space, another
selector, or at the start) they change nothing the reader can see and are shown as marks.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
_INVISIBLE = [0x200B, 0x200C, 0x200D, 0x2060, *range(0x2061, 0x2065), 0xFEFF, 0xFFFE, 0xFFFF]
_TAGS = list(range(0xE0000, 0xE0080))  # "ASCII smuggling": invisible copies of ASCII
_BLANK = [
    0x00AD,  # soft hyphen: nothing, unless the line breaks there
    0x034F,  # combining grapheme joiner
    0x115F, 0x1160, 0x3164, 0xFFA0,  # Hangul fillers: a blank as wide as a letter
    0x17B4, 0x17B5,  # Khmer inherent vowels
    0x180E,  # Mongolian vowel separator
    0x2065, *range(0x206A, 0x2070),  # deprecated format characters
    0x2800,  # braille pattern blank
    *range(0xFFF0, 0xFFFC),  # unassigned specials, interlinear annotation controls
    *range(0x13430, 0x13440),  # Egyptian hieroglyph format controls
    *range(0x1BCA0, 0x1BCA4),  # shorthand format controls
    *range(0x1D173, 0x1D17B),  # musical beam and phrase controls
    *range(0xE0080, 0xE0100), *range(0xE01F0, 0xE1000),  # default-ignorable, unassigned
]  # fmt: skip
"""Unicode's Default_Ignorable_Code_Point set (not covered above), and blanks that are not
spaces: all of them draw as nothing or as an empty cell."""
_SELECTORS = [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), *range(0x180B, 0x180E), 0x180F]
"""Variation selectors (standard, ideographic, Mongolian): marked unless they follow a
character that takes them (see the module's docstring)."""
_CONTROLS = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)]
"""C0 except tab, LF and CR; DEL; C1. CR is left to the caller (it means a line end)."""


def _label(c: int) -> str:
    return f"\\x{c:02x}" if c < 0xA0 else f"⟪U+{c:04X}⟫"


INVISIBLE_RENDERING = frozenset(chr(c) for c in [*_BIDI, *_INVISIBLE, *_TAGS, *_BLANK, *_SELECTORS])
"""Every character that draws as nothing, as a blank, or changes the direction of the text
around it: what a reader cannot see. A secret scanner should drop them before matching
(``AKIA\\u034fIOSF…`` is the key it looks like); :func:`reveal_controls` shows each one."""
SELECTORS = frozenset(chr(c) for c in _SELECTORS)
HIDDEN = frozenset(INVISIBLE_RENDERING | {chr(c) for c in [*_CONTROLS, 0x0D]})
"""Every character the tables below replace (CR included; selectors only where marked)."""
_ALL = [*_BIDI, *_INVISIBLE, *_TAGS, *_BLANK, *_SELECTORS, *_CONTROLS, 0x0D]


@cache
def _markup() -> dict[int, str]:
    """What each hidden character becomes in a page (built on first use: ~4,000 entries)."""
    return {c: f'<span class="ctl" title="U+{c:04X}">{_label(c)}</span>' for c in _ALL}


@cache
def _plain() -> dict[int, str]:
    """What each hidden character becomes in text (a terminal, a title, a snippet)."""
    return {c: _label(c) for c in _ALL}


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
_SELECTOR = re.compile(_char_class(SELECTORS))
_KEYCAP_BASE = frozenset("0123456789#*")
_TAKES_SELECTOR = frozenset({"Lo", "Lm", "Nl", "No", "So", "Sm", "Sk", "Po", "Pd", "Ps", "Pe"})
"""Categories of the characters variation sequences are defined for: symbols and emoji,
punctuation, ideographs and other letters without case (Mongolian, Myanmar, CJK)."""


def selector_is_shown(text: str, at: int) -> bool:
    """Whether the variation selector at ``text[at]`` has a visible effect (and is kept)."""
    if at == 0:
        return False
    before = text[at - 1]
    if before in _KEYCAP_BASE:  # 1️⃣: digit, selector, combining enclosing keycap
        return text[at + 1 : at + 2] == "\u20e3" and text[at] in "\ufe0e\ufe0f"
    if before.isascii() or before in HIDDEN:
        return False
    # U+2139 INFORMATION SOURCE is a lower-case letter by category, and an emoji
    return before == "\u2139" or unicodedata.category(before) in _TAKES_SELECTOR


def _translate(text: str, table: dict[int, str]) -> str:
    if _SELECTOR.search(text) is None:
        return text.translate(table)
    out, last = [], 0
    for m in _SELECTOR.finditer(text):
        if selector_is_shown(text, m.start()):
            out.append(text[last : m.start()].translate(table))
            out.append(m.group())
            last = m.end()
    out.append(text[last:].translate(table))
    return "".join(out)


def _has_hidden(text: str) -> bool:
    return (_ASCII_HIDDEN if text.isascii() else _ANY_HIDDEN).search(text) is not None


def reveal_controls(escaped_html: str) -> str:
    """Replace hidden characters in already-escaped HTML *text* with visible markers.

    Never use it on a string that holds attribute values: the marker contains quotes.
    """
    if not _has_hidden(escaped_html):
        return escaped_html  # the usual case: a regex scan is far faster than translate
    return _translate(escaped_html, _markup())


def plain_controls(text: str) -> str:
    """The same markers as plain text, for attribute values and plain-text outputs."""
    return _translate(text, _plain()) if _has_hidden(text) else text


# Control characters from content must not drive the user's terminal (ANSI, OSC 8, bells).
_TERMINAL_DROPS: dict[int, str | None] = {c: None for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]}
_TERMINAL_DROPS.update({0x2028: " ", 0x2029: " "})


def terminal_safe(text: str) -> str:
    """Text with every control character removed, safe to print to a terminal, and bidi
    controls and invisible characters shown as marks (terminals that apply bidi exist)."""
    return plain_controls(text.translate(_TERMINAL_DROPS))
