"""A static site over a sessions folder: one page per session, an index per project, one over all.

Gather first, then write (mkdocs): discover the files, decide from the manifest which pages
are stale, render those in worker processes, then write the indexes and the manifest. A
broken session is listed with its error and never stops the rest.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import InputError, PiexportError
from ..output import sweep_stale, write_atomic
from ..read.discover import discover
from ..read.figures import chartable, utc_text
from ..read.jsonutil import finite_number, output_json
from ..read.lineage import Link, SessionFile, read_session_file, relate
from ..read.loader import loads_exact, may_hold_wide_int
from ..read.model import JSON, Session
from ..read.tree import timestamp_ms
from ..report.stats import file_figures
from ..report.summary import session_span
from ..report.usage import session_usage
from ..search.index import CACHE as INDEX_CACHE
from ..search.index import session_key
from ..search.records import FIELDS
from ..version import __version__

if TYPE_CHECKING:  # the page layer loads in the workers, not to list a folder
    from ..page.view import ChildRef, Origin

MANIFEST = ".piexport-manifest.json"
MANIFEST_VERSION = 1


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str, limit: int = 60) -> str:
    """A file-name-safe, readable slug; never empty, never ``.`` or ``..``."""
    s = _UNSAFE.sub("-", text).strip("-.")[-limit:].strip("-.")
    return s or "x"


def project_key(cwd: str | None, folder: str) -> str:
    """Folder name for a project: readable, plus a hash so two cwds that encode alike differ."""
    ident = cwd if cwd else f"folder:{folder}"
    digest = hashlib.sha1(ident.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    readable = slug(cwd.replace("\\", "/")) if cwd else slug(folder or "unknown")
    return f"{readable}-{digest}"


def page_name(source: Path) -> str:
    return slug(source.stem, 120) + ".html"


@dataclass(slots=True)
class SessionRecord:
    """What the manifest remembers about one session file."""

    source: str
    """Path relative to the sessions root."""
    size: int
    mtime_ns: int
    page: str
    """Page path relative to the output folder."""
    summary: JSON
    error: str | None = None
    diagnostics: list[str] = field(default_factory=list)
    forks_rendered: list[str] = field(default_factory=list)
    pending: bool = False
    """Rendered while its last line was still being written (``--watch``): rendered again
    once that line ends or the file stops growing."""
    nav: str = ""
    """The page's place in the site as rendered (trail, previous and next session), hashed."""

    def as_json(self) -> JSON:
        return {
            "source": self.source,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "page": self.page,
            "summary": self.summary,
            "error": self.error,
            "diagnostics": self.diagnostics,
            "forks_rendered": self.forks_rendered,
            "pending": self.pending,
            "nav": self.nav,
        }


@dataclass(slots=True)
class SiteReport:
    """The outcome of one ``build_site`` run."""

    out: Path
    rendered: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Problems in the sessions rendered by this run."""
    projects: int = 0
    sessions: int = 0
    redacted: Counter[str] = field(default_factory=Counter)
    """Secrets replaced per rule on the pages this run rendered (with a redactor)."""
    pending: list[str] = field(default_factory=list)
    """Sessions whose unterminated last line is still being written (``growing_seconds``)."""

    def summary_line(self) -> str:
        return (
            f"{self.sessions} sessions in {self.projects} projects: {self.rendered} rendered, "
            f"{self.unchanged} unchanged, {self.removed} removed, {len(self.failed)} failed, "
            f"{len(self.warnings)} warnings → {self.out}"
        )


def session_summary(session: Session, source: Path) -> JSON:
    """The facts an index row shows about a session (all of them from the whole file)."""
    fig = file_figures(session)
    header = session.header
    # when the session ran comes from its entries: a header can be later than every entry
    # (an /export copy) or earlier than copied ones (a /fork); it is kept, and shown, apart
    span = session_span(session, fig)
    first, last, header_ms = span.start, span.end, span.header
    if any(t is not None and not chartable(t) for t in (first, last, header_ms)):
        first, last, header_ms = _charted(session, first, last, header_ms)
    parts = session.title_parts
    title = str(parts) if parts is not None else "(no messages)"
    return {
        "id": session.id,
        "name": session.name,
        "title": session.derive.line(title, 300, ""),
        "titleChip": parts.chip if parts is not None else None,
        "titleText": parts.text if parts is not None else title,
        "titleRaw": parts.raw if parts is not None else None,
        "cwd": session.cwd,
        "file": source.name,
        "parentSession": header.parent_session if header else None,
        "started": first,
        "last": last,
        "headerTime": header_ms,
        "durationSeconds": span.seconds,
        "copiedFrom": span.copied_from,
        "messages": fig.message_count,
        "entries": len(session.entries),
        "leaves": len(session.tree.leaves),
        "branchPoints": len(session.tree.branch_points),
        "compactions": fig.compactions,
        "labels": len(session.labels),
        "models": fig.models,
        "tokens": fig.tokens["total"],
        "tokensDetail": dict(fig.tokens),
        "cost": round(fig.cost, 6),
        "costEstimated": fig.known_estimate,
        "toolCalls": sum(fig.tool_calls.values()),
        "errors": fig.errors,
        "toolErrors": fig.tool_errors,
        "diagnostics": len(session.diagnostics),
        "usage": session_usage(session),
        # set by the site, which knows the sessions around it (read.lineage)
        "relation": None,
        "subagents": 0,
        "costWithSubagents": None,
    }


def _charted(
    session: Session, first: int | None, last: int | None, header: int | None
) -> tuple[int | None, int | None, int | None]:
    """A session's start, end and header time, each dropped for the times of its entries the
    site charts when it is not one of those (the loader named it: ``read.figures``)."""
    times = [
        ms
        for e in session.entries
        if (ms := timestamp_ms(e.timestamp)) is not None and chartable(ms)
    ]
    if first is not None and not chartable(first):
        first = min(times, default=None)
    if last is not None and not chartable(last):
        last = max(times, default=first)
    return first, last, header if header is None or chartable(header) else None


SUMMARY_KEYS = (
    "id",
    "name",
    "title",
    "titleChip",
    "titleText",
    "titleRaw",
    "cwd",
    "file",
    "parentSession",
    "started",
    "last",
    "headerTime",
    "durationSeconds",
    "copiedFrom",
    "messages",
    "entries",
    "leaves",
    "branchPoints",
    "compactions",
    "labels",
    "models",
    "tokens",
    "tokensDetail",
    "cost",
    "costEstimated",
    "toolCalls",
    "errors",
    "toolErrors",
    "diagnostics",
    "usage",
    "relation",
    "subagents",
    "costWithSubagents",
)


@dataclass(frozen=True, slots=True)
class _Job:
    source: Path
    page: Path
    parent_href: str | None
    forks: tuple[tuple[str, str], ...]
    """(title, href) of every session forked from this one."""
    options: Any
    redactor: Any = None
    """A ``redact.Redactor`` (or None): pickled into each worker; tokens agree across pages."""
    selection: Any = None
    seconds: float | None = None
    """How long the page may take before it is written as plain text (None: by its size)."""
    name: str = ""
    """The file name as indexes show it (redacted with the pages)."""
    index_root: Path | None = None
    """The site folder, when the session goes into the search index (None: no search)."""
    index_page: str = ""
    search_fields: frozenset[str] | None = None
    pending_tail: bool = False
    """The file is being written: its unterminated last line waits."""
    origin: Origin | None = None
    """How the session came from its parent (a fork, a subagent, started from it)."""
    children: tuple[ChildRef, ...] = ()
    """Sessions started from it; hrefs relative to its page."""
    nav: Any = None
    """The page's ``SiteNav``: trail, search, previous and next session."""


_Outcome = tuple[JSON | None, list[str], str | None, dict[str, int]]


def _render_one(job: _Job) -> _Outcome:
    """Worker: load, render and write one page.
    Returns (summary, diagnostics, error, secrets redacted per rule)."""
    from ..export.pipeline import export_session  # imported in the worker process

    try:
        result = export_session(
            job.source,
            job.page,
            options=job.options,
            parent_href=job.parent_href,
            forks=list(job.forks),
            origin=job.origin,
            children=job.children,
            redactor=job.redactor,
            selection=job.selection,
            seconds=job.seconds,
            pending_tail=job.pending_tail,
            nav=job.nav,
        )
        if job.index_root is not None:
            _index_one(job, result.session)
    except PiexportError as exc:
        return None, [], _shown(str(exc), job.redactor), {}
    except Exception as exc:  # one broken session must never stop the site
        error = f"{job.source}: internal error while rendering: {exc!r}"
        return None, [], _shown(error, job.redactor), {}
    summary = session_summary(result.session, job.source)
    summary["file"] = job.name or job.source.name
    summary["relation"] = job.origin.relation if job.origin is not None else None
    summary["subagents"] = result.subagents
    summary["costWithSubagents"] = (
        None if result.cost_with_subagents is None else round(result.cost_with_subagents, 6)
    )
    return (
        summary,
        [str(d) for d in result.session.diagnostics],
        None,
        result.redacted,
    )


def _index_one(job: _Job, session: Session) -> None:
    """The session's part of the search index, from the session as its page shows it."""
    from ..search.index import write_session_index

    assert job.index_root is not None
    write_session_index(
        session, job.index_root, job.index_page, job.search_fields, _gate(job.redactor)
    )


def _gate(redactor: Any) -> Callable[[str, Path], None] | None:
    """The output gate as ``gate(text, path)`` when redacting, else None."""
    if redactor is None:
        return None
    from ..export.pipeline import check_output

    # the index's values, each on its line: read as they are (search shows them as text)
    return lambda text, path: check_output(text, redactor, path, kind="text")


def _shown(text: str, redactor: Any) -> str:
    """A name or message as the site writes it: redacted when redacting."""
    return text if redactor is None else str(redactor.redact_text(text, count=False))


def _fingerprint(
    options: Any, redactor: Any = None, selection: Any = None, search: Any = None
) -> str:
    """Pages depend on piexport itself (code, templates, CSS, JS), the options, the redaction
    rules and the selection; their parts of the search index on what it indexes."""
    from ..page.assets import asset_fingerprint

    shared = "" if redactor is None and selection is None else f":{selection!r}"
    if search is not None:
        shared += f":search={sorted(search)!r}"
    if redactor is not None:
        shared += f":redact={redactor.fingerprint()}"
    return f"{__version__}:{asset_fingerprint()}:{options!r}{shared}"


def find_lineage(planned: list[tuple[Path, str, str, JSON]]) -> dict[str, tuple[str, Link]]:
    """Child page → (its parent's page, how it relates to it), for every session whose header
    names another session of the site (``read.lineage``)."""
    by_name = {source.name: (source, page, header) for source, _, page, header in planned}
    groups: dict[Path, list[SessionFile]] = {}
    pages: dict[Path, str] = {}
    for source, _, page, header in planned:
        pages[source] = page
        parent = header.get("parentSession") or header.get("branchedFrom")
        found = by_name.get(_basename(parent)) if isinstance(parent, str) else None
        if found is not None and found[0] != source:
            groups.setdefault(found[0], []).append(read_session_file(source, header))
    out: dict[str, tuple[str, Link]] = {}
    for parent_source, kids in groups.items():
        parent_file = read_session_file(parent_source, by_name[parent_source.name][2])
        for path, link in relate(parent_file, kids).items():
            out[pages[path]] = (pages[parent_source], link)
    return out


def child_refs(
    planned: list[tuple[Path, str, str, JSON]], lineage: dict[str, tuple[str, Link]]
) -> dict[str, tuple[ChildRef, ...]]:
    """Parent page → the sessions started from it, each with its own (a page → its subagents,
    their subagents, …; hrefs are pages relative to the site, made relative per page later)."""
    from ..page.view import ChildRef

    sources = {page: source for source, _, page, _ in planned}
    kids: dict[str, list[str]] = {}
    for child, (parent, _link) in lineage.items():
        kids.setdefault(parent, []).append(child)

    def refs(page: str, seen: frozenset[str]) -> tuple[ChildRef, ...]:
        out = []
        for child in kids.get(page, []):
            if child in seen:  # a parent cycle in hand-made headers
                continue
            link = lineage[child][1]
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


def _relative_refs(page: str, refs: Iterable[ChildRef]) -> Iterator[ChildRef]:
    for r in refs:
        yield replace(
            r, href=_relative(page, r.href), children=tuple(_relative_refs(page, r.children))
        )


def _origin(page: str, lineage: dict[str, tuple[str, Link]]) -> Origin | None:
    from ..page.view import Origin, dom_id

    if page not in lineage:
        return None
    parent, link = lineage[page]
    href = _relative(page, parent)
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


def _read_header(path: Path) -> JSON:
    """The first line only: enough to group and filter without loading the session."""
    try:
        with path.open("rb") as f:
            line = f.readline(1 << 20)
        obj = orjson.loads(line.lstrip(b"\xef\xbb\xbf").strip())
        return obj if isinstance(obj, dict) and obj.get("type") == "session" else {}
    except (OSError, orjson.JSONDecodeError):
        return {}


def _parse_date(text: str | None, end: bool = False) -> int | None:
    if not text:
        return None
    ms = timestamp_ms(text if "T" in text or len(text) != 10 else text + "T00:00:00Z")
    if ms is None:
        msg = f"not a date: {text!r} (use YYYY-MM-DD or an ISO timestamp)"
        raise InputError(msg)
    return ms + (86_400_000 - 1 if end and len(text) == 10 else 0)


def build_site(
    root: Path,
    out: Path,
    *,
    options: Any = None,
    jobs: int | None = None,
    force: bool = False,
    project: str | None = None,
    since: str | None = None,
    until: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    redactor: Any = None,
    selection: Any = None,
    page_seconds: float | None = None,
    search_fields: Iterable[str] | None = None,
    search: bool = True,
    growing_seconds: float | None = None,
) -> SiteReport:
    """Render every session under ``root`` into ``out`` and write the indexes.

    With a ``redactor`` (``redact.Redactor``), every page, index and the manifest is
    redacted and checked by the output gate; a page that fails the gate is a failed session.
    ``selection`` (``selection.Selection``) applies to every page; a leaf id cannot be part
    of it. A page that takes longer than ``page_seconds`` (default: by its size) is written
    as plain text with a diagnostic, and the build goes on. With ``search`` (the default)
    the site gets ``search.html`` and an index of ``search_fields`` (default: everything,
    see ``search.records.FIELDS``), re-merged only when a page was rendered or removed.

    ``growing_seconds`` (``--watch``): a file whose last line has no newline yet and that was
    written less than this many seconds ago is being written; that line waits, with no
    warning, and the page is made again once the line ends or the file stops growing."""
    from ..export.pipeline import RenderOptions
    from ..page.render import (
        RECENT_SESSIONS,
        SiteNav,
        render_all_sessions,
        render_project_index,
        render_root_index,
    )

    options = options if options is not None else RenderOptions()
    root = root.expanduser()
    if not root.exists():
        msg = f"{root}: no such folder (pass the sessions folder, e.g. ~/.pi/agent/sessions)"
        raise InputError(msg)
    out.mkdir(parents=True, exist_ok=True)
    # temporary files of a run that was killed mid-write (pages written since are not)
    for place in [out, *(p for p in out.iterdir() if p.is_dir())]:
        sweep_stale(place)
    since_ms, until_ms = _parse_date(since), _parse_date(until, end=True)
    fields = frozenset(search_fields if search_fields is not None else FIELDS)
    fingerprint = _fingerprint(options, redactor, selection, fields if search else None)
    root_id = _shown(str(root.resolve()), redactor)
    old = _load_manifest(out, root_id, fingerprint, force)
    report = SiteReport(out=out)

    # 1. gather: which files, which project, which page
    planned: list[tuple[Path, str, str, JSON]] = []  # source, rel, page, header
    places: dict[str, str] = {}  # project folder → its cwd (or session folder), as shown
    for source in discover(root):
        header = _read_header(source)
        cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
        if cwd is not None and redactor is not None:  # the folder name is made from it
            cwd = redactor.redact_text(cwd, count=False)
        if (
            project
            and not fnmatch.fnmatch(cwd or source.parent.name, project)
            and not fnmatch.fnmatch(source.parent.name, project)
        ):
            continue
        stat = source.stat()
        start = timestamp_ms(header.get("timestamp"))
        if until_ms is not None and start is not None and start > until_ms:
            continue
        if since_ms is not None and stat.st_mtime_ns // 1_000_000 < since_ms:
            continue
        # file and folder names can hold secrets too: every name the site writes is redacted
        rel = _shown(
            source.relative_to(root).as_posix() if source != root else source.name, redactor
        )
        folder = _shown(source.parent.name, redactor)
        key = project_key(cwd, folder)
        places.setdefault(key, cwd or folder)
        page = f"{key}/{page_name(Path(_shown(source.name, redactor)))}"
        planned.append((source, rel, page, header))
    _dedupe_pages(planned)
    labels = project_labels(places)
    search_href = "search.html" if search else None
    navs = _session_navs(planned, labels, places, search_href)

    # forks and subagents: pi records the parent's absolute path on the user's machine;
    # match on file name, then tell forks (the parent's entries copied) from subagents (a
    # fresh context started by one of the parent's tool calls)
    by_name = {source.name: page for source, _, page, _ in planned}
    lineage = find_lineage(planned)
    forks: dict[str, list[tuple[str, str]]] = {}
    for source, _, page, _header in planned:
        if page in lineage and lineage[page][1].relation != "subagent":
            shown = _shown(source.name, redactor)
            forks.setdefault(lineage[page][0], []).append((shown, page))
    children = child_refs(planned, lineage)

    # 2. decide what is stale
    records: dict[str, SessionRecord] = {}
    jobs_todo: list[tuple[str, _Job]] = []
    for source, rel, page, header in planned:
        stat = source.stat()
        pending = growing_seconds is not None and _growing(source, stat, growing_seconds)
        parent = header.get("parentSession") or header.get("branchedFrom")
        parent_page = by_name.get(_basename(parent)) if isinstance(parent, str) else None
        my_forks = tuple((name, _relative(page, p)) for name, p in forks.get(page, []))
        origin = _origin(page, lineage)
        my_children = children.get(page, ())
        # a page shows its forks, how it came from its parent, and its subagents' figures
        fork_key = [f"{n}:{h}" for n, h in my_forks] + lineage_key(origin, my_children)
        prev = old.get(rel)
        if (
            prev is not None
            and prev.size == stat.st_size
            and prev.mtime_ns == stat.st_mtime_ns
            and prev.page == page
            and prev.forks_rendered == fork_key
            and prev.error is None
            and prev.pending == pending
            and prev.nav == _nav_key(navs[page])
            and (out / page).is_file()
            and (not search or (out / INDEX_CACHE / f"{session_key(page)}.json").is_file())
        ):
            if pending:
                report.pending.append(rel)
            records[rel] = prev
            report.unchanged += 1
            continue
        records[rel] = SessionRecord(
            rel,
            stat.st_size,
            stat.st_mtime_ns,
            page,
            {},
            None,
            [],
            fork_key,
            pending,
            _nav_key(navs[page]),
        )
        if pending:
            report.pending.append(rel)
        jobs_todo.append(
            (
                rel,
                _Job(
                    source,
                    out / page,
                    _relative(page, parent_page) if parent_page else None,
                    my_forks,
                    options,
                    redactor=redactor,
                    selection=selection,
                    seconds=page_seconds,
                    name=_shown(source.name, redactor),
                    index_root=out if search else None,
                    index_page=page,
                    search_fields=fields,
                    pending_tail=pending,
                    origin=origin,
                    children=tuple(_relative_refs(page, my_children)),
                    nav=navs[page],
                ),
            )
        )

    # 3. render what is stale, in parallel
    done = 0
    total = len(jobs_todo)
    for (rel, _job), (summary, diags, error, redacted) in zip(
        jobs_todo, _run(jobs_todo, jobs), strict=True
    ):
        rec = records[rel]
        report.redacted.update(redacted)
        done += 1
        if progress:
            progress(done, total)
        if error is not None:
            rec.error = error
            rec.summary = dict.fromkeys(SUMMARY_KEYS)
            rec.summary.update(title=Path(rel).name, file=Path(rel).name, models=[])
            report.failed.append((rel, error))
            continue
        assert summary is not None
        rec.summary, rec.diagnostics = summary, diags
        report.warnings.extend(diags)  # unchanged pages were reported when they were built
        report.rendered += 1

    # 4. remove pages of sessions that are gone, and old pages of sessions whose page moved
    # (e.g. --redact renamed the project folder: the old page may hold what was redacted);
    # only pages we wrote ourselves
    current_pages = {r.page for r in records.values()}
    for rel, prev in old.items():
        if prev.page not in current_pages:
            target = (out / prev.page).resolve()
            if target.is_relative_to(out.resolve()) and target.is_file():
                target.unlink()
                if rel not in records:
                    report.removed += 1

    # 5. indexes, then the manifest: what one session holds never stops them (a row that
    # cannot be drawn is listed as failed, charts that cannot be drawn are left out)
    projects = _group(records.values(), planned, forks, labels)
    for key, proj in projects.items():
        nav = SiteNav(
            (("pi sessions", "../index.html", None), (proj["label"], None, proj["cwd"])),
            search_href and "../" + search_href,
        )

        def project_page(rows: list[JSON], proj: JSON = proj, nav: Any = nav) -> str:
            return render_project_index({**proj, "sessions": rows}, options, nav=nav)

        text, proj["sessions"] = _drawn(project_page, proj["sessions"], records, report, redactor)
        _write_checked(out / key / "index.html", text, redactor)

    def listing(rows: list[JSON]) -> list[JSON]:
        """The projects with these rows (as ``_drawn`` left them) for their sessions."""
        by_source = {r.get("source"): r for r in rows}
        return [
            {
                **p,
                "sessions": [
                    by_source[r["source"]] for r in p["sessions"] if r["source"] in by_source
                ],
            }
            for p in projects.values()
        ]

    def root_page(rows: list[JSON]) -> str:
        nav = SiteNav((("pi sessions", None, None),), search_href)
        return render_root_index(listing(rows), options, nav=nav, all_href=ALL_SESSIONS)

    def all_page(rows: list[JSON]) -> str:
        trail = (("pi sessions", "index.html", None), ("All sessions", None, None))
        return render_all_sessions(listing(rows), options, nav=SiteNav(trail, search_href))

    every = [r for p in projects.values() for r in p["sessions"]]
    text, every = _drawn(root_page, every, records, report, redactor)
    _write_checked(out / "index.html", text, redactor)
    if len(every) <= RECENT_SESSIONS:
        with contextlib.suppress(FileNotFoundError):  # the root index lists every session
            (out / ALL_SESSIONS).unlink()
    else:
        _write_checked(
            out / ALL_SESSIONS, _drawn(all_page, every, records, report, redactor)[0], redactor
        )
    if search and (
        report.rendered
        or report.removed
        or report.failed
        or not (out / "search" / "meta.js").is_file()
        or not (out / "search.html").is_file()
    ):
        _write_search(out, records, fields, redactor, report)
    for old_folder in {Path(prev.page).parent for prev in old.values()}:
        _remove_if_only_index(out / old_folder, set(projects))
    if redactor is not None:  # the names of everything written, gated like the pages
        from ..export.pipeline import check_output

        names = sorted({r.page for r in records.values()} | set(projects))
        check_output("\n".join(names), redactor, f"{out}: page and folder names", kind="text")
    _save_manifest(out, root_id, fingerprint, records, redactor)
    report.projects = len(projects)
    report.sessions = len(records)
    return report


def _drawn(
    render: Callable[[list[JSON]], str],
    rows: list[JSON],
    records: dict[str, SessionRecord],
    report: SiteReport,
    redactor: Any,
) -> tuple[str, list[JSON]]:
    """An index page over ``rows`` (``_group``'s), and the rows it lists.

    Should the page fail to draw (nothing a session holds should make it, but rows may come
    from a manifest someone else wrote), each row is tried alone: one that fails is listed
    as a failed session and named in the report, and the rest are drawn; should they still
    fail together, the page is drawn without its charts over time."""
    try:
        return render(rows), rows
    except Exception as exc:  # one session must never stop the site
        first = exc
    kept: list[JSON] = []
    for row in rows:
        try:
            render([row])
        except Exception as exc:
            rel = str(row.get("source"))
            error = _shown(f"{rel}: cannot be listed in the index: {exc!r}", redactor)
            report.failed.append((rel, error))
            failed: JSON = {**dict.fromkeys(SUMMARY_KEYS), "title": Path(rel).name, "models": []}
            failed["file"] = failed["title"]
            if rel in records:
                records[rel].error, records[rel].summary = error, dict(failed)
            row = {**row, **failed, "error": error, "warnings": 0, "forks": []}
        kept.append(row)
    try:
        return render(kept), kept
    except Exception:
        report.warnings.append(_shown(f"the index charts could not be drawn ({first!r})", redactor))
        bare = [{**r, "usage": None} for r in kept]
        return render(bare), bare


def _write_search(
    out: Path,
    records: dict[str, SessionRecord],
    fields: frozenset[str],
    redactor: Any,
    report: SiteReport,
) -> None:
    """Merge the sessions' parts into the index the search page loads, and write the page.
    A session whose part cannot be merged is left out of the index and named."""
    from ..page.render import SiteNav, render_search_page
    from ..search.index import IndexedSession, build_index

    shown = [f for f in FIELDS if f in fields]
    sessions = [
        IndexedSession(
            r.page,
            r.summary.get("title") or "",
            r.summary.get("cwd") or "",
            r.summary.get("started"),
        )
        for r in sorted(records.values(), key=lambda r: r.page)
        if r.error is None
    ]
    problems: dict[str, str] = {}
    build_index(out, sessions, shown, _gate(redactor), problems)
    by_page = {r.page: rel for rel, r in records.items()}
    for page, why in problems.items():
        rel = by_page.get(page, page)
        report.failed.append((rel, f"{rel}: left out of the search index: {why}"))
    nav = SiteNav((("pi sessions", "index.html", None), ("Search", None, None)))
    _write_checked(out / "search.html", render_search_page(shown, nav), redactor)


ALL_SESSIONS = "sessions.html"
"""Every session of the site in one table (the root index shows the most recent)."""


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


def _when(ms: int | None) -> str:
    return utc_text(ms, "%Y-%m-%d %H:%M") or "—"  # "—" too for a time no calendar holds


def _session_navs(
    planned: list[tuple[Path, str, str, JSON]],
    labels: dict[str, str],
    places: dict[str, str],
    search_href: str | None,
) -> dict[str, Any]:
    """Each session page's ``SiteNav``: archive, project, this session, and the sessions
    before and after it in its project, in the order they started (the header's time, as
    the file name says it; from the first line only, so it is known before any render)."""
    from ..page.render import SiteNav

    by_project: dict[str, list[tuple[int | None, str, str]]] = {}
    for _source, rel, page, header in planned:
        start = timestamp_ms(header.get("timestamp"))
        by_project.setdefault(page.split("/", 1)[0], []).append((start, rel, page))
    navs: dict[str, Any] = {}
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


def _growing(source: Path, stat: os.stat_result, seconds: float) -> bool:
    """Whether the file's last line is still being written: no newline at its end yet,
    and written in the last ``seconds``. Looked at after the stat the manifest records."""
    if stat.st_size == 0 or time.time() - stat.st_mtime >= seconds:
        return False
    try:
        with source.open("rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"
    except OSError:
        return False


def _basename(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _relative(from_page: str, to_page: str) -> str:
    """A link from one page of the site to another, relative so the site can move."""
    return os.path.relpath(to_page, os.path.dirname(from_page) or ".").replace(os.sep, "/")


def _dedupe_pages(planned: list[tuple[Path, str, str, JSON]]) -> None:
    """Two files that slug alike in one project get distinct pages."""
    seen: set[str] = set()
    for i, (source, rel, page, header) in enumerate(planned):
        if page in seen:
            digest = hashlib.sha1(rel.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            page = page[: -len(".html")] + f"-{digest}.html"
            planned[i] = (source, rel, page, header)
        seen.add(page)


def _write_checked(path: Path, text: str, redactor: Any) -> None:
    """Write an index page, through the output gate when redacting."""
    if redactor is not None:
        from ..export.pipeline import check_output

        check_output(text, redactor, path)
    write_atomic(path, text)


def _run(todo: list[tuple[str, _Job]], jobs: int | None) -> Iterable[_Outcome]:
    workers = jobs or os.cpu_count() or 1
    if workers <= 1 or len(todo) <= 1:
        return (_render_one(job) for _, job in todo)
    pool = ProcessPoolExecutor(max_workers=min(workers, len(todo)))
    # pages are already rendered side by side: one process each
    one_each = [replace(job, options=replace(job.options, workers=1)) for _, job in todo]

    def results() -> Iterable[_Outcome]:
        with pool:
            yield from pool.map(_render_one, one_each, chunksize=1)

    return results()


def _group(
    records: Iterable[SessionRecord],
    planned: list[tuple[Path, str, str, JSON]],
    forks: dict[str, list[tuple[str, str]]],
    labels: dict[str, str] | None = None,
) -> dict[str, JSON]:
    """Project index variables: sessions of each project, newest activity first."""
    pages_by_file = {Path(rel).name: page for _, rel, page, _ in planned}
    projects: dict[str, JSON] = {}
    for rec in records:
        key = rec.page.split("/", 1)[0]
        summary = dict(rec.summary)
        proj = projects.setdefault(
            key,
            {
                "key": key,
                "cwd": None,
                "sessions": [],
                "tokens": 0,
                "cost": 0.0,
                "first": None,
                "last": None,
                "label": (labels or {}).get(key, key),
                "costEstimated": None,
                "errors": 0,
                "toolErrors": 0,
            },
        )
        if summary.get("cwd") and not proj["cwd"]:
            proj["cwd"] = summary["cwd"]
        parent = summary.get("parentSession")
        parent_page = pages_by_file.get(_basename(parent)) if isinstance(parent, str) else None
        row = {
            **summary,
            "source": rec.source,
            "href": rec.page.split("/", 1)[1],
            "error": rec.error,
            "warnings": len(rec.diagnostics),
            "parentHref": _relative(rec.page, parent_page) if parent_page else None,
            "forks": [
                {"file": name, "href": _relative(rec.page, page)}
                for name, page in forks.get(rec.page, [])
            ],
        }
        proj["sessions"].append(row)
        proj["errors"] += int(summary.get("errors") or 0)
        proj["toolErrors"] += int(summary.get("toolErrors") or 0)
        proj["tokens"] += int(summary.get("tokens") or 0)
        proj["cost"] += float(summary.get("cost") or 0)
        est = summary.get("costEstimated")
        if isinstance(est, (int, float)):
            proj["costEstimated"] = (proj["costEstimated"] or 0.0) + est
        for k, pick in (("first", min), ("last", max)):
            v = summary.get("started" if k == "first" else "last")
            if isinstance(v, (int, float)):
                proj[k] = v if proj[k] is None else pick(proj[k], v)
    for proj in projects.values():
        proj["sessions"].sort(key=lambda r: (r.get("last") or 0, r.get("file") or ""), reverse=True)
        proj["cost"] = round(proj["cost"], 6)
        if proj["costEstimated"] is not None:
            proj["costEstimated"] = round(proj["costEstimated"], 6)
        if not proj["cwd"]:
            proj["cwd"] = proj["key"]
        _tell_apart(proj["sessions"])
    return dict(sorted(projects.items(), key=lambda kv: -(kv[1]["last"] or 0)))


def _tell_apart(rows: list[JSON]) -> None:
    """Sessions of one project with one title are told apart by when they started (to the
    minute, or the second when that is not enough), else by their id: ``dupTitle`` holds
    what the index shows after the title, None for a title of its own."""
    groups: dict[Any, list[JSON]] = {}
    for r in rows:
        r["dupTitle"] = None
        groups.setdefault(r.get("title"), []).append(r)
    for same in groups.values():
        if len(same) < 2:
            continue
        for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", None):
            shown = [_started_as(r, fmt) for r in same]
            if fmt is None or len(set(shown)) == len(shown):
                break
        for r, text in zip(same, shown, strict=True):
            r["dupTitle"] = text


def _started_as(row: JSON, fmt: str | None) -> str:
    when = utc_text(row.get("started"), fmt or "%Y-%m-%d %H:%M:%S") or "no date"
    return when if fmt is not None else f"{when} · {str(row.get('id') or row.get('file'))[:13]}"


def _remove_if_only_index(folder: Path, live: set[str]) -> None:
    """A project folder whose sessions are all gone loses its index too."""
    if folder.name in live or not folder.is_dir():
        return
    index = folder / "index.html"
    if index.is_file():
        index.unlink()
    with contextlib.suppress(OSError):  # not empty: something we did not write lives there
        folder.rmdir()


def _load_manifest(
    out: Path, root_id: str, fingerprint: str, force: bool
) -> dict[str, SessionRecord]:
    """Records from the last run; a different root, piexport or options invalidate pages."""
    path = out / MANIFEST
    try:
        raw = path.read_bytes()
        data = orjson.loads(raw)
        if may_hold_wide_int(raw):  # a sum past 64 bits, which orjson reads as a float
            data = loads_exact(raw)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        return {}
    records = {}
    sessions = data.get("sessions")
    for raw in sessions if isinstance(sessions, list) else ():
        try:
            rec = SessionRecord(**raw)
        except TypeError:
            continue
        if not isinstance(rec.source, str) or not isinstance(rec.page, str):
            continue  # nothing to render again nor to remove
        if (
            force
            or data.get("fingerprint") != fingerprint
            or data.get("root") != root_id
            or not _record_ok(rec)
        ):
            rec.size = -1  # keep it, so its page can be removed if the session is gone
            rec.summary, rec.diagnostics, rec.forks_rendered = {}, [], []
        records[rec.source] = rec
    return records


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and finite_number(value) is not None


def _record_ok(rec: SessionRecord) -> bool:
    """Whether a manifest record is shaped as this piexport writes it: a manifest is a file
    in the site folder, which may come from someone else (a CI artifact)."""
    s = rec.summary
    return (
        _is_int(rec.size)
        and _is_int(rec.mtime_ns)
        and (rec.error is None or isinstance(rec.error, str))
        and isinstance(rec.pending, bool)
        and isinstance(rec.diagnostics, list)
        and all(isinstance(d, str) for d in rec.diagnostics)
        and isinstance(rec.forks_rendered, list)
        and all(isinstance(f, str) for f in rec.forks_rendered)
        and isinstance(s, dict)
        and set(s) == set(SUMMARY_KEYS)
        and all(s[k] is None or isinstance(s[k], str) for k in _SUMMARY_TEXT)
        and all(s[k] is None or _is_int(s[k]) for k in _SUMMARY_COUNTS)
        and all(s[k] is None or chartable(s[k]) for k in ("started", "last", "headerTime"))
        and all(
            s[k] is None or _is_number(s[k])
            for k in ("durationSeconds", "cost", "costEstimated", "costWithSubagents")
        )
        and (s["models"] is None or _all(s["models"], str))
        and (s["tokensDetail"] is None or _tokens_ok(s["tokensDetail"]))
        and (s["usage"] is None or _usage_ok(s["usage"]))
    )


_SUMMARY_TEXT = ("id", "name", "title", "titleChip", "titleText", "cwd", "file", "parentSession")
_SUMMARY_COUNTS = (
    "started",
    "last",
    "headerTime",
    "copiedFrom",
    "toolErrors",
    "subagents",
    "messages",
    "entries",
    "leaves",
    "branchPoints",
    "compactions",
    "labels",
    "tokens",
    "toolCalls",
    "errors",
    "diagnostics",
)


def _all(values: Any, kind: type) -> bool:
    return isinstance(values, list) and all(isinstance(v, kind) for v in values)


def _tokens_ok(tokens: Any) -> bool:
    return isinstance(tokens, dict) and all(_is_int(v) for v in tokens.values())


def _usage_ok(usage: Any) -> bool:
    """``session_usage``'s shape: days as [day, model, tokens, cost or None, messages],
    tools as name: [calls, errors], and the whole cost."""
    if not isinstance(usage, dict) or set(usage) != {"days", "tools", "cost"}:
        return False
    days, tools, cost = usage["days"], usage["tools"], usage["cost"]
    return (
        (cost is None or _is_number(cost))
        and isinstance(days, list)
        and all(
            isinstance(row, list)
            and len(row) == 5
            and isinstance(row[0], str)
            and isinstance(row[1], str)
            and _is_int(row[2])
            and (row[3] is None or _is_number(row[3]))
            and _is_int(row[4])
            for row in days
        )
        and isinstance(tools, dict)
        and all(
            isinstance(v, list) and len(v) == 2 and all(_is_int(n) for n in v)
            for v in tools.values()
        )
    )


def _nav_key(nav: Any) -> str:
    """A page's way-finding (its trail and neighbours) as the manifest keeps it to see it
    changed: a hash, so the manifest holds none of the titles and names in it."""
    return hashlib.sha256(repr(nav).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _save_manifest(
    out: Path, root_id: str, fingerprint: str, records: dict[str, SessionRecord], redactor: Any
) -> None:
    """The manifest (redacted like every other file: the root, file names, titles and
    errors in it are gated too)."""
    data = {
        "version": MANIFEST_VERSION,
        "generator": f"piexport {__version__}",
        "root": root_id,
        "fingerprint": fingerprint,
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sessions": [r.as_json() for r in sorted(records.values(), key=lambda r: r.source)],
    }
    text = output_json(data)  # any integer, however a session's figures add up
    if redactor is not None:
        from ..export.pipeline import check_output

        check_output(text, redactor, out / MANIFEST, kind="json")
    write_atomic(out / MANIFEST, text)
