"""The output gate: an output about to be written is read again, as its reader reads it,
and refused while the rules still find a secret in it."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from ..read.model import Session
from ..text.cut import FENCE, fence_step
from ..workers import forked_map
from .engine import Redactor
from .rules import RedactionError
from .session import unrewritable
from .views import fast_normal

__all__ = ["gate", "scan_file", "scan_text"]


def gate(
    text: str | Path,
    redactor: Redactor,
    where: object,
    *,
    workers: int = 1,
    session: Session | None = None,
    kind: str = "html",
) -> None:
    """The output gate: raise ``RedactionError`` naming the rules (never the secrets) when
    the rules still find something in an output about to be written (``text``, or a file
    written and not yet in place), read as its reader reads it (``kind``: ``"html"`` for a
    page or Markdown, ``"text"`` for a terminal, JSON or CSV), and the entries of
    ``session`` whose ids hold a secret (redaction never rewrites ids)."""
    left = (
        scan_file(redactor, text, workers, kind)
        if isinstance(text, Path)
        else scan_text(redactor, text, workers, kind)
    )
    if left:
        rules = ", ".join(f"{name} ({n})" for name, n in left)
        msg = f"{where}: not written: the redacted output still matches {rules}"
        places = unrewritable(session, redactor) if session is not None else []
        if places:
            shown = ", ".join(places[:5]) + (", …" if len(places) > 5 else "")
            msg += f"; a secret is in an id, which redaction never rewrites: entry at {shown}"
        raise RedactionError(msg)


def scan_text(
    redactor: Redactor, text: str, workers: int = 1, kind: str = "html"
) -> list[tuple[str, int]]:
    """``(rule, distinct matches)`` for whatever the rules still find in an output about
    to be written, read the way the redactor reads text (:meth:`Redactor.spans`: as written, as
    Markdown shows it, without terminal escapes, URL-decoded), and the way its reader
    reads it (``kind``): ``"html"``, a page: its text (tags removed, HTML-unescaped, a
    badge or a row's text a unit of its own), its tags' attribute values, its data
    island's strings, inline base64 images skipped; ``"markdown"``: as it renders
    (our own ``<details>`` tags and character references outside code, code as it is);
    ``"json"``: each string, and each key with its string value; ``"csv"``: each cell;
    ``"lines"``: each line (lines a program composed and redacted one by one: search
    results, a table); ``"text"`` (a terminal): as it is. Each unit is apart from the next
    by a blank line, which no rule reads across, so the gate never reads two units as one
    ``KEY: value`` that the redactor read apart. Nothing is counted or replaced; the secrets are
    never returned. A big output is scanned in slices cut at line ends, by ``workers``
    processes."""

    def line_end(pos: int) -> int:
        return text.find("\n", pos) + 1 or len(text)

    cuts = _slices(len(text), line_end)
    fences = _fences_at(text, cuts) if kind == "markdown" else [""] * len(cuts)
    found = forked_map(
        lambda i: _scan_piece(redactor, text[cuts[i] : cuts[i + 1]], kind, fences[i]),
        len(cuts) - 1,
        workers,
    )
    return _by_rule(found)


def scan_file(
    redactor: Redactor, path: Path, workers: int = 1, kind: str = "html"
) -> list[tuple[str, int]]:
    """:func:`scan_text` for a written page, read a slice at a time by each process:
    the page is never held whole (as text, a 125 MB page can take 500 MB)."""
    with path.open("rb") as f:

        def line_end(pos: int) -> int:
            f.seek(pos)
            f.readline()
            return f.tell()

        cuts = _slices(path.stat().st_size, line_end)

    def scan(i: int) -> set[tuple[str, str]]:
        with path.open("rb") as f:
            f.seek(cuts[i])
            data = f.read(cuts[i + 1] - cuts[i])
        return _scan_piece(redactor, data.decode("utf-8", "surrogateescape"), kind)

    return _by_rule(forked_map(scan, len(cuts) - 1, workers))


def _scan_piece(
    redactor: Redactor, piece: str, kind: str = "html", fence: str = ""
) -> set[tuple[str, str]]:
    """(rule, secret) of what the rules find in a piece of an output, read as its
    reader reads it (``spans`` reads each view the way the redactor does)."""
    if kind == "html":
        views = _html_views(piece)
    elif kind == "markdown":
        views = [_markdown_view(piece, fence)]
    elif kind == "json":
        views = _json_views(piece)
    elif kind == "csv":  # a spreadsheet shows each cell on its own
        views = ["\n\n".join(cell for row in csv.reader(io.StringIO(piece)) for cell in row)]
    elif kind == "lines":  # lines each made and redacted as one text: each a unit of its own
        views = [piece.replace("\n", "\n\n")]
    else:  # "text": for a terminal, a file or a script, read as it is
        views = [piece]
    secrets: set[tuple[str, str]] = set()
    for view in views:
        normal = fast_normal(view)
        secrets.update((name, normal[a:b]) for a, b, name in redactor.spans(normal))
    return secrets


def _unit(m: re.Match[str]) -> str:
    return f"\n\n{m.group()}" if m.group(1) is None else f"\n\n{m.group()}\n\n"


def _html_views(piece: str) -> list[str]:
    """A page (or Markdown, which becomes HTML where it is read) as a reader sees it: its
    text, and its tags' attribute values (a link's target, a tooltip), each on its line.
    Inline tags split code and are left out; a block starts and ends a line (so the page's
    own words, "Show all 12 lines", never read as the value of the line before); a badge
    and a row's text (``class="badge …"``, ``class="t"``) are units of their own, each on
    its line: a label is not read as the key of the row's text beside it."""
    piece = _DATA_URI.sub("data:", piece)  # one line each: slices never cut one
    islands: list[str] = []
    if _ISLAND_START in piece:  # data for the page's script, which shows each value apart

        def island(m: re.Match[str]) -> str:
            islands.extend(_json_views(m.group(1)))
            return "\n"

        piece = _ISLAND.sub(island, piece)
    piece = _UNIT.sub(_unit, piece)
    text = html.unescape(_TAG.sub("", _BLOCK_TAG.sub("\n\n", piece)))
    # the tags alone, then their values (a value's quotes are escaped: none ends early)
    tags = " ".join(_TAG.findall(piece))
    values = [a or b for a, b in _ATTRIBUTE.findall(tags) if a or b]
    return [text, html.unescape("\n\n".join(values)), *islands]


_FENCE = re.compile(f"^{FENCE.pattern}$", re.MULTILINE)
_OUR_MARKDOWN_TAG = re.compile(r"</?(?:details|summary)>")
"""The only HTML our Markdown holds: everything from a session is code, or escaped."""


def _fence_step(fence: str, m: re.Match[str]) -> str:
    return fence_step(fence, m.group(1), m.group(2))


def _fences_at(text: str, cuts: list[int]) -> list[str]:
    """The code fence open at each cut of a Markdown text ("" for none)."""
    out: list[str] = []
    fence = ""
    matches = _FENCE.finditer(text)
    m = next(matches, None)
    for cut in cuts:
        while m is not None and m.start() < cut:
            fence = _fence_step(fence, m)
            m = next(matches, None)
        out.append(fence)
    return out


def _markdown_view(piece: str, fence: str = "") -> str:
    """Our Markdown as it renders: code (in fences) as it is; outside code our own
    ``<details>``/``<summary>`` tags end a line and character references show as their
    characters. (``fence``: the fence open where the piece starts.)"""
    out: list[str] = []
    pos = 0
    for m in _FENCE.finditer(piece):
        before = piece[pos : m.start()]
        out.append(before if fence else _rendered(before))
        out.append(m.group())
        fence = _fence_step(fence, m)
        pos = m.end()
    rest = piece[pos:]
    out.append(rest if fence else _rendered(rest))
    return "".join(out)


_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
"""A backslash before ASCII punctuation, which CommonMark shows as the character alone."""


def _rendered(text: str) -> str:
    """Markdown outside code as a reader sees it: our tags end a line, ``\\<`` is ``<``,
    character references are their characters."""
    return html.unescape(_MARKDOWN_ESCAPE.sub(r"\1", _OUR_MARKDOWN_TAG.sub("\n", text)))


def _json_views(text: str) -> list[str]:
    """JSON as a program reads it: each string (key or value) on its line, and each key with
    its string value as ``"key": "value"`` (the pair the redactor reads). What is not one
    JSON value (JSON lines, a script) is read as it is."""
    try:
        data = json.loads(text)
    except ValueError:
        return [text]
    lines: list[str] = []
    stack = [data]
    while stack:  # iterative: JSON nests deeper than Python recurses
        value = stack.pop()
        if isinstance(value, str):
            lines.append(value)
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                lines.append(k)
                if isinstance(v, str):
                    lines.append(
                        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
                    )
                stack.append(v)
    return ["\n\n".join(lines)]


def _slices(size: int, line_end: Callable[[int], int]) -> list[int]:
    """Offsets cutting ``size`` characters (or bytes) into slices of about ``_SCAN_SLICE``,
    each ending at a line end; ``line_end(pos)`` is the offset just past the line at pos."""
    cuts = [0]
    while cuts[-1] < size:
        pos = cuts[-1] + _SCAN_SLICE
        cuts.append(size if pos >= size else min(line_end(pos), size))
    return cuts


def _by_rule(found: Iterable[set[tuple[str, str]]]) -> list[tuple[str, int]]:
    """``(rule, distinct secrets)`` from the (rule, secret) pairs each slice found."""
    return sorted(Counter(name for name, _ in set().union(*found)).items())


_SCAN_SLICE = 2_000_000
"""Characters (bytes, in a written page) the gate scans at a time, up to the next line end."""
_DATA_URI = re.compile(r"data:image/[A-Za-z0-9.+-]{1,40};base64,[A-Za-z0-9+/=]+")
_TAG = re.compile(r"<[^<>]{0,4096}>")
_ISLAND_START = '<script type="application/json"'
_ISLAND = re.compile(r'<script type="application/json"[^<>]*>([^<]*)</script>')
"""A page's data island (its ``<`` are escaped: no tag inside)."""
_UNIT = re.compile(
    r'<span class="badge[^"<>]*"[^<>]*>((?:[^<]|<span class="ctl"[^<>]*>[^<]*</span>){0,4096})'
    r'</span>|<span class="t">'
)
"""A badge (its text, with the marks of hidden characters in it) or the start of a row's
text: units the page shows apart from what is next to them."""
_BLOCK_TAG = re.compile(
    r"</?(?:p|div|pre|li|ul|ol|dl|dt|dd|tr|td|th|table|h[1-6]|summary|details|button|section"
    r"|header|footer|nav|aside|main|blockquote|figure|figcaption|title|script|style|noscript"
    r"|template|textarea|label|form|dialog|svg|caption|thead|tbody)(?:\s[^<>]{0,4096})?>"
    r"|<[bh]r ?/?>"
)
"""The start or end of a block (the page's markup is ours, lower case, and every block it
shows is closed; an SVG and its ``<title>`` are blocks of their own), and line and rule
breaks."""
_ATTRIBUTE = re.compile(r"""\s[\w:.-]{1,64}=(?:"([^"]*)"|'([^']*)')""")
"""A quoted attribute value in one of our tags (the page quotes every one)."""
