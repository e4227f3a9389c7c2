"""Markdown that stays Markdown where it is read: GitHub, GitLab, a CI job page.

Those renderers pass raw HTML through (sanitised, but a remote ``<img>``, ``<details open>``
and ``<!--`` that hides the rest of the file all survive), so nothing from a session may
become HTML there. Text from a session goes out in one of four ways:

- inside a code fence or a code span whose delimiters are longer than any backtick run
  inside (CommonMark's rule, padded where the content starts or ends with a backtick);
- as escaped inline text (every character that could start inline syntax escaped);
- as HTML text inside our own ``<details>``/``<summary>`` (entity-escaped, on one line);
- as Markdown (message text), with every ``<`` that would start HTML escaped, outside code,
  and images made links (a remote image is a request each time the file is viewed).

In all of them line ends are normalised (a lone CR is a line end to CommonMark) and bidi
controls and invisible characters are shown as marks
(:func:`~piexport.text.textsafe.plain_controls`).

An ``@name`` (or ``@org/team``) in text notifies that person when the Markdown is posted
as a pull-request comment: GitHub and GitLab link mentions in the text of the rendered
HTML, after entities are decoded (``&#64;name`` still notifies), and never inside ``code``,
``pre`` or links. So a mention outside code goes out as a code span: shown as written,
notifying nobody. Message text is parsed again to check that none is left; one that is
goes out fenced.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from .ansi import ansi_plain
from .textsafe import plain_controls

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def _github() -> MarkdownIt:
    """How the reader's renderer sees it: CommonMark with raw HTML on. Made on first use:
    the CLI starts without markdown-it."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


_BACKTICKS = re.compile(r"`+")
_INLINE_SYNTAX = re.compile(r"([\\`*_\[\]<>!|&~#$])")
"""What can start inline syntax mid-line (GitHub's ``$`` math included); our own words
come first on every line, so block syntax (``-``, ``1.``, ``>``) cannot start."""
_HTML_START = re.compile(r"<(?=[A-Za-z/!?])")
_FENCE_LINE = re.compile(r"^[ \t>*+\-\d.)]*(?:`{3,}|~{3,})", re.MULTILINE)
MAX_CHECKED = 500_000
"""Message text longer than this (or with more ``[`` than MAX_BRACKETS) is not parsed: it
goes out fenced, as written. markdown-it's cost grows fast on hostile input."""
MAX_BRACKETS = 5000
_SENTINEL = "piexportsentinel"


def newlines(text: str) -> str:
    """CRLF and lone CR become LF: CommonMark reads all three as a line end."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def code_fence(text: str, lang: str = "text") -> str:
    """A code fence longer than any backtick run inside, so content stays literal.

    Terminal escapes go (colours, cursor moves: the HTML page shows colours, a fence
    cannot; a safe link's address stays after its text), and the control characters left
    are shown as marks."""
    text = plain_controls(ansi_plain(newlines(text)))
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def code_span(text: str) -> str:
    """An inline code span that shows ``text`` exactly (line ends become spaces)."""
    text = plain_controls(" ".join(newlines(text).split("\n")))
    if not text:
        return "(empty)"
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    # CommonMark strips one space from each end when both are there (and the span is not
    # all spaces): pad so content that starts or ends with a backtick or a space survives
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    if pad and not text.strip(" "):
        pad = ""  # all spaces: kept as they are
    return f"{ticks}{pad}{text}{pad}{ticks}"


_MENTION = re.compile(r"(?<![A-Za-z0-9_])@[A-Za-z0-9][A-Za-z0-9_-]*(?:/[A-Za-z0-9][\w.-]*)?")
"""What GitHub reads as a mention (of a person, or a team: ``@org/team``): ``@`` after
anything but an ASCII letter, digit or underscore, then a name."""
_AT_ENTITY = re.compile(r"&(?:#0*64|#[xX]0*40|commat);")
"""``@`` written as an entity: a mention once GitHub decodes it."""
_URL_WORD = re.compile(r"(?:(?<=[\s*_~(])|^)(?:(?:https?|ftp)://|www\.)\S*", re.I | re.M)
"""A URL GitHub makes a link of (GFM's extended autolinks): a mention in it is in a link.
(An e-mail address holds no mention: its ``@`` follows a letter or a digit.)"""


def _outside_mentions(text: str, plain: Callable[[str], str], mention: Callable[[str], str]) -> str:
    """``text`` with each mention through ``mention`` and the rest through ``plain``."""
    urls = [(m.start(), m.end()) for m in _URL_WORD.finditer(text)] if "@" in text else []
    out, last = [], 0
    for m in _MENTION.finditer(text):
        if any(a <= m.start() < b for a, b in urls):
            continue
        out += [plain(text[last : m.start()]), mention(m.group())]
        last = m.end()
    out.append(plain(text[last:]))
    return "".join(out)


def inline_text(text: str) -> str:
    """Plain text on one line of our own Markdown: nothing in it is syntax, and a mention
    is a code span (it notifies nobody)."""
    flat = " ".join(plain_controls(newlines(text)).split())
    return _outside_mentions(flat, lambda t: _INLINE_SYNTAX.sub(r"\\\1", t), lambda m: f"`{m}`")


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def html_text(text: str) -> str:
    """Text inside our own HTML (a ``<summary>``): escaped, and on one line, since a blank
    line would end the HTML block and leave the rest to Markdown; a mention in ``<code>``."""
    text = " ".join(plain_controls(newlines(text)).split())
    return _outside_mentions(text, _html_escape, lambda m: f"<code>{_html_escape(m)}</code>")


def message_markdown(text: str) -> str:
    """Message text (Markdown already) that cannot become HTML nor swallow what follows.

    Every ``<`` that could open a tag, a comment or a declaration is backslash-escaped,
    and every ``!`` that makes a link an image, outside code spans and code blocks; a
    fence left open is closed. The result is parsed
    again to check: what still is not safe goes out fenced, as written."""
    text = plain_controls(newlines(text))
    safe = _no_html(text)
    if safe is not None and (_MENTION.search(safe) or _AT_ENTITY.search(safe)):
        safe = _quiet_mentions(safe)
    return code_fence(text) if safe is None else safe


def _no_html(text: str) -> str | None:
    """``message_markdown`` but for mentions: None where the text goes out fenced."""
    if "<" not in text and "![" not in text and not _FENCE_LINE.search(text):
        return text  # nothing that could become HTML or run past its end: the usual case
    if len(text) > MAX_CHECKED or text.count("[") > MAX_BRACKETS:
        return None
    for _ in range(3):
        tokens = _github().parse(text + "\n\n" + _SENTINEL)
        if max(t.level for t in tokens) >= _github().options.maxNesting - 2:
            break  # markdown-it stops looking past its nesting limit; GitHub does not
        regions = _html_regions(tokens)
        closes = _ends_at_top_level(tokens)
        if not regions and closes:
            return text
        if regions:
            text = _escape_html_starts(text, regions)
        elif not closes:
            text = _close_fence(text, tokens)
    return None


_REFERENCE = re.compile(r" {0,3}\[[^\]]*\]:")
_DESTINATION = re.compile(r"\]\([^)\s]*(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
_AUTOLINK = re.compile(r"<[^<>\s]*>")


def _quiet_mentions(text: str) -> str | None:
    """Every mention in Markdown text outside code, links and URLs made a code span (one
    longer than any backtick run in the text, so it pairs with none of them); None when a
    mention is still in the text GitHub would render (the caller then fences it all)."""
    if len(text) > MAX_CHECKED or text.count("[") > MAX_BRACKETS:
        return None
    tokens = _github().parse(text)
    code = _code_lines(tokens)
    lines = text.split("\n")
    longest = [max((len(m) for m in _BACKTICKS.findall(line)), default=0) for line in lines]
    for t in tokens:  # a code span may run over the lines of its paragraph, not further
        if t.type == "inline" and t.map is not None:
            most = max(longest[t.map[0] : t.map[1]], default=0)
            longest[t.map[0] : t.map[1]] = [most] * (t.map[1] - t.map[0])
    for i, line in enumerate(lines):
        if i in code or _REFERENCE.match(line) or not _MENTION.search(line):
            continue
        ticks = "`" * (longest[i] + 1)
        kept = _kept_spans(line)
        out, last = [], 0
        for m in _MENTION.finditer(line):
            if any(a <= m.start() < b for a, b in kept):
                continue
            out += [line[last : m.start()], f"{ticks}{m.group()}{ticks}"]
            last = m.end()
        lines[i] = "".join(out) + line[last:]
    quiet = "\n".join(lines)
    return quiet if not _mentions_left(quiet) else None


def _code_lines(tokens: list[Token]) -> set[int]:
    """Lines of code blocks and fences, where nothing is a mention."""
    out: set[int] = set()
    for t in tokens:
        if t.type in ("fence", "code_block") and t.map is not None:
            out.update(range(t.map[0], t.map[1]))
    return out


def _kept_spans(line: str) -> list[tuple[int, int]]:
    """Where in a line a mention is no mention: code spans, link destinations, autolinks
    and words GitHub makes links of."""
    spans = [(m.start(), m.end()) for m in _DESTINATION.finditer(line)]
    spans += [(m.start(), m.end()) for m in _AUTOLINK.finditer(line)]
    spans += [(m.start(), m.end()) for m in _URL_WORD.finditer(line)]
    runs: dict[int, list[tuple[int, int]]] = {}
    for m in _BACKTICKS.finditer(line):
        runs.setdefault(len(m.group()), []).append((m.start(), m.end()))
    for run in _BACKTICKS.finditer(line):
        close = _matching_run(runs[len(run.group())], run.end())
        if close is not None:
            spans.append((run.start(), close))
    return spans


def _mentions_left(text: str) -> bool:
    """Whether GitHub would find a mention in the text of ``text`` rendered: in text that
    is not code, not in a link, not a URL or an e-mail address."""
    for block in _github().parse(text):
        if block.type != "inline":
            continue
        links, run = 0, []
        for t in [*(block.children or []), None]:
            if t is not None and t.type == "link_open":
                links += 1
            elif t is not None and t.type == "link_close":
                links -= 1
            if t is not None and links == 0 and t.type in ("text", "softbreak", "hardbreak"):
                run.append(t.content if t.type == "text" else "\n")
                continue
            shown = _URL_WORD.sub(" ", "".join(run))
            if _MENTION.search(shown):
                return True
            run = []
    return False


def _html_regions(tokens: list[Token]) -> list[tuple[int, int]]:
    """Line ranges of the blocks where markdown-it found raw HTML or an image."""
    out = []
    for t in tokens:
        if t.map is None:
            continue
        if t.type == "html_block" or (
            t.type == "inline" and any(_live(c) for c in t.children or [])
        ):
            out.append((t.map[0], t.map[1]))
    return out


def _live(token: Token) -> bool:
    if token.type in ("html_inline", "image"):
        return True
    return any(_live(c) for c in token.children or [])


def _ends_at_top_level(tokens: list[Token]) -> bool:
    """The sentinel after the text is a paragraph of its own: nothing ran past the end."""
    tail = tokens[-3:]
    return (
        len(tail) == 3
        and tail[0].type == "paragraph_open"
        and tail[0].level == 0
        and tail[1].content == _SENTINEL
    )


def _close_fence(text: str, tokens: list[Token]) -> str:
    fences = [t for t in tokens if t.type == "fence" and t.level == 0]
    if not fences:
        return text
    return text + "\n" + fences[-1].markup


def _escape_html_starts(text: str, regions: list[tuple[int, int]]) -> str:
    lines = text.split("\n")
    for start, end in regions:
        block = "\n".join(lines[start:end])
        lines[start:end] = _escape_outside_code(block).split("\n")
    return "\n".join(lines)


def _escape_outside_code(block: str) -> str:
    """A backslash before every ``<`` that could start HTML and every ``![``, except inside
    code spans (a backtick run closed by the next run of the same length) and after a
    backslash."""
    runs: dict[int, list[tuple[int, int]]] = {}
    for m in _BACKTICKS.finditer(block):
        runs.setdefault(len(m.group()), []).append((m.start(), m.end()))
    out: list[str] = []
    i, n = 0, len(block)
    while i < n:
        ch = block[i]
        if ch == "\\" and i + 1 < n:
            out.append(block[i : i + 2])
            i += 2
        elif ch == "`":
            run = _BACKTICKS.match(block, i)
            assert run is not None
            close = _matching_run(runs.get(len(run.group()), []), run.end())
            stop = close if close is not None else run.end()
            out.append(block[i:stop])
            i = stop
        elif (ch == "<" and _HTML_START.match(block, i)) or block.startswith("![", i):
            out.append("\\" + ch)
            i += 1
        else:
            j = i + 1
            while j < n and block[j] not in "\\`<!":
                j += 1
            out.append(block[i:j])
            i = j
    return "".join(out)


def _matching_run(same_length: list[tuple[int, int]], after: int) -> int | None:
    """End of the first run (of the opener's length) that starts at or after ``after``."""
    k = bisect_left(same_length, (after, -1))
    return same_length[k][1] if k < len(same_length) else None
