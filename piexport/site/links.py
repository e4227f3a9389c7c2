"""How the pages of a site link to each other: relative links, projects' labels, lineage
(forks and subagents) and each page's trail and neighbours.

pi records a parent session by its absolute path on the user's machine: sessions are matched
on the file name, then a fork (the parent's entries copied) is told from a subagent (a fresh
context started by one of the parent's tool calls) by ``read.lineage``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..read.figures import utc_text
from ..read.lineage import SessionFile, read_session_file, relate
from ..read.model import JSON
from ..read.tree import timestamp_ms
from .gated import shown
from .records import Fork, Gathered, ParentLink, SiteMap, SiteSession

if TYPE_CHECKING:  # the page layer loads in the workers, not to list a folder
    from ..page.render import SiteNav
    from ..page.view import ChildRef, Origin
    from ..redact.engine import Redactor

__all__ = [
    "basename",
    "child_refs",
    "find_lineage",
    "lineage_key",
    "origin_of",
    "parent_page",
    "project_labels",
    "relative",
    "relative_refs",
    "session_navs",
    "site_map",
]


def site_map(gathered: Gathered, search_href: str | None, redactor: Redactor | None) -> SiteMap:
    """What the pages of the gathered sessions show of each other."""
    sessions = gathered.sessions
    labels = project_labels(gathered.places)
    lineage = find_lineage(sessions)
    forks: dict[str, list[Fork]] = {}
    for s in sessions:
        if s.page in lineage and lineage[s.page].link.relation != "subagent":
            name = shown(s.source.name, redactor)
            forks.setdefault(lineage[s.page].page, []).append(Fork(name, s.page))
    return SiteMap(
        labels=labels,
        navs=session_navs(sessions, labels, gathered.places, search_href),
        lineage=lineage,
        forks=forks,
        children=child_refs(sessions, lineage),
        by_name={s.source.name: s.page for s in sessions},
    )


def basename(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def relative(from_page: str, to_page: str) -> str:
    """A link from one page of the site to another, relative so the site can move."""
    return os.path.relpath(to_page, os.path.dirname(from_page) or ".").replace(os.sep, "/")


def parent_page(header: JSON, by_name: dict[str, str]) -> str | None:
    """The page of the session a header names as its parent, when the site holds it."""
    parent = header.get("parentSession") or header.get("branchedFrom")
    return by_name.get(basename(parent)) if isinstance(parent, str) else None


def project_labels(places: dict[str, str]) -> dict[str, str]:
    """Project folder → the shortest end of its path that no other project's path ends
    with (``shop``, ``alice/shop`` beside ``bob/shop``); the whole path when it is the end
    of another's. Cutting long paths at the start or the end made two projects look alike."""
    parts = {k: [p for p in re.split(r"[\\/]+", v) if p] or [v] for k, v in places.items()}
    out: dict[str, str] = {}
    for key, mine in parts.items():
        others = [p for k, p in parts.items() if k != key]
        label = places[key]
        for n in range(1, len(mine)):
            end = mine[-n:]
            if not any(o[-n:] == end for o in others):
                label = "/".join(end)
                break
        out[key] = label
    return out


def find_lineage(sessions: list[SiteSession]) -> dict[str, ParentLink]:
    """Child page → its parent's page and how it relates to it, for every session whose
    header names another session of the site (``read.lineage``)."""
    by_name = {s.source.name: s for s in sessions}
    groups: dict[Path, list[SessionFile]] = {}
    pages: dict[Path, str] = {}
    for s in sessions:
        pages[s.source] = s.page
        parent = s.header.get("parentSession") or s.header.get("branchedFrom")
        found = by_name.get(basename(parent)) if isinstance(parent, str) else None
        if found is not None and found.source != s.source:
            groups.setdefault(found.source, []).append(read_session_file(s.source, s.header))
    out: dict[str, ParentLink] = {}
    for parent_source, kids in groups.items():
        parent_file = read_session_file(parent_source, by_name[parent_source.name].header)
        for path, link in relate(parent_file, kids).items():
            out[pages[path]] = ParentLink(pages[parent_source], link)
    return out


def child_refs(
    sessions: list[SiteSession], lineage: dict[str, ParentLink]
) -> dict[str, tuple[ChildRef, ...]]:
    """Parent page → the sessions started from it, each with its own (a page → its subagents,
    their subagents, …; hrefs are pages relative to the site, made relative per page later)."""
    from ..page.view import ChildRef

    sources = {s.page: s.source for s in sessions}
    kids: dict[str, list[str]] = {}
    for child, parent in lineage.items():
        kids.setdefault(parent.page, []).append(child)

    def refs(page: str, seen: frozenset[str]) -> tuple[ChildRef, ...]:
        out = []
        for child in kids.get(page, []):
            if child in seen:  # a parent cycle in hand-made headers
                continue
            link = lineage[child].link
            out.append(
                ChildRef(
                    sources[child],
                    child,
                    link.relation,
                    link.call,
                    link.how,
                    refs(child, seen | {child}),
                )
            )
        return tuple(out)

    return {page: refs(page, frozenset({page})) for page in kids}


def relative_refs(page: str, refs: Iterable[ChildRef]) -> Iterator[ChildRef]:
    """``refs`` with their hrefs relative to ``page``."""
    for r in refs:
        yield replace(
            r, href=relative(page, r.href), children=tuple(relative_refs(page, r.children))
        )


def origin_of(page: str, lineage: dict[str, ParentLink]) -> Origin | None:
    """How the session of ``page`` came from its parent, as its page links it."""
    from ..page.view import Origin, dom_id

    if page not in lineage:
        return None
    parent = lineage[page]
    link = parent.link
    href = relative(page, parent.page)
    call = f"{href}#{dom_id(link.call)}" if link.call is not None else None
    return Origin(link.relation, href, call, link.how)


def lineage_key(origin: Origin | None, children: Iterable[ChildRef]) -> list[str]:
    """What of a page's lineage is on it: redrawn when a subagent's file changes (its figures
    and end are on its parent's page)."""
    key = [f"origin:{origin!r}"] if origin is not None else []

    def walk(refs: Iterable[ChildRef]) -> None:
        for r in refs:
            try:
                st = r.path.stat()
                changed = f"{st.st_size}:{st.st_mtime_ns}"
            except OSError:
                changed = "gone"
            key.append(f"child:{r.href}:{r.relation}:{r.call}:{r.how}:{changed}")
            walk(r.children)

    walk(children)
    return key


def _when(ms: int | None) -> str:
    return utc_text(ms, "%Y-%m-%d %H:%M") or "—"  # "—" too for a time no calendar holds


def session_navs(
    sessions: list[SiteSession],
    labels: dict[str, str],
    places: dict[str, str],
    search_href: str | None,
) -> dict[str, SiteNav]:
    """Each session page's ``SiteNav``: archive, project, this session, and the sessions
    before and after it in its project, in the order they started (the header's time, as
    the file name says it; from the first line only, so it is known before any render)."""
    from ..page.render import SiteNav

    by_project: dict[str, list[tuple[int | None, str, str]]] = {}
    for s in sessions:
        start = timestamp_ms(s.header.get("timestamp"))
        by_project.setdefault(s.page.split("/", 1)[0], []).append((start, s.rel, s.page))
    navs: dict[str, SiteNav] = {}
    for key, items in by_project.items():
        items.sort(key=lambda t: (t[0] is None, t[0] or 0, t[1]))
        for i, (start, _rel, page) in enumerate(items):
            before = items[i - 1] if i else None
            after = items[i + 1] if i + 1 < len(items) else None
            navs[page] = SiteNav(
                (
                    ("pi sessions", "../index.html", None),
                    (labels[key], "index.html", places[key]),
                    (f"session of {_when(start)}" if start is not None else "session", None, None),
                ),
                search_href and "../" + search_href,
                (_when(before[0]), before[2].split("/", 1)[1]) if before else None,
                (_when(after[0]), after[2].split("/", 1)[1]) if after else None,
            )
    return navs
