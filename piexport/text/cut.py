"""Text derived from session text for display: cuts, one-line previews, joins, titles.

Every output shows text it made from what a session holds: a tree row joins a message's lines
and cuts them, a title takes a first line, a tool-call summary cuts a command, a row puts a
label next to a summary. Those make shapes no field held (``KEY=`` and the next line, a key
cut short, a value next to a label), so the redactor has to see them too: a :class:`Derive`
makes each of them and, when it holds a redactor, redacts what it made. A session carries
the one that fits it (``Session.derive``: the redactor's when the session was redacted, else
one that only shortens), so text made from a session with it cannot skip redaction.

A cut never splits a ``[REDACTED:…]`` token: one the cut falls inside is kept whole. Kept
apart from ``redact`` (its rules and gate) so that what only shortens text does not load them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

__all__ = ["PLAIN", "TOKEN", "TOKEN_MAX", "Derive", "Redacts", "safe_cut", "shorten"]

TOKEN = re.compile(r"\\?\[REDACTED:[a-z0-9-]{1,40}:[0-9a-f]{8}\\?\]")
"""One of our tokens, also as Markdown text escapes it (``\\[REDACTED:…\\]``)."""

TOKEN_MAX = 62
"""No redaction token is longer (``[REDACTED:`` + a 40-character rule + ``:`` + 8 + ``]``, and
two backslashes where Markdown escapes the brackets)."""

CUT_WINDOW = 20_000
"""How much text before a cut the redactor reads again: more than any rule's match (a private
key's body is at most 16,384 characters, a value 8,192)."""


def _token_at(text: str, end: int) -> tuple[int, int] | None:
    """The token ``end`` falls strictly inside, if any."""
    if "[" not in text:
        return None
    lo = max(0, end - TOKEN_MAX)
    for m in TOKEN.finditer(text, lo, min(len(text), end + TOKEN_MAX)):
        if m.start() < end < m.end():
            return m.span()
    return None


def safe_cut(text: str, end: int) -> int:
    """The largest offset ``<= end`` that does not fall inside a redaction token: where to
    cut ``text`` so that no ``[REDACTED:…]`` is left half (a half token is not ours, and the
    gate would read ``KEY=[RE…`` as a secret)."""
    if end <= 0 or end >= len(text):
        return max(0, min(end, len(text)))
    token = _token_at(text, end)
    return end if token is None else token[0]


def whole_cut(text: str, end: int) -> int:
    """Where to cut ``text`` near ``end`` so that a token the cut falls inside is kept whole
    (the offset just past it): ``KEY=[REDACTED:…]…`` says what was there, ``KEY=…`` does not."""
    if end <= 0 or end >= len(text):
        return max(0, min(end, len(text)))
    token = _token_at(text, end)
    return end if token is None else token[1]


def shorten(text: str, limit: int, mark: str = "…", *, strip: bool = False) -> str:
    """``text`` cut to about ``limit`` characters with ``mark`` at the end; a token the cut
    falls inside is kept whole (so the text can be up to ``TOKEN_MAX`` longer). This only
    shortens: text for display is made with :class:`Derive`, which also redacts the cut."""
    if len(text) <= limit:
        return text
    head = text[: whole_cut(text, max(0, limit - len(mark)))]
    if len(head) >= len(text):
        return text
    return (head.rstrip() if strip else head) + mark


def shorten_left(text: str, limit: int, mark: str = "…") -> str:
    """``text`` cut from the left to at most ``limit`` characters, ``mark`` first; a token
    the cut falls inside is left out whole (a table column keeps its width)."""
    if len(text) <= limit:
        return text
    start = len(text) - max(0, limit - len(mark))
    token = _token_at(text, start)
    if token is not None:
        start = token[1]
    return mark + text[start:]


class Redacts(Protocol):
    """What :class:`Derive` needs of a redactor (``redact.Redactor``)."""

    def redact_text(self, text: str, *, count: bool = True) -> str: ...


TITLE_CHARS = 100
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
"""A code fence's line in Markdown (CommonMark: up to three spaces, then three or more
backticks or tildes)."""


def fence_step(fence: str, mark: str, rest: str) -> str:
    """The fence open after a fence-like line (``mark`` and what follows it), given the one
    open before (``""``: none). CommonMark: a backtick fence's info has no backtick; a
    closing fence is the opening one's character, at least as long, with nothing after."""
    if not fence:
        return mark if not (mark[0] == "`" and "`" in rest) else ""
    if mark[0] == fence[0] and len(mark) >= len(fence) and not rest.strip():
        return ""
    return fence


class Derive:
    """Makes display text from session text, and redacts what it makes when it holds a
    redactor. Its inputs are text a session holds (redacted with it) or text it made; its
    results are safe to show next to them.

    For a new kind of entry or output: build its words with these methods, or build them
    from shown parts and page words and pass the result through ``derive(text)``; never cut
    or join session text with plain string operations.
    """

    __slots__ = ("redactor",)

    def __init__(self, redactor: Redacts | None = None) -> None:
        self.redactor = redactor

    def __repr__(self) -> str:
        return f"Derive({'redacting' if self.redactor is not None else 'plain'})"

    def __call__(self, text: str) -> str:
        """Text built from shown parts and the page's own words, as shown: redacted as one
        text (a label next to a value can read as a secret neither holds alone)."""
        if self.redactor is None or not text:
            return text
        return self.redactor.redact_text(text, count=False)

    def cut(self, text: str, limit: int, mark: str = "…", *, strip: bool = False) -> str:
        """``text`` cut near ``limit`` characters with ``mark`` (see :func:`shorten`)."""
        short = shorten(text, limit, mark, strip=strip)
        return text if short is text else self._tail(short)

    def cut_left(self, text: str, limit: int, mark: str = "…") -> str:
        """``text`` cut from the left to at most ``limit`` characters, ``mark`` first."""
        short = shorten_left(text, limit, mark)
        return text if short is text else self(short)

    def block(self, text: str, end: int) -> str:
        """The first ``end`` characters of a long text (a token kept whole), for a page that
        shows the start of it: only the part near the new end is read again."""
        if end >= len(text):
            return text
        return self._tail(text[: whole_cut(text, max(0, end))])

    def line(self, text: str, limit: int | None = None, mark: str = "…") -> str:
        """``text`` on one line (every run of spaces and line breaks one space), cut near
        ``limit``: a preview. Lines joined read on from one into the next (``KEY=`` and the
        line after it), so what it makes is read again."""
        flat = " ".join(text.split())
        if limit is not None and len(flat) > limit:
            return self.cut(flat, limit, mark)
        return text if flat == text else self(flat)

    def join(self, parts: Iterable[str], sep: str = " ") -> str:
        """Parts shown as one text (``sep`` between them): read again where they meet (a
        join changes what rules read only within ``CUT_WINDOW`` characters of it)."""
        items = list(parts)
        if len(items) == 1:
            return items[0]
        text = sep.join(items)
        if self.redactor is None or len(text) <= 4 * CUT_WINDOW:
            return self(text)
        windows: list[list[int]] = []
        at = 0
        for item in items[:-1]:
            at += len(item)
            lo = text.rfind("\n", 0, max(0, at - CUT_WINDOW)) + 1
            lo = safe_cut(text, max(lo, at - 2 * CUT_WINDOW))
            hi = text.find("\n", min(len(text), at + len(sep) + CUT_WINDOW))
            hi = len(text) if hi < 0 else min(hi, at + len(sep) + 2 * CUT_WINDOW)
            hi = whole_cut(text, hi)
            if windows and lo <= windows[-1][1]:
                windows[-1][1] = max(windows[-1][1], hi)
            else:
                windows.append([lo, hi])
            at += len(sep)
        out: list[str] = []
        pos = 0
        for lo, hi in windows:
            out += [text[pos:lo], self(text[lo:hi])]
            pos = hi
        out.append(text[pos:])
        return "".join(out)

    def words(self, text: str, length: int, end: str = "...", leeway: int = 5) -> str:
        """``text`` cut at a word before ``length`` characters with ``end``, unless it is at
        most ``leeway`` longer (Jinja's ``truncate``); a word is cut only when it is the
        only one, never inside a token."""
        if len(text) <= length + leeway:
            return text
        head = text[: length - len(end)]
        cut = head.rsplit(" ", 1)[0] if " " in head else text[: whole_cut(text, len(head))]
        return self(cut + end)

    def markdown(self, text: str) -> str:
        """Markdown made from session text, read again as it shows: each line outside code
        (our encoders put text on one line: a code span, a heading, a ``<summary>``, which
        joins lines the redactor read apart) and each code block as the one text it is (a
        block can be made of several values: a command and its output, a tool's nested
        calls)."""
        if self.redactor is None:
            return text
        out: list[str] = []
        code: list[str] = []
        fence = ""
        for line in text.split("\n"):
            m = FENCE.fullmatch(line)
            opened = fence
            if m is not None:
                fence = fence_step(fence, m.group(1), m.group(2))
            if opened and not fence:  # the code block ends: read it as one text
                out += [self("\n".join(code)), line] if code else [line]
                code = []
            elif opened:
                code.append(line)
            else:
                out.append(line if fence else self(line))
        if code:
            out.append(self("\n".join(code)))
        return "\n".join(out)

    def title(self, text: str, limit: int = TITLE_CHARS) -> str:
        """The first non-blank line of ``text``, spaces collapsed, cut at a word boundary
        near ``limit`` characters (with "…"); a word longer than that is cut inside (a token
        the cut falls inside is kept whole)."""
        line = next((ln for ln in text.split("\n") if ln.strip()), "")
        flat = " ".join(line.split())
        if len(flat) <= limit:
            return self(flat) if flat != text else text
        cut = flat[:limit]
        space = cut.rfind(" ")
        if space >= limit // 2:
            cut = cut[:space]
        cut = flat[: whole_cut(flat, len(cut))]
        return self(cut.rstrip(" ,;:.-") + "…")

    def _tail(self, text: str) -> str:
        """``text``, whose end is new (a cut), redacted near its end: a cut changes what
        rules read only within ``CUT_WINDOW`` characters of it. The part read again starts
        at a line start when one is near (rules anchored at a line start read it as one)."""
        if self.redactor is None:
            return text
        if len(text) <= CUT_WINDOW:
            return self(text)
        start = text.rfind("\n", 0, len(text) - CUT_WINDOW) + 1
        start = safe_cut(text, max(start, len(text) - 2 * CUT_WINDOW))
        return text[:start] + self(text[start:])


PLAIN = Derive()
"""Shortens and joins, redacts nothing: for a session that was not redacted."""
