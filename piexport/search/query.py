"""The query language, and the matcher ``piexport search`` runs over records.

``static/js/search.js`` parses and matches the same way; tests run both on one archive.

- words: every word must match (case- and accent-insensitive); the last word also matches
  as a prefix unless the query ends in a space. When no entry has every word, entries with
  some of them are shown instead, most words first.
- ``"exact phrase"``: the words in this order, with spaces or punctuation between them
  where the query has some (any amount, any kind: ``coupon rounding`` finds
  ``coupon_rounding``, not ``couponrounding``). A word made of several parts
  (``coupon_rounding``, ``v1.2``, ``优惠券``) is a phrase too. It is checked by a plain
  substring search of the text with its separators made single spaces: linear in the text,
  whatever the query.
- ``-word`` / ``-"a phrase"``: leave out entries that have it.
- filters: ``project:`` ``model:`` ``label:`` (part of the value), ``role:`` ``tool:`` (the
  name), ``after:DATE`` (on or after), ``before:DATE`` (before), ``is:error``. Values may be
  quoted. The same filter twice means either; different filters must all hold.

A query is input from whoever sent the link (``search.html?q=``): past ``MAX_QUERY_CHARS``
characters it is cut (at a space), past ``MAX_ITEMS`` words, phrases and filters the rest
is left out, and so is a word whose terms would take the query past ``MAX_TERMS``; the
query says so (``Query.errors``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

from ..errors import InputError
from ..text.fold import fold, fold_map
from ..text.textsafe import HIDDEN, SELECTORS, plain_controls, selector_is_shown
from .tokens import MAX_WORD, folded_terms, run_terms, runs

FILTERS = ("project", "model", "role", "tool", "label", "after", "before", "is")
MAX_QUERY_CHARS = 1000
"""Characters (code points) of a query read at most; search.js reads as many."""
MAX_ITEMS = 32
"""Words, phrases and filters of a query used at most; search.js uses as many."""
MAX_TERMS = 64
"""Index terms a query's words look up at most (a Chinese word of n characters is n-1 terms):
each may be a shard file the search page loads."""
SPACE = " \t\n\r\f\v"
"""What a query is cut at, and where a snippet may start or end: ASCII white space
(search.js uses the same)."""

_ITEM = re.compile(r'(-?)(?:(\w+):)?(?:"([^"]*)"?|(\S+))')


@dataclass(frozen=True, slots=True)
class Word:
    """One query item that must (or, with ``exclude``, must not) match."""

    runs: tuple[tuple[str, bool], ...]
    """(folded run, spaceless) in order."""
    prefix: bool = False
    exclude: bool = False
    text: str = ""
    """The word as :func:`spaced` text shows it (the runs, a space where the query had
    anything between two of them); what a phrase is found as. Empty: the runs, spaced."""

    @property
    def pattern(self) -> str:
        return self.text or " ".join(r for r, _ in self.runs)

    @property
    def terms(self) -> list[str]:
        out: list[str] = []
        for run, spaceless in self.runs:
            out.extend(run_terms(run, spaceless))
        return out

    @property
    def is_phrase(self) -> bool:
        """Needs the text to confirm it (several runs, or a spaceless run of 3+)."""
        return len(self.runs) > 1 or any(s and len(r) > 2 for r, s in self.runs)


@dataclass(slots=True)
class Query:
    words: list[Word] = field(default_factory=list)
    filters: dict[str, list[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def positive(self) -> list[Word]:
        return [w for w in self.words if not w.exclude]

    @property
    def empty(self) -> bool:
        return not self.positive and not self.filters


def day_ms(text: str) -> int | None:
    """``YYYY-MM-DD`` (or ``YYYY-MM``, ``YYYY``) as the start of that day in UTC."""
    m = re.fullmatch(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?", text)
    if not m:
        return None
    try:
        d = datetime(int(m[1]), int(m[2] or 1), int(m[3] or 1), tzinfo=UTC)
    except ValueError:
        return None
    return int(d.timestamp() * 1000)


def choose(q: Query, project: str | None, since: str | None, until: str | None) -> None:
    """Add ``--project``, ``--since`` and ``--until`` to ``q`` as the filters they are:
    ``project:`` (a glob's part between its leading and trailing ``*``: the filter matches
    part of the path), ``after:`` the day of ``since``, ``before:`` the day after
    ``until``. ``InputError`` for a glob with a wildcard inside it."""
    from datetime import date, timedelta

    if project:
        part = project.strip("*")
        if any(c in part for c in "*?["):
            msg = f"search --project takes part of a path (wildcards only at its ends): {project!r}"
            raise InputError(msg)
        if part:
            q.filters.setdefault("project", []).append(fold(part))
    if since:
        q.filters.setdefault("after", []).append(since[:10])
    if until:
        after = date.fromisoformat(until[:10]) + timedelta(days=1)
        q.filters.setdefault("before", []).append(after.isoformat())


def _cut(text: str, q: Query) -> str:
    """The query as far as it is read: ``MAX_QUERY_CHARS`` code points, cut at the last
    space before that (mid-word only when there is none)."""
    if len(text) <= MAX_QUERY_CHARS:
        return text
    kept = text[:MAX_QUERY_CHARS]
    if text[MAX_QUERY_CHARS] not in SPACE:
        space = max(kept.rfind(c) for c in SPACE)
        if space > 0:
            kept = kept[:space]
    q.errors.append(
        f"the query is cut at {MAX_QUERY_CHARS} characters: "
        f"{len(text) - len(kept):,} characters after them are left out"
    )
    return kept


def _shown(value: str) -> str:
    return value if len(value) <= 80 else value[:79] + "…"


def parse(text: str) -> Query:
    q = Query()
    text = _cut(text, q)
    last_can = -1
    items = 0
    looked_up: set[str] = set()
    for m in _ITEM.finditer(text):
        if items >= MAX_ITEMS:
            left = sum(1 for _ in _ITEM.finditer(text, m.start()))
            q.errors.append(
                f"only the first {MAX_ITEMS} words, phrases and filters are searched: "
                f"{left:,} more left out"
            )
            break
        items += 1
        minus, key, quoted, bare = m.groups()
        value = quoted if quoted is not None else bare
        if key is not None and key.lower() in FILTERS and not minus:
            key = key.lower()
            if key in ("after", "before") and day_ms(value) is None:
                q.errors.append(f"{key}: wants a date like 2025-03-04, not {value!r}")
                continue
            if key == "is" and fold(value) != "error":
                q.errors.append(f"is: knows only is:error, not {value!r}")
                continue
            q.filters.setdefault(key, []).append(fold(value))
            continue
        if key is not None:  # not a filter: the colon is part of the words
            value = m.group(0)[len(minus) :]
            if value.startswith('"'):
                value = value.strip('"')
        folded = tuple(runs(fold(value)))
        if not folded:
            continue
        if any(not spaceless and len(r) > MAX_WORD for r, spaceless in folded):
            q.errors.append(
                f"{_shown(value)!r} is left out: words over {MAX_WORD} characters (hashes, "
                "base64) are not indexed"
            )
            last_can = -1  # the word typed last is this one, not a prefix before it
            continue
        can = quoted is None and not minus and len(folded) == 1 and not folded[0][1]
        pattern = spaced(fold(value)).strip(" ")
        w = Word(folded, prefix=can and len(folded[0][0]) >= 2, exclude=bool(minus), text=pattern)
        if len(looked_up.union(w.terms)) > MAX_TERMS:  # each term may be a shard to load
            q.errors.append(
                f"{_shown(value)!r} is left out: a query looks up at most {MAX_TERMS} "
                "terms in the index"
            )
            last_can = -1
            continue
        looked_up.update(w.terms)
        q.words.append(w)
        last_can = len(q.words) - 1 if can else -1
    # only the last word is a prefix, and only while it is still being typed
    for i, w in enumerate(q.words):
        if w.prefix and (i != last_can or text[-1:].isspace()):
            q.words[i] = Word(w.runs, prefix=False, exclude=w.exclude, text=w.text)
    return q


_SEPARATORS = re.compile(r"[\W_]+")
r"""What separates words: anything but letters and digits (search.js: ``[^\p{L}\p{N}]``)."""


@lru_cache(maxsize=8)
def spaced(folded: str) -> str:
    """Folded text with each run of characters that are not letters or digits made one
    space: where phrases are found, by a substring search (a record is looked at for its
    words, its phrase and its adjacency in turn: the last few are kept)."""
    return _SEPARATORS.sub(" ", folded)


def has_phrase(text: str, word: Word) -> bool:
    """Whether folded ``text`` holds the word as a phrase (see the module's docstring)."""
    return word.pattern in spaced(text)


def spaced_spans(folded: str, pattern: str, cap: int) -> list[tuple[int, int]]:
    """Where ``pattern`` is found in ``spaced(folded)`` (one after another, at most
    ``cap``), as spans of ``folded``."""
    text = spaced(folded)
    hits: list[int] = []
    at = text.find(pattern) if pattern else -1
    while at >= 0 and len(hits) < cap:
        hits.append(at)
        at = text.find(pattern, at + len(pattern))
    if not hits:
        return []
    # spaced text is folded text whose separator runs are one character: map back, looking
    # at the separators only as far as the last hit
    last = hits[-1] + len(pattern)
    starts: list[int] = []  # where each separator run starts, in spaced text
    folded_at: list[int] = []  # and in folded text
    ends: list[int] = []  # where it ends in folded text
    shift = 0
    for m in _SEPARATORS.finditer(folded):
        if m.start() - shift > last:
            break
        starts.append(m.start() - shift)
        folded_at.append(m.start())
        ends.append(m.end())
        shift += m.end() - m.start() - 1

    def to_folded(i: int) -> int:
        k = bisect_right(starts, i) - 1
        if k < 0:
            return i
        if starts[k] == i:
            return folded_at[k]
        return ends[k] + (i - starts[k] - 1)

    return [(to_folded(a), to_folded(a + len(pattern) - 1) + 1) for a in hits]


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the matcher needs about one record."""

    terms: frozenset[str]
    folded: str
    role: str
    tools: tuple[str, ...]
    model: str
    label: str
    time: int | None
    error: bool
    project: str


def has_word(c: Candidate, w: Word) -> bool:
    if w.prefix:
        stem = w.runs[0][0]
        return any(t.startswith(stem) for t in c.terms)
    if not all(t in c.terms for t in w.terms):
        return False
    return not w.is_phrase or has_phrase(c.folded, w)


def passes_filters(c: Candidate, filters: dict[str, list[str]]) -> bool:
    for key, values in filters.items():
        if key == "project" and not any(v in c.project for v in values):
            return False
        if key == "model" and not any(v in c.model for v in values):
            return False
        if key == "label" and not any(v in c.label for v in values):
            return False
        if key == "role" and c.role not in values:
            return False
        if key == "tool" and not any(v in c.tools for v in values):
            return False
        if key == "is" and not c.error:
            return False
        if key == "after":
            start = max(day_ms(v) or 0 for v in values)
            if not c.time or c.time < start:
                return False
        if key == "before":
            end = min(day_ms(v) or 0 for v in values)
            if not c.time or c.time >= end:
                return False
    return True


def score(c: Candidate, q: Query) -> int | None:
    """Words matched (None: leave the record out). Excluded words and filters are hard."""
    if not passes_filters(c, q.filters):
        return None
    if any(has_word(c, w) for w in q.words if w.exclude):
        return None
    return sum(1 for w in q.positive if has_word(c, w))


def adjacent(c: Candidate, q: Query) -> bool:
    """All the query's words, in order, as one phrase: ranks first within a session."""
    pos = q.positive
    if len(pos) < 2:
        return False
    return has_phrase(c.folded, joined(pos))


def joined(words: Sequence[Word]) -> Word:
    """Several words as one phrase: each after the one before, with a separator."""
    return Word(tuple(r for w in words for r in w.runs), text=" ".join(w.pattern for w in words))


@dataclass(slots=True)
class Hit:
    session: int
    record: int
    words: int
    adjacent: bool
    time: int


def search(
    candidates: Sequence[tuple[int, int, Candidate]], q: Query
) -> tuple[list[list[Hit]], bool]:
    """Hits grouped per session, best first, and whether every word matched (else: some).

    ``candidates`` are (session number, record number, candidate). Groups: most words
    first, then the newest hit; hits in a group: phrase first, most words, newest."""
    need = len(q.positive)
    hits: list[Hit] = []
    for s, r, c in candidates:
        n = score(c, q)
        if n is None or (need and n == 0):
            continue
        hits.append(Hit(s, r, n, adjacent(c, q), c.time or 0))
    full = [h for h in hits if h.words == need]
    complete = bool(full) or not need
    return group(full if complete else hits), complete


def group(hits: Iterable[Hit]) -> list[list[Hit]]:
    groups: dict[int, list[Hit]] = {}
    for h in hits:
        groups.setdefault(h.session, []).append(h)
    out = list(groups.values())
    for g in out:
        g.sort(key=lambda h: (-int(h.adjacent), -h.words, -h.time, h.record))
    out.sort(key=lambda g: (-max(h.words for h in g), -max(h.time for h in g), g[0].session))
    return out


SNIPPET_WIDTH = 200
"""Characters of text a result's snippet shows around its first match."""
SPAN_CAP = SNIPPET_WIDTH + 1
"""Matches of one word looked at per text: a snippet's window holds no more."""


def _spans(text: str, q: Query) -> list[tuple[int, int]]:
    folded, where = fold_map(text)
    spans: list[tuple[int, int]] = []
    for w in q.positive:
        pattern = w.runs[0][0] if w.prefix else w.pattern
        for a, b in spaced_spans(folded, pattern, SPAN_CAP):
            spans.append((where[a], where[b - 1] + 1))
    spans.sort()
    return spans


def window(text: str, first: int, width: int) -> tuple[int, int]:
    """Where a snippet of about ``width`` characters around ``first`` starts and ends.

    It starts at the start of the line holding ``first``, or, when that line starts more
    than a third of the width before it, at the first word that starts after that point
    (mid-word only when there is none); it ends before the last space in its second half
    (mid-word only when there is none)."""
    start = text.rfind("\n", 0, first) + 1
    if first - start > width // 3:
        at = first - width // 3
        start = next((i for i in range(at, first + 1) if text[i - 1] in SPACE), at)
    end = min(len(text), start + width)
    if end < len(text) and text[end] not in SPACE:
        cut = max(text.rfind(c, start + width // 2, end) for c in SPACE)
        if cut > start:
            end = cut
    return start, end


def _hidden(text: str, i: int) -> bool:
    """Whether ``text[i]`` is shown as a mark (as pages show it: textsafe's rules)."""
    ch = text[i]
    if ch not in HIDDEN or ch == "\r":
        return False
    return ch not in SELECTORS or not selector_is_shown(text, i)


def snippet(text: str, q: Query, width: int = SNIPPET_WIDTH) -> list[tuple[str, str]]:
    """A window of ``text`` around the first match as (kind, text) pieces: ``""`` plain,
    ``"match"`` a matched word, ``"hidden"`` the mark of an invisible, bidi or control
    character (``⟪U+202E⟫``, ``\\x1b``); "… " before and " …" after where text was cut."""
    spans = _spans(text, q)
    start, end = window(text, spans[0][0] if spans else 0, width)
    out: list[tuple[str, str]] = [("", "… ")] if start > 0 else []
    inside = iter([(a, b) for a, b in spans if a < end and b > start])
    span = next(inside, None)
    for i in range(start, end):
        while span is not None and span[1] <= i:
            span = next(inside, None)
        if _hidden(text, i):
            kind, ch = "hidden", plain_controls(text[i])
        else:
            kind, ch = ("match" if span is not None and span[0] <= i else ""), text[i]
        if out and out[-1][0] == kind and kind != "hidden":
            out[-1] = (kind, out[-1][1] + ch)
        else:
            out.append((kind, ch))
    if end < len(text):
        out.append(("", " …"))
    return out


def snippet_line(
    text: str,
    q: Query,
    width: int,
    mark: Callable[[str], str],
    plain: Callable[[str], str] = lambda s: s,
) -> str:
    """The snippet on one line (white space collapsed): each match through ``mark``, the
    rest, marks of hidden characters included, through ``plain``."""
    out: list[str] = []
    space = True  # at the start: drop leading space
    for kind, part in snippet(text, q, width):
        if kind == "hidden":
            out.append(plain(part))
            space = False
            continue
        flat = " ".join(part.split())
        if part[:1].isspace() and not space and flat:
            flat = " " + flat
        trailing = part[-1:].isspace()
        if flat:
            out.append(mark(flat) if kind == "match" else plain(flat))
            space = False
        if trailing and not space:
            out.append(plain(" "))
            space = True
    return "".join(out).rstrip(" ")


def candidate(
    text: str,
    role: str,
    tool: str,
    model: str,
    label: str,
    time: int | None,
    error: bool,
    project: str,
) -> Candidate:
    if time:  # the index keeps minutes: rank and filter the same on either side
        time = time // 60_000 * 60_000
    folded = fold(text)
    return Candidate(
        frozenset(folded_terms(folded)),
        folded,
        role,
        tuple(fold(tool).split()),
        fold(model),
        fold(label),
        time,
        error,
        fold(project),
    )
