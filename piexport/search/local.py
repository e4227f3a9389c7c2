"""``piexport search``: the query language over a sessions folder, or over a built site."""

from __future__ import annotations

import zlib
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, PiexportError
from ..read.loader import load_session
from ..read.model import JSON
from .index import INDEX_VERSION, Postings, read_script, unpack_docs
from .query import Candidate, Query, candidate, search, snippet_line
from .records import ROLES, session_records


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
    root: Path, fields: frozenset[str] | None, problems: list[str]
) -> Iterator[tuple[str, str, list[JSON]]]:
    from ..site.build import discover

    for path in discover(root):
        try:
            session = load_session(path)
        except PiexportError as exc:  # named, and the rest is still searched
            problems.append(str(exc))
            continue
        except Exception as exc:
            problems.append(f"{path}: could not be read: {exc!r}")
            continue
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


def _site(site: Path, q: Query) -> Iterator[tuple[str, str, list[JSON]]]:
    """Each session's rows from a built site's index. An index this version cannot read (an
    older piexport's, a copy with files missing, a damaged file) is named, never a crash."""
    try:
        yield from _site_rows(site, q)
    except (OSError, ValueError, TypeError, KeyError, IndexError, zlib.error) as exc:
        where = getattr(exc, "filename", None) or site / "search"
        msg = f"{where}: the site's search index cannot be read ({exc}); build the site again"
        raise InputError(msg) from exc


def _holding_words(site: Path, meta: JSON, q: Query) -> set[int] | None:
    """The records holding at least one of the query's words, found in the term shards as
    search.html finds them (None: a query of filters only, every record). Only these
    records' texts are read; the others cannot be hits."""
    if not q.positive:
        return None
    postings = Postings(site, meta)
    found: set[int] = set()
    for w in q.positive:
        if w.prefix:
            found.update(postings.prefix(w.runs[0][0]))
            continue
        sets = sorted((postings.term(t) for t in w.terms), key=len)
        if sets:
            held = set(sets[0])
            for other in sets[1:]:
                held.intersection_update(other)
            found |= held
    return found


def _site_rows(site: Path, q: Query) -> Iterator[tuple[str, str, list[JSON]]]:
    _, (meta,) = read_script(site / "search" / "meta.js")
    if not isinstance(meta, dict) or meta.get("v") != INDEX_VERSION:
        version = meta.get("v") if isinstance(meta, dict) else None
        msg = (
            f"{site}: its search index is version {version} and this piexport reads version "
            f"{INDEX_VERSION}: build the site again with piexport site"
        )
        raise InputError(msg)
    _, (entries,) = read_script(site / "search" / "entries.js")
    wanted = _holding_words(site, meta, q)
    minute = 0
    for i, s in enumerate(meta["sessions"]):
        end = meta["sessions"][i + 1]["n"] if i + 1 < len(meta["sessions"]) else meta["records"]
        starts = s.get("c") or [0]
        docs: list[list[JSON] | None] = [None] * (end - s["n"])
        parts = list(range(len(starts)))
        if wanted is not None:
            parts = sorted(
                {bisect_right(starts, r - s["n"]) - 1 for r in range(s["n"], end) if r in wanted}
            )
        for part in parts:
            _, (_, packed) = read_script(site / "search" / "d" / f"{s['k']}-{part}.js")
            texts = unpack_docs(packed)
            docs[starts[part] : starts[part] + len(texts)] = texts
        rows = []
        for r in range(s["n"], end):
            minute += entries["w"][r]
            entry_id, dom, line, text = docs[r - s["n"]] or ("", "", 0, "")
            rows.append(
                {
                    "id": entry_id,
                    "dom": dom,
                    "line": line,
                    "role": ROLES[entries["k"][r] >> 1],
                    "tool": meta["tools"][entries["t"][r]],
                    "model": meta["models"][entries["m"][r]],
                    "label": meta["labels"][entries["l"][r]],
                    "time": minute * 60_000 if minute else None,
                    "error": bool(entries["k"][r] & 1),
                    "text": text,
                    "project": s["p"] or "",
                }
            )
        yield str(site / s["h"]), s["t"], rows


def run_search(
    q: Query,
    root: Path | None = None,
    site: Path | None = None,
    fields: frozenset[str] | None = None,
    problems: list[str] | None = None,
) -> tuple[list[list[Result]], bool]:
    """Results grouped per session, best first, and whether every word matched. Files that
    cannot be read are named in ``problems`` and left out."""
    problems = problems if problems is not None else []
    sessions = list(
        _site(site, q) if site is not None else _folder(root or Path("."), fields, problems)
    )
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
