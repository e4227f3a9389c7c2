"""How outputs show text, for matching: normalised, and in the other ways a reader sees it.

Text is matched after Unicode NFKC with format characters (zero-width spaces, bidi controls,
soft hyphens) removed (:func:`normalise`, with a map back to the original characters), as a
markdown renderer shows it (:func:`markdown_read`), with terminal escapes left out and with
``%xx`` decoded (:func:`other_views`). A secret's token is made from it as shown
(:func:`as_shown`), so one secret gets one token however a page writes it.
"""

from __future__ import annotations

import bisect
import html
import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import cache
from urllib.parse import unquote

from ..text.ansi import ESCAPES as _ANSI  # every escape as pages and Markdown leave it out

__all__ = [
    "INVISIBLE_EXTRA",
    "Offset",
    "as_shown",
    "fast_normal",
    "markdown_read",
    "normalise",
    "other_views",
]

# format characters (zero-width space/joiners, bidi controls, soft hyphen, BOM, …)
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


INVISIBLE_EXTRA = frozenset(
    chr(c)
    for a, b in (
        (0x034F, 0x034F),  # combining grapheme joiner
        (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
        (0x17B4, 0x17B5),  # Khmer inherent vowels
        (0x180B, 0x180F),  # Mongolian variation selectors
        (0x3164, 0x3164),  # Hangul filler
        (0xFE00, 0xFE0F),  # variation selectors (U+FE0F after ghp_)
        (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
        (0xE0100, 0xE01EF),  # variation selectors supplement
    )
    for c in range(a, b + 1)
)
"""Characters that render as nothing (or as blank space no wider than a glyph joins) but are
not format (Cf) characters: removed before matching like the Cf ones. (To be unified with
``textsafe``'s set of invisible characters.)"""


def _invisible(ch: str) -> bool:
    return ch in INVISIBLE_EXTRA or unicodedata.category(ch) == "Cf"


@cache
def _format_chars() -> re.Pattern[str]:
    """Every format (Cf) character (zero-width spaces and joiners, bidi controls, soft hyphen,
    BOM, tags) and every other character that renders as nothing (``INVISIBLE_EXTRA``).
    Built once from the Unicode database."""
    ranges: list[list[int]] = []
    # planes 0 and 1 and the tags plane hold every Cf character (the rest are CJK and private)
    for c in (*range(0x80, 0x20000), *range(0xE0000, 0xE1000)):
        if _invisible(chr(c)):
            if ranges and ranges[-1][1] == c - 1:
                ranges[-1][1] = c
            else:
                ranges.append([c, c])
    body = "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)
    return re.compile(f"[{body}]+")


def fast_normal(text: str) -> str:
    """NFKC with format characters removed, without the offset map (for finding out whether
    there is anything to replace, and for scanning)."""
    if text.isascii():
        return text
    if _MARK_START in text:
        text = _MARK.sub("", text)
    text = _format_chars().sub("", text)
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


_MARK_START = "\u27ea"
_MARK = re.compile("\u27eaU\\+[0-9A-F]{4,6}\u27eb")
"""``⟪U+200B⟫``: how outputs show a character that draws as nothing (``textsafe``). It
stands for that character, which normalising removes: ``AKIA⟪U+FE0F⟫IOSF…`` is the key it
shows, and ``PASSWORD=⟪U+200B⟫`` holds no value."""


def normalise(text: str) -> tuple[str, list[int] | None]:
    """NFKC with format characters removed, and for each normalised character the index of
    the original character it came from (None when the text is unchanged).

    Each non-ASCII character is normalised on its own so the offsets map back exactly; that
    differs from whole-string NFKC only for combining sequences, which no token format has.
    """
    if text.isascii():
        return text, None
    if _MARK_START in text and _MARK.search(text):
        stripped, start, _end = _without(_MARK, text)
        normal, where = normalise(stripped)
        return normal, [start(i) for i in (range(len(stripped)) if where is None else where)]
    out: list[str] = []
    where = []
    pos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        if m.start() > pos:
            out.append(text[pos : m.start()])
            where.extend(range(pos, m.start()))
        for i in range(m.start(), m.end()):
            ch = text[i]
            if _invisible(ch):
                continue
            nf = unicodedata.normalize("NFKC", ch)
            out.append(nf)
            where.extend([i] * len(nf))
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
        where.extend(range(pos, len(text)))
    normal = "".join(out)
    return normal, (None if normal == text else where)


_WORD = "A-Za-z0-9_+/=-"
_MARKDOWN_JOIN = re.compile(  # the mark first and the character before it looked behind at:
    # a pattern that starts with a look-behind is tried at every position, ten times slower
    rf"(?:\*(?<=[{_WORD}]\*)\*{{0,2}}|~(?<=[{_WORD}]~)~?|`(?<=[{_WORD}]`)`{{0,2}}"
    rf"|\\(?<=[{_WORD}]\\)(?=[!-/:-@\[-`{{-~]))(?=[{_WORD}\\])"
)
"""Emphasis, strike and code marks, and backslash escapes, between two characters of a word:
a markdown renderer drops them and shows the two halves as one word."""


def markdown_read(
    text: str,
) -> list[tuple[int, int, str, list[int], list[tuple[int, int]]]]:
    """The text as a markdown renderer shows it (marks inside words removed, character
    references such as ``&#95;`` decoded), around each place it differs: ``(lo, hi, joined,
    where, marks)`` for ``text[lo:hi]`` read that way, the offset in ``text`` of each
    character of ``joined``, and the spans of the marks and references. Only a secret that
    holds one of them is new, and none is longer than ``_JOIN_REACH``."""
    found: list[tuple[int, int, str]] = []
    if "*" in text or "\\" in text or "`" in text or "~" in text:
        found = [(m.start(), m.end(), "") for m in _MARKDOWN_JOIN.finditer(text)]
    if "&" in text and ";" in text:
        for m in _ENTITY.finditer(text):
            char = html.unescape(m.group())
            if len(char) == 1:
                found.append((m.start(), m.end(), char))
        found.sort()
    windows: list[tuple[int, list[int], list[tuple[int, int, str]]]] = []  # lo, [hi], marks
    for a, b, char in found:
        lo, hi = max(0, a - _JOIN_REACH), min(len(text), b + _JOIN_REACH)
        if windows and lo <= windows[-1][1][0]:
            if a < windows[-1][2][-1][1]:
                continue  # inside the last one
            windows[-1][1][0] = hi
            windows[-1][2].append((a, b, char))
        else:
            windows.append((lo, [hi], [(a, b, char)]))
    out = []
    for lo, (hi,), marks in windows:
        parts: list[str] = []
        where: list[int] = []
        pos = lo
        for a, b, char in marks:
            parts.append(text[pos:a] + char)
            where.extend(range(pos, a + len(char)))  # a reference's character is at its '&'
            pos = b
        parts.append(text[pos:hi])
        where.extend(range(pos, hi))
        out.append((lo, hi, "".join(parts), where, [(a, b) for a, b, _ in marks]))
    return out


def as_shown(secret: str) -> str:
    """A secret as outputs show it (terminal escapes left out, ``%xx`` decoded, markdown's
    marks inside words removed, references decoded): what its token is made from, so
    ``ghp\\_…``, ``ghp&#95;…``, ``gh%70_…`` and ``ghp_…`` get one token."""
    if "\x1b" in secret:
        secret = _ANSI.sub("", secret)
    if "%" in secret and _PERCENT.search(secret):
        secret = fast_normal(unquote(secret))
    if "&" in secret:
        secret = _ENTITY.sub(
            lambda m: c if len(c := html.unescape(m.group())) == 1 else m.group(), secret
        )
    return _MARKDOWN_JOIN.sub("", secret) if _MARKDOWN_JOIN.search(secret) else secret


_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_PERCENT_LINE = re.compile(r"^.*%[0-9A-Fa-f]{2}.*$", re.MULTILINE)

Offset = Callable[[int], int]


def other_views(text: str) -> Iterator[tuple[str, Offset, Offset]]:
    """The other ways outputs show ``text``: ``(view, start, end)`` where ``start(i)`` is
    the offset in ``text`` where the view's character ``i`` starts and ``end(i)`` where it
    ends. With terminal escapes left out (when there are any), and each line holding
    ``%xx`` URL-decoded (of the text, and of it without escapes)."""
    bases: list[tuple[str, Offset, Offset]] = []
    if "\x1b" in text:
        view, start, end = _without(_ANSI, text)
        bases.append((view, start, end))
        yield view, start, end
    if "%" not in text:
        return
    for base, b_start, b_end in [(text, _same, _next), *bases]:
        for m in _PERCENT_LINE.finditer(base):
            decoded, d_start, d_end = _url_decoded(m.group(), m.start())
            normal, where = normalise(decoded)  # a decoded character can be invisible
            if where is not None:
                d_start, d_end = _through(where, d_start, d_end)
            yield (normal, *_then(d_start, d_end, b_start, b_end))


def _same(i: int) -> int:
    return i


def _next(i: int) -> int:
    return i + 1


def _through(where: list[int], start: Offset, end: Offset) -> tuple[Offset, Offset]:
    """Offsets of a view of a view: ``where[i]`` is the character of the first view that
    character ``i`` of the second came from."""
    return (lambda i: start(where[i])), (lambda i: end(where[i]))


def _then(
    start: Offset, end: Offset, outer_start: Offset, outer_end: Offset
) -> tuple[Offset, Offset]:
    """A view's offsets through the view it was made from."""
    return (lambda i: outer_start(start(i))), (lambda i: outer_end(end(i) - 1))


def _without(pattern: re.Pattern[str], text: str) -> tuple[str, Offset, Offset]:
    """``text`` with every match of ``pattern`` left out, and where each character was."""
    kept: list[str] = []
    views: list[int] = []  # where each kept piece starts in the view…
    origins: list[int] = []  # …and in the text
    pos = at = 0
    for m in pattern.finditer(text):
        if m.start() > pos:
            views.append(at)
            origins.append(pos)
            kept.append(text[pos : m.start()])
            at += m.start() - pos
        pos = m.end()
    views.append(at)
    origins.append(pos)
    kept.append(text[pos:])

    def start(i: int) -> int:
        k = bisect.bisect_right(views, i) - 1
        return origins[k] + i - views[k]

    return "".join(kept), start, lambda i: start(i) + 1


def _url_decoded(line: str, offset: int) -> tuple[str, Offset, Offset]:
    """A line with each run of ``%xx`` decoded (UTF-8, as ``urllib.parse.unquote``), and
    where each character was in the text (``offset``: where the line starts there); the
    characters of a decoded run start at the run's start and end at its end."""
    out: list[str] = []
    spans: list[tuple[int, int, int, bool]] = []  # view start, text start, text end, exact
    pos = at = 0
    for m in _PERCENT.finditer(line):
        if m.start() > pos:
            spans.append((at, pos, m.start(), True))
            out.append(line[pos : m.start()])
            at += m.start() - pos
        chars = unquote(m.group())
        spans.append((at, m.start(), m.end(), False))
        out.append(chars)
        at += len(chars)
        pos = m.end()
    spans.append((at, pos, len(line), True))
    out.append(line[pos:])
    firsts = [v for v, _, _, _ in spans]

    def find(i: int) -> tuple[int, int, int, bool]:
        return spans[bisect.bisect_right(firsts, i) - 1]

    def start(i: int) -> int:
        v, a, _b, exact = find(i)
        return offset + (a + i - v if exact else a)

    def end(i: int) -> int:
        v, a, b, exact = find(i)
        return offset + (a + i - v + 1 if exact else b)

    return "".join(out), start, end


_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
"""A character reference, which markdown (and HTML) shows as its character."""
_JOIN_REACH = 300
"""How far around a markdown mark a secret joined by it is looked for."""
