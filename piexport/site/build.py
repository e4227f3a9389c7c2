"""A static site over a sessions folder: one page per session, an index per project, one over all.

Gather first, then write (mkdocs), in five steps over typed records (``records``):

1. **gather** (``gather``): discover the session files, each with its project and page;
2. **plan**: how the sessions relate (``links``), and from the manifest (``manifest``) which
   pages are stale;
3. **render** those in worker processes (each page through ``export.pipeline``, and its
   part of the search index);
4. **index** (``indexes``): the indexes and the search page;
5. **prune** the pages of sessions that are gone (after the indexes, which no longer link
   them), then write the manifest.

A broken session is listed with its error and never stops the rest.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, OutputError, PiexportError, RedactionError
from ..export.gate import Gate
from ..output import sweep_stale
from ..read.model import JSON, Session
from ..search.index import CACHE as INDEX_CACHE
from ..search.index import session_key
from ..search.records import FIELDS
from ..version import __version__
from ..workers import SteadyDepth, ctrl_c_blocked, end_executor, fork_executor
from .gated import shown, text_gate, write_refused
from .gather import Choice, gather, parse_date
from .indexes import remove_old_folders, write_indexes
from .links import lineage_key, origin_of, parent_page, relative, relative_refs, site_map
from .manifest import SessionRecord, load_manifest, nav_key, save_manifest
from .records import BuildSettings, Gathered, SiteMap, SiteReport, SiteSession
from .summary import SUMMARY_KEYS, session_summary

if TYPE_CHECKING:  # the page layer loads in the workers, not to list a folder
    from ..page.render import RenderOptions, SiteNav
    from ..page.view import ChildRef, Origin
    from ..read.selection import Selection
    from ..redact.engine import Redactor

__all__ = ["SiteInterrupted", "SiteReport", "build_site"]


def build_site(
    root: Path,
    out: Path,
    *,
    options: RenderOptions | None = None,
    jobs: int | None = None,
    force: bool = False,
    project: str | None = None,
    since: str | None = None,
    until: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    redactor: Redactor | None = None,
    selection: Selection | None = None,
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

    root = root.expanduser()
    if not root.exists():
        msg = f"{root}: no such folder (pass the sessions folder, e.g. ~/.pi/agent/sessions)"
        raise InputError(msg)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file there, or above it: one line, no traceback
        raise OutputError(f"{out}: cannot make the site's folder: {exc.strerror or exc}") from exc
    # temporary files of a run that was killed mid-write (pages written since are not)
    for place in [out, *(p for p in out.iterdir() if p.is_dir())]:
        sweep_stale(place)
    choice = Choice(project, parse_date(since), parse_date(until, end=True))
    settings = BuildSettings(
        root=root,
        out=out,
        options=options if options is not None else RenderOptions(),
        redactor=redactor,
        selection=selection,
        page_seconds=page_seconds,
        fields=frozenset(search_fields if search_fields is not None else FIELDS),
        search=search,
        growing_seconds=growing_seconds,
    )
    fingerprint = _fingerprint(settings)
    root_id = shown(str(root.resolve()), redactor)
    old = load_manifest(out, root_id, fingerprint, force)
    report = SiteReport(out=out)

    gathered = gather(root, choice, redactor, skip=(out,))
    report.nothing_found = gathered.nothing_found
    plan = _plan(
        settings, gathered.sessions, site_map(gathered, settings.search_href, redactor), old, report
    )
    kept = _outside(settings, choice, gathered, old, plan.records, report)
    try:
        _render(plan, jobs, progress, report)
        # the indexes first, then what they no longer link is removed: whenever a run
        # stops, every index on disk links only pages that are there
        doomed = _doomed(out, old, {**plan.records, **kept}, report)
        left = {rel: prev for rel, prev in old.items() if rel not in kept}
        projects = write_indexes(settings, plan.records, gathered.sessions, plan.site, report)
        _remove(doomed)
        remove_old_folders(out, left, projects)
    except KeyboardInterrupt:  # Ctrl+C: keep what is written, for the next run to go on
        _keep_done(settings, root_id, fingerprint, old, plan, report)
        raise SiteInterrupted(report) from None

    if redactor is not None:  # the names of everything written, gated like the pages
        names = sorted({r.page for r in plan.records.values()} | set(projects))
        try:
            Gate(redactor).check("\n".join(names), f"{out}: page and folder names", kind="text")
        except RedactionError as exc:  # written already: said, and the manifest still is
            report.refused.append(str(exc))
    save_manifest(out, root_id, fingerprint, {**kept, **plan.records}, redactor, report.refused)
    report.projects = len(projects)
    report.sessions = len(plan.records)
    return report


def _fingerprint(settings: BuildSettings) -> str:
    """Pages depend on piexport itself (code, templates, CSS, JS), the options, the redaction
    rules and the selection; their parts of the search index on what it indexes."""
    from ..page.assets import asset_fingerprint

    redactor, selection = settings.redactor, settings.selection
    shared = "" if redactor is None and selection is None else f":{selection!r}"
    if settings.search:
        shared += f":search={sorted(settings.fields)!r}"
    if redactor is not None:
        shared += f":redact={redactor.fingerprint()}"
    return f"{__version__}:{asset_fingerprint()}:{settings.options!r}{shared}"


# 2. plan


@dataclass(frozen=True, slots=True)
class _Job:
    """One page to render, as a worker process gets it (pickled)."""

    rel: str
    """The session's path under the root, as shown: its manifest record's key."""
    source: Path
    page: Path
    parent_href: str | None
    forks: tuple[tuple[str, str], ...]
    """(title, href) of every session forked from this one."""
    options: RenderOptions
    redactor: Redactor | None = None
    """Pickled into each worker; tokens agree across pages."""
    selection: Selection | None = None
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
    nav: SiteNav | None = None
    """The page's trail, search, previous and next session."""
    site: Path | None = None
    """The site's folder (a refused page links its root index)."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """Every session's manifest record (kept, or new and filled by its render) and the
    pages to render."""

    site: SiteMap
    records: dict[str, SessionRecord]
    jobs: list[_Job]
    done: set[str] = field(default_factory=set)
    """The jobs whose page this run has written (or failed), by their record's key."""


@dataclass(frozen=True, slots=True)
class _PageState:
    """What a session's page depends on besides its file (the manifest keeps ``key``)."""

    parent_href: str | None
    forks: tuple[tuple[str, str], ...]
    """(title, href) of every session forked from it."""
    origin: Origin | None
    children: tuple[ChildRef, ...]
    """Sessions started from it; hrefs relative to the site."""
    nav: SiteNav
    key: list[str]
    """Its forks, how it came from its parent, and its subagents' files as they are now."""
    pending: bool
    """Its last line is still being written (``growing_seconds``)."""


def _plan(
    settings: BuildSettings,
    sessions: list[SiteSession],
    site: SiteMap,
    old: dict[str, SessionRecord],
    report: SiteReport,
) -> _Plan:
    """Keep the record of every session whose page is current; plan a job for every other."""
    plan = _Plan(site, {}, [])
    for s in sessions:
        stat = s.source.stat()
        state = _page_state(settings, s, stat, site)
        prev = old.get(s.rel)
        if prev is not None and _current(settings, prev, s, stat, state):
            if state.pending:
                report.pending.append(s.rel)
            plan.records[s.rel] = prev
            report.unchanged += 1
            continue
        plan.records[s.rel] = SessionRecord(
            s.rel,
            stat.st_size,
            stat.st_mtime_ns,
            s.page,
            {},
            None,
            [],
            state.key,
            state.pending,
            nav_key(state.nav),
        )
        if state.pending:
            report.pending.append(s.rel)
        plan.jobs.append(_job(settings, s, state))
    return plan


def _page_state(
    settings: BuildSettings, s: SiteSession, stat: os.stat_result, site: SiteMap
) -> _PageState:
    growing = settings.growing_seconds
    pending = growing is not None and _growing(s.source, stat, growing)
    parent = parent_page(s.header, site.by_name)
    forks = tuple((f.name, relative(s.page, f.page)) for f in site.forks.get(s.page, []))
    origin = origin_of(s.page, site.lineage)
    children = site.children.get(s.page, ())
    # a page shows its forks, how it came from its parent, and its subagents' figures
    key = [f"{n}:{h}" for n, h in forks] + lineage_key(origin, children)
    return _PageState(
        relative(s.page, parent) if parent else None,
        forks,
        origin,
        children,
        site.navs[s.page],
        key,
        pending,
    )


def _current(
    settings: BuildSettings,
    prev: SessionRecord,
    s: SiteSession,
    stat: os.stat_result,
    state: _PageState,
) -> bool:
    """Whether the page the manifest records is the one this build would make."""
    out = settings.out
    return (
        prev.size == stat.st_size
        and prev.mtime_ns == stat.st_mtime_ns
        and prev.page == s.page
        and prev.forks_rendered == state.key
        and prev.error is None
        and prev.pending == state.pending
        and prev.nav == nav_key(state.nav)
        and (out / s.page).is_file()
        and (not settings.search or (out / INDEX_CACHE / f"{session_key(s.page)}.json").is_file())
    )


def _job(settings: BuildSettings, s: SiteSession, state: _PageState) -> _Job:
    return _Job(
        s.rel,
        s.source,
        settings.out / s.page,
        state.parent_href,
        state.forks,
        settings.options,
        redactor=settings.redactor,
        selection=settings.selection,
        seconds=settings.page_seconds,
        name=shown(s.source.name, settings.redactor),
        index_root=settings.out if settings.search else None,
        index_page=s.page,
        search_fields=settings.fields,
        pending_tail=state.pending,
        origin=state.origin,
        children=tuple(relative_refs(s.page, state.children)),
        nav=state.nav,
        site=settings.out,
    )


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


def _outside(
    settings: BuildSettings,
    choice: Choice,
    gathered: Gathered,
    old: dict[str, SessionRecord],
    records: dict[str, SessionRecord],
    report: SiteReport,
) -> dict[str, SessionRecord]:
    """A build deletes only what it made for the same selection: the pages of sessions
    outside it (``--project``, ``--since``, ``--until``: their file is there and the choice
    leaves it out, or it is gone and its record does not show the choice would keep it)
    stay. One that is current (same root and options, its page and search part there) stays
    listed in the indexes (it joins ``records``); any other only stays on disk and in the
    manifest (returned), for a build that chooses it to render or remove. Without a choice,
    nothing is outside."""
    if not choice.filtered:
        return {}
    out = settings.out
    pages = {r.page for r in records.values()}
    unlisted: dict[str, SessionRecord] = {}
    for rel, prev in old.items():
        if rel in records:
            continue
        if rel not in gathered.left_out and choice.would_choose(
            prev.source, prev.summary, prev.mtime_ns
        ):
            continue  # gone, and the choice would keep it: its page is this build's to remove
        report.outside += 1
        current = (
            prev.size >= 0
            and prev.page not in pages
            and (out / prev.page).is_file()
            and (
                not settings.search
                or prev.error is not None
                or (out / INDEX_CACHE / f"{session_key(prev.page)}.json").is_file()
            )
        )
        if current:
            records[rel] = prev
            pages.add(prev.page)
        elif prev.page not in pages:
            unlisted[rel] = prev
    return unlisted


# 3. render


@dataclass(frozen=True, slots=True)
class _Rendered:
    """What a worker reports about one page."""

    summary: JSON | None
    """The index row (None when the page failed)."""
    diagnostics: list[str]
    error: str | None
    redacted: dict[str, int]
    """Secrets replaced per rule."""
    refused: bool = False
    """The output gate refused the page: a plain page saying why stands in its place."""


def _render(
    plan: _Plan,
    jobs: int | None,
    progress: Callable[[int, int], None] | None,
    report: SiteReport,
) -> None:
    """Render the planned pages in parallel; each fills its record with its row, or its
    error."""
    total = len(plan.jobs)
    interrupt_after = _interrupt_after()
    for done, (job, result) in enumerate(zip(plan.jobs, _run(plan.jobs, jobs), strict=True), 1):
        _take(plan.records[job.rel], job, result, report)
        plan.done.add(job.rel)
        if progress:
            progress(done, total)
        if done == interrupt_after:
            _ctrl_c()


def _take(rec: SessionRecord, job: _Job, result: _Rendered, report: SiteReport) -> None:
    """A page's outcome into its record and the report."""
    report.redacted.update(result.redacted)
    if result.error is not None:
        rec.error = result.error
        rec.summary = dict.fromkeys(SUMMARY_KEYS)
        rec.summary.update(title=Path(job.rel).name, file=Path(job.rel).name, models=[])
        report.failed.append((job.rel, result.error))
        if result.refused:
            report.refused.append(result.error)
        return
    assert result.summary is not None
    rec.summary, rec.diagnostics = result.summary, result.diagnostics
    report.warnings.extend(result.diagnostics)  # unchanged pages were reported when built
    report.rendered += 1


INTERRUPT_AFTER = "PIEXPORT_TEST_INTERRUPT_AFTER"
"""A test's hook: after this many pages rendered, the build is sent Ctrl+C (SIGINT to its
worker processes and to itself), at a counted point rather than after some time."""


def _interrupt_after() -> int | None:
    value = os.environ.get(INTERRUPT_AFTER, "")
    return int(value) if value.isdigit() else None


def _ctrl_c() -> None:
    """What a terminal's Ctrl+C does: SIGINT to every process of the command (the workers,
    then this one, which takes it at once)."""
    import multiprocessing
    import signal

    for child in multiprocessing.active_children():
        if child.pid is not None:
            os.kill(child.pid, signal.SIGINT)
    signal.raise_signal(signal.SIGINT)


class SiteInterrupted(KeyboardInterrupt):
    """Ctrl+C stopped a build: the pages written so far are kept and in the manifest (the
    next run renders only what is missing); nothing else was removed or rewritten."""

    def __init__(self, report: SiteReport) -> None:
        super().__init__()
        self.report = report

    def __str__(self) -> str:
        r = self.report
        return (
            f"interrupted: {r.rendered} page(s) written this run are kept in {r.out}; "
            "run again to render the rest"
        )


def _keep_done(
    settings: BuildSettings,
    root_id: str,
    fingerprint: str,
    old: dict[str, SessionRecord],
    plan: _Plan,
    report: SiteReport,
) -> None:
    """After Ctrl+C: the manifest records the pages written so far (and, for the rest, what
    the last build wrote), so the next run renders only what is missing. Nothing is pruned
    and no index is rewritten: the previous site's indexes link only pages still there (a
    page is replaced in place, never removed first), and a first build has none yet. A
    second Ctrl+C while the manifest is written is ignored until it is."""
    records = dict(old)
    planned = {job.rel for job in plan.jobs}
    for rel, rec in plan.records.items():
        if rel in plan.done or rel not in planned:
            records[rel] = rec
    with _ctrl_c_held():
        save_manifest(settings.out, root_id, fingerprint, records, settings.redactor)


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    import signal

    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to hold
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _run(todo: list[_Job], jobs: int | None) -> Iterator[_Rendered]:
    workers = jobs or os.cpu_count() or 1
    if workers <= 1 or len(todo) <= 1:
        return (_render_steadily(job) for job in todo)
    pool = fork_executor(min(workers, len(todo)))
    # pages are already rendered side by side: one process each
    one_each = [replace(job, options=replace(job.options, workers=1)) for job in todo]

    def results() -> Iterator[_Rendered]:
        try:
            with ctrl_c_blocked():  # the workers are forked as the work is handed out
                pages = pool.map(_render_steadily, one_each, chunksize=1)
            yield from pages
        except BaseException:  # Ctrl+C: the pages under way are not waited for
            end_executor(pool)
            raise
        pool.shutdown()

    return results()


_steady = SteadyDepth()
"""This process's depth for pages (each worker has its own copy)."""


def _render_steadily(job: _Job) -> _Rendered:
    return _steady.run(_render_one, job)


def _render_one(job: _Job) -> _Rendered:
    """Worker: load, render and write one page (and its part of the search index)."""
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
    except RedactionError as exc:
        # one refused page never stops an archive: a plain page says why in its place
        error = shown(str(exc), job.redactor)
        write_refused(job.page, error, job.redactor, job.site or job.page.parent.parent)
        return _Rendered(None, [], error, {}, refused=True)
    except PiexportError as exc:
        return _Rendered(None, [], shown(str(exc), job.redactor), {})
    except Exception as exc:  # one broken session must never stop the site
        error = f"{job.source}: internal error while rendering: {exc!r}"
        return _Rendered(None, [], shown(error, job.redactor), {})
    summary = session_summary(result.session, job.source)
    summary["file"] = job.name or job.source.name
    summary["relation"] = job.origin.relation if job.origin is not None else None
    summary["subagents"] = result.subagents
    summary["costWithSubagents"] = (
        None if result.cost_with_subagents is None else round(result.cost_with_subagents, 6)
    )
    return _Rendered(summary, [str(d) for d in result.session.diagnostics], None, result.redacted)


def _index_one(job: _Job, session: Session) -> None:
    """The session's part of the search index, from the session as its page shows it."""
    from ..search.index import write_session_index

    assert job.index_root is not None
    write_session_index(
        session, job.index_root, job.index_page, job.search_fields, text_gate(job.redactor)
    )


# 5. prune (4., the indexes, is indexes.py)


def _doomed(
    out: Path, old: dict[str, SessionRecord], records: dict[str, SessionRecord], report: SiteReport
) -> list[Path]:
    """The pages to remove: those of sessions that are gone, and old pages of sessions whose
    page moved (e.g. --redact renamed the project folder: the old page may hold what was
    redacted); only pages we wrote ourselves."""
    current_pages = {r.page for r in records.values()}
    doomed = []
    for rel, prev in old.items():
        if prev.page not in current_pages:
            target = (out / prev.page).resolve()
            if target.is_relative_to(out.resolve()) and target.is_file():
                doomed.append(target)
                if rel not in records:
                    report.removed += 1
    return doomed


def _remove(pages: list[Path]) -> None:
    for page in pages:
        page.unlink(missing_ok=True)
