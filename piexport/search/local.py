"""``piexport search``: the query language over a sessions folder, or over a built site."""

from __future__ import annotations

import heapq
import zlib
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, PiexportError
from ..read.loader import load_session
from ..read.model import JSON
from ..text.cut import Derive
from ..text.textsafe import terminal_safe
from ..version import INDEX_VERSION
from .index import DamagedIndex, Postings, entries_problem, meta_problem, read_script, unpack_docs
from .query import (
    Candidate,
    Hit,
    Query,
    Word,
    adjacent,
    candidate,
    passes_filters,
    score,
    search,
    snippet_line,
)
from .records import ROLES, session_records

if TYPE_CHECKING:
    from ..redact.engine import Redactor


@dataclass(frozen=True, slots=True)
class Result:
    path: str
    """The session file (folder search) or the page (site search)."""
    line: int
    entry_id: str
    dom: str
    role: str
    tool: str
    time: int | None
    title: str
    text: str
    record: int = 0
    """The record's number in its session (which part of a site's texts holds it)."""
    words: int = 0
    """How many of the query's words it has."""
    adjacent: bool = False
    """Whether the query's words form a phrase in it (it ranks first in its session)."""

    def as_json(self, q: Query) -> JSON:
        return {
            "path": self.path,
            "line": self.line,
            "entryId": self.entry_id,
            "anchor": self.dom,
            "role": self.role,
            "tool": self.tool,
            "time": self.time,
            "session": self.title,
            "snippet": snippet_line(self.text, q, 200, lambda s: s),
        }


def _folder(
    root: Path, fields: frozenset[str] | None, problems: list[str], redactor: Redactor | None = None
) -> Iterator[tuple[str, str, list[JSON]]]:
    """Each session's rows; with a ``redact.Redactor``, of the session as redacted (what a
    redacted site's index holds)."""
    from ..read.discover import discover

    for path in discover(root):
        try:
            session = load_session(path)
        except PiexportError as exc:  # named, and the rest is still searched
            problems.append(str(exc))
            continue
        except Exception as exc:
            problems.append(f"{path}: could not be read: {exc!r}")
            continue
        if redactor is not None:
            from ..redact.session import redact_session

            session = redact_session(session, redactor)
        lines = {e.id: e.line for e in session.entries}
        rows = [
            {
                "id": r.entry_id,
                "dom": r.dom,
                "line": lines.get(r.entry_id, 0),
                "role": r.role,
                "tool": r.tool,
                "model": r.model,
                "label": r.label,
                "time": r.time,
                "error": r.error,
                "text": r.text,
                "project": session.cwd or "",
            }
            for r in session_records(session, fields)
        ]
        yield str(path), session.title or path.name, rows


_UNREADABLE = (
    OSError,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    ArithmeticError,
    RecursionError,
    zlib.error,
)
"""What a site index that this version cannot read raises while it is read or searched (an
older piexport's, a copy with files missing, a damaged or hand-edited file)."""


def _unreadable(site: Path, exc: BaseException) -> InputError:
    if isinstance(exc, DamagedIndex):  # it names the file and the damage
        return InputError(f"the site's search index cannot be read: {exc}; build the site again")
    where = getattr(exc, "filename", None) or site / "search"
    return InputError(
        f"{where}: the site's search index cannot be read ({exc}); build the site again"
    )


def _site(site: Path, q: Query | None = None) -> Iterator[tuple[str, str, list[JSON]]]:
    """Each session's rows from a built site's index (with ``q``: texts only of records
    holding its words). An index this version cannot read is named, never a crash."""
    try:
        yield from _site_rows(site, q)
    except _UNREADABLE as exc:
        raise _unreadable(site, exc) from exc


def _site_index(site: Path) -> tuple[JSON, JSON]:
    """meta and entries of a site's index, or InputError naming an index of another version."""
    _, (meta,) = read_script(site / "search" / "meta.js")
    if not isinstance(meta, dict) or meta.get("v") != INDEX_VERSION:
        version = meta.get("v") if isinstance(meta, dict) else None
        msg = (
            f"{site}: its search index is version {version} and this piexport reads version "
            f"{INDEX_VERSION}: build the site again with piexport site"
        )
        raise InputError(msg)
    why = meta_problem(meta)
    if why is not None:
        raise DamagedIndex(f"{site / 'search' / 'meta.js'}: {why}")
    _, (entries,) = read_script(site / "search" / "entries.js")
    why = entries_problem(entries, meta)
    if why is not None:
        raise DamagedIndex(f"{site / 'search' / 'entries.js'}: {why}")
    return meta, entries


def _word_records(postings: Postings, w: Word) -> set[int]:
    """The records holding every term of a word (a prefix: some term starting with it)."""
    if w.prefix:
        return set(postings.prefix(w.runs[0][0]))
    sets = sorted((postings.term(t) for t in w.terms), key=len)
    if not sets:
        return set()
    held = set(sets[0])
    for other in sets[1:]:
        held.intersection_update(other)
    return held


def _holding_words(site: Path, meta: JSON, q: Query) -> set[int] | None:
    """The records holding at least one of the query's words, found in the term shards as
    search.html finds them (None: a query of filters only, every record). Only these
    records' texts are read; the others cannot be hits."""
    if not q.positive:
        return None
    postings = Postings(site, meta)
    found: set[int] = set()
    for w in q.positive:
        found |= _word_records(postings, w)
    return found


def _texts(site: Path, s: JSON, offsets: Iterable[int]) -> dict[int, list[Any]]:
    """(entry id, DOM id, line, text) of a session's records at ``offsets``, reading only
    the parts of its texts that hold them."""
    starts = s.get("c") or [0]
    wanted = set(offsets)
    found: dict[int, list[Any]] = {}
    for part in sorted({bisect_right(starts, off) - 1 for off in wanted}):
        path = site / "search" / "d" / f"{s['k']}-{part}.js"
        _, (_, packed) = read_script(path)
        try:
            docs = unpack_docs(packed)
        except (ValueError, zlib.error) as exc:
            raise DamagedIndex(f"{path}: {exc}") from exc
        end = starts[part + 1] if part + 1 < len(starts) else None
        if end is not None and len(docs) != end - starts[part]:
            raise DamagedIndex(f"{path}: it holds {len(docs)} records, not {end - starts[part]}")
        for i, doc in enumerate(docs, start=starts[part]):
            if i in wanted:
                found[i] = doc
    missing = wanted - set(found)
    if missing:
        msg = f"{site / 'search' / 'd'}: the texts of record {min(missing)} of {s['h']} are missing"
        raise DamagedIndex(msg)
    return found


def _site_rows(site: Path, q: Query | None) -> Iterator[tuple[str, str, list[JSON]]]:
    meta, entries = _site_index(site)
    wanted = _holding_words(site, meta, q) if q is not None else None
    minute = 0
    for i, s in enumerate(meta["sessions"]):
        end = meta["sessions"][i + 1]["n"] if i + 1 < len(meta["sessions"]) else meta["records"]
        docs = _texts(
            site,
            s,
            (r - s["n"] for r in range(s["n"], end) if wanted is None or r in wanted),
        )
        rows = []
        for r in range(s["n"], end):
            minute += entries["w"][r]
            entry_id, dom, line, text = docs.get(r - s["n"]) or ("", "", 0, "")
            rows.append(
                {
                    "id": entry_id,
                    "dom": dom,
                    "line": line,
                    "text": text,
                    **_fields(meta, entries, r, minute, s),
                }
            )
        yield str(site / s["h"]), s["t"], rows


def _fields(meta: JSON, entries: JSON, r: int, minute: int, session: JSON) -> JSON:
    """What the index says of record ``r`` besides its text (``ROW_KEYS``); ``minute``: its
    time, as ``entries.js`` adds it up."""
    return {
        "role": ROLES[entries["k"][r] >> 1],
        "tool": meta["tools"][entries["t"][r]],
        "model": meta["models"][entries["m"][r]],
        "label": meta["labels"][entries["l"][r]],
        "time": minute * 60_000 if minute else None,
        "error": bool(entries["k"][r] & 1),
        "project": session["p"] or "",
    }


def _site_first(site: Path, q: Query, limit: int) -> tuple[list[list[Result]], bool]:
    """The groups holding the first ``limit`` hits, as ``search`` ranks them, reading only
    the texts it must: which records may be hits, how many words each may have and when,
    come from the term shards and entries; a session's texts are read when its group is
    reached (for snippets and adjacency, and to confirm phrases), so a group's rank before
    that is an upper bound, and it is ranked again once read (as in a best-first search)."""
    hits = _SiteHits(site, q)
    complete = hits.complete()
    return hits.first_groups(limit, complete), complete


@dataclass(frozen=True, slots=True)
class _Read:
    """A session's hits once its texts are read, and the texts (by record)."""

    hits: list[Hit]
    docs: dict[int, list[Any]]


class _SiteHits:
    """The records of a built site that may be hits of a query, from its index alone (term
    shards and entries), each with the most words it may have (``bound``); a session's
    texts are read once, when its hits must be known for sure (``confirmed``)."""

    def __init__(self, site: Path, q: Query) -> None:
        self.site, self.q = site, q
        self.meta, self.entries = _site_index(site)
        postings = Postings(site, self.meta)
        self.sets = [_word_records(postings, w) for w in q.positive]
        self.out: set[int] = set()  # left out for sure
        self.unsure: set[int] = set()  # left out, or with fewer words, if a phrase is not there
        for w in q.words:
            if w.exclude:
                (self.unsure if w.is_phrase else self.out).update(_word_records(postings, w))
        for held, w in zip(self.sets, q.positive, strict=True):
            if w.is_phrase:
                self.unsure |= held
        self.need = len(q.positive)
        self.rows: dict[int, JSON] = {}
        self.bound: dict[int, list[Hit]] = {}  # per session: hits with the most words possible
        self.read: dict[int, _Read] = {}
        self._bound()

    def _bound(self) -> None:
        """Every record that may be a hit: in the term sets, not left out, past the filters."""
        meta, entries, sets = self.meta, self.entries, self.sets
        firsts = [s["n"] for s in meta["sessions"]]
        minutes, minute = [], 0
        for gap in entries["w"]:
            minute += gap
            minutes.append(minute)
        for r in sorted(set().union(*sets)) if sets else range(meta["records"]):
            if r in self.out:
                continue
            s = bisect_right(firsts, r) - 1
            row = _fields(meta, entries, r, minutes[r], meta["sessions"][s])
            c = candidate("", *(row[k] for k in ROW_KEYS))
            if not passes_filters(c, self.q.filters):
                continue
            self.rows[r] = row
            words = sum(r in held for held in sets)
            self.bound.setdefault(s, []).append(Hit(s, r - firsts[s], words, False, c.time or 0))

    def confirmed(self, s: int) -> list[Hit]:
        """A session's hits with their true words and adjacency, its texts read once."""
        if s not in self.read:
            info = self.meta["sessions"][s]
            docs = _texts(self.site, info, (h.record for h in self.bound[s]))
            hits = []
            for h in self.bound[s]:
                row = self.rows[info["n"] + h.record]
                c = candidate(docs[h.record][3], *(row[k] for k in ROW_KEYS))
                words = score(c, self.q)
                if words is not None and (words or not self.need):
                    hits.append(Hit(s, h.record, words, adjacent(c, self.q), h.time))
            self.read[s] = _Read(hits, docs)
        return self.read[s].hits

    def _is_sure(self, s: int, h: Hit) -> bool:
        return self.meta["sessions"][s]["n"] + h.record not in self.unsure

    def complete(self) -> bool:
        """Whether some hit has every word: sure without text, else confirmed in rank order."""
        need, bound = self.need, self.bound
        if not need or any(
            h.words == need and self._is_sure(s, h) for s, hs in bound.items() for h in hs
        ):
            return True
        maybe = [s for s, hs in bound.items() if any(h.words == need for h in hs)]
        maybe.sort(key=lambda s: _rank([h for h in bound[s] if h.words == need], s))
        return any(any(h.words == need for h in self.confirmed(s)) for s in maybe)

    def first_groups(self, limit: int, complete: bool) -> list[list[Result]]:
        """Groups in rank order until they hold ``limit`` hits; with ``complete``, only the
        hits that have every word."""

        def kept(hits: list[Hit]) -> list[Hit]:
            return [h for h in hits if h.words == self.need] if complete else hits

        queue = []
        for s, hs in self.bound.items():
            hs = kept(self.read[s].hits if s in self.read else hs)
            if hs:
                queue.append((_rank(hs, s), s))
        heapq.heapify(queue)
        results: list[list[Result]] = []
        shown = 0
        while queue and shown < limit:
            rank, s = heapq.heappop(queue)
            hits = kept(self.confirmed(s))
            if not hits:
                continue
            if _rank(hits, s) != rank:  # its texts rank it lower than its bound: queue it again
                heapq.heappush(queue, (_rank(hits, s), s))
                continue
            hits.sort(key=lambda h: (-int(h.adjacent), -h.words, -h.time, h.record))
            results.append([self._result(s, h) for h in hits])
            shown += len(hits)
        return results

    def _result(self, s: int, h: Hit) -> Result:
        info, docs = self.meta["sessions"][s], self.read[s].docs
        entry_id, dom, line, text = docs[h.record]
        row = self.rows[info["n"] + h.record]
        return Result(
            str(self.site / info["h"]),
            line,
            entry_id,
            dom,
            row["role"],
            row["tool"],
            row["time"],
            info["t"],
            text,
            h.record,
            h.words,
            h.adjacent,
        )


def _rank(hits: list[Hit], session: int) -> tuple[int, int, int]:
    """``group``'s order of sessions: most words, newest hit, then the session's place."""
    return (-max(h.words for h in hits), -max(h.time for h in hits), session)


ROW_KEYS = ("role", "tool", "model", "label", "time", "error", "project")
"""A row's fields in the order ``candidate`` takes them after the text."""


def run_search(
    q: Query,
    root: Path | None = None,
    site: Path | None = None,
    fields: frozenset[str] | None = None,
    problems: list[str] | None = None,
    limit: int = 0,
    redactor: Redactor | None = None,
) -> tuple[list[list[Result]], bool]:
    """Results grouped per session, best first, and whether every word matched. Files that
    cannot be read are named in ``problems`` and left out. With ``limit``, the groups may
    stop once they hold that many hits (a site's texts are then read only for them)."""
    problems = problems if problems is not None else []
    if site is None:
        return _ranked(list(_folder(root or Path("."), fields, problems, redactor)), q)
    try:
        if limit:
            return _site_first(site, q, limit)
        return _ranked(list(_site_rows(site, q)), q)
    except _UNREADABLE as exc:
        raise _unreadable(site, exc) from exc


def _ranked(
    sessions: list[tuple[str, str, list[JSON]]], q: Query
) -> tuple[list[list[Result]], bool]:
    """Every session's rows matched and ranked (``search``), as Results."""
    cands: list[tuple[int, int, Candidate]] = []
    for s, (_, _, rows) in enumerate(sessions):
        for r, row in enumerate(rows):
            cands.append(
                (
                    s,
                    r,
                    candidate(
                        row["text"],
                        row["role"],
                        row["tool"],
                        row["model"],
                        row["label"],
                        row["time"],
                        row["error"],
                        row["project"],
                    ),
                )
            )
    groups, complete = search(cands, q)
    out = []
    for g in groups:
        path, title, rows = sessions[g[0].session]
        out.append(
            [
                Result(
                    path,
                    rows[h.record]["line"],
                    rows[h.record]["id"],
                    rows[h.record]["dom"],
                    rows[h.record]["role"],
                    rows[h.record]["tool"],
                    rows[h.record]["time"],
                    title,
                    rows[h.record]["text"],
                    h.record,
                    h.words,
                    h.adjacent,
                )
                for h in g
            ]
        )
    return out, complete


@dataclass(slots=True)
class Found:
    """What ``piexport search`` found: the hits, best first, at most the limit asked."""

    hits: list[Result]
    complete: bool
    """Every hit has every word of the query (else: hits with some of them)."""
    problems: list[str] = field(default_factory=list)
    """Session files that could not be read (left out)."""

    def as_json(self, q: Query, derive: Derive | None = None) -> JSON:
        """The stable JSON; with ``derive`` (when redacting) every string in a match made
        with it (a snippet is a cut, a path a session's file name)."""
        matches = [h.as_json(q) for h in self.hits]
        if derive is not None:
            matches = [{k: _derived(v, derive) for k, v in m.items()} for m in matches]
        return {"complete": self.complete, "matches": matches}

    def lines(self, q: Query, mark: Callable[[str], str], derive: Derive) -> list[str]:
        """``path:line: id: snippet`` per hit, safe for a terminal, each match in the
        snippet through ``mark``, each line made with ``derive``."""
        out = []
        for h in self.hits:
            snippet = snippet_line(h.text, q, 160, lambda s: mark(terminal_safe(s)), terminal_safe)
            out.append(derive(terminal_safe(f"{h.path}:{h.line}: {h.entry_id}: ") + snippet))
        return out


def find(
    q: Query,
    *,
    root: Path,
    site: Path | None = None,
    limit: int = 0,
    fields: frozenset[str] | None = None,
    redactor: Any = None,
) -> Found:
    """Search a built ``site``'s index, or else the sessions folder ``root`` (read with
    ``fields``, redacted with ``redactor``); at most ``limit`` hits (0: all). Raises
    ``InputError`` for a site with no index, or one that cannot be read, and a folder that
    does not exist."""
    problems: list[str] = []
    if site is not None:
        if not (site / "search" / "meta.js").is_file():
            raise InputError(f"{site}: no search index (build it with piexport site)")
        try:
            groups, complete = run_search(q, site=site, limit=limit)
        except InputError as exc:
            raise InputError(terminal_safe(str(exc))) from exc
    else:
        if not root.exists():
            raise InputError(f"{root}: no such folder")
        groups, complete = run_search(
            q, root=root, fields=fields, problems=problems, redactor=redactor
        )
    hits = [h for g in groups for h in g]
    return Found(hits[:limit] if limit else hits, complete, problems)


def _derived(value: Any, derive: Derive) -> Any:
    """Every string in a JSON value made with ``derive``."""
    if isinstance(value, str):
        return derive(value)
    if isinstance(value, list):
        return [_derived(v, derive) for v in value]
    if isinstance(value, dict):
        return {k: _derived(v, derive) for k, v in value.items()}
    return value
